"""Review four, finding 2: the sandbox showed the whole home but a list of names.

An approved `python3 -m unittest` printed token files that no list names (Hugging Face's,
Kaggle's, glab's, a tool that will exist next year) and they reached the model. The home is
now hidden whole (an empty, writable one in its place, thrown away after the command); shown
are only the project, the program's own installation (a venv, a toolchain's prefix, a version
manager's root) and what the person lists read-only in `commands.visible_read_only`.

The home is a fake one under /var/tmp (inside the sandbox /tmp is private already, so a home
there would prove nothing); the interpreter the scripts run with lies outside it.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from agent.settings import CommandsSettings
from tests.fake_openai import FakeOpenAI
from tests.pty_chat import oneshot_in_terminal, pty_env
from tests.security.run_command_helpers import (
    PYTHON,
    fake_home,
    folder_outside_tmp,
    make_tool,
    refused,
    run,
)

CANARY = "HOME-TOKEN-CANARY-7f3a"
# Token files by names no list of the sandbox knows (the review's, and one of a tool to come).
TOKEN_FILES = (
    (".cache", "huggingface", "token"),
    (".kaggle", "kaggle.json"),
    (".config", "glab-cli", "config.yml"),
    (".config", "containers", "auth.json"),
    (".terraformrc",),
    (".gradle", "gradle.properties"),
    (".config", "pypoetry", "auth.toml"),
    (".config", "io.datasette.llm", "keys.json"),
    (".config", "some-new-tool", "auth.json"),
)


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    yield from folder_outside_tmp()


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = fake_home(tmp_path, monkeypatch)
    for parts in TOKEN_FILES:
        path = home.joinpath(*parts)
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"token = {CANARY}-{parts[-1]}\n")
    return home


def reader(paths: list[Path], listed: Path) -> list[str]:
    """A program printing each file (or why it cannot), then what `listed` holds."""
    code = (
        "import os, pathlib\n"
        f"for path in {[str(path) for path in paths]!r}:\n"
        "    try:\n"
        "        print(path, repr(pathlib.Path(path).read_text()))\n"
        "    except OSError as error:\n"
        "        print(path, 'unreadable', error.strerror)\n"
        f"print('LISTING', sorted(os.listdir({str(listed)!r})))\n"
    )
    return [PYTHON, "-c", code]


def test_token_files_no_list_names_are_not_readable_and_the_home_is_empty(
    tmp_path: Path, home: Path
) -> None:
    tool = make_tool(tmp_path)
    paths = [home.joinpath(*parts) for parts in TOKEN_FILES]
    lines, result = run(tool, argv=reader(paths, home))

    assert result.text.startswith("exit code 0"), result.text
    assert CANARY not in result.text
    assert "LISTING []" in result.text
    assert f"home: {home} hidden (an empty one in its place: writable, thrown away after)" in (
        lines
    )


def test_the_empty_home_takes_a_programs_caches_and_throws_them_away(
    tmp_path: Path, home: Path
) -> None:
    tool = make_tool(tmp_path)
    code = (
        "import os, pathlib\n"
        "cache = pathlib.Path(os.environ['HOME'], '.cache', 'tool', 'state')\n"
        "cache.parent.mkdir(parents=True)\n"
        "cache.write_text('cached')\n"
        "print('CACHED', cache.read_text())\n"
    )
    _, result = run(tool, argv=[PYTHON, "-c", code])

    assert "CACHED cached" in result.text, result.text
    assert not (home / ".cache" / "tool").exists()


def test_a_project_in_the_home_is_shown_and_nothing_else_of_the_home(
    tmp_path: Path, home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = home / "work" / "app"
    project.mkdir(parents=True)
    (project / "README").write_text("the project's own file\n")
    (home / "work" / "other").mkdir()
    (home / "work" / "other" / "secret.txt").write_text(f"{CANARY} beside the project\n")
    from agent.tools.command_tool import RunCommand
    from agent.tools.sandbox import sandbox_state

    own = (tmp_path / "agent-home").resolve()
    tool = RunCommand(project.resolve(), [own], CommandsSettings(), sandbox=sandbox_state)
    paths = [project / "README", home / "work" / "other" / "secret.txt",
             home / ".kaggle" / "kaggle.json"]  # fmt: skip
    lines, result = run(tool, argv=reader(paths, home / "work"))
    _, wrote = run(tool, argv=["sh", "-c", "echo made > made.txt"])

    assert (
        f"home: {home} hidden (an empty one in its place: writable, thrown away after); "
        "the project in it read-write"
    ) in lines
    assert "the project's own file" in result.text
    assert CANARY not in result.text
    assert "LISTING ['app']" in result.text
    assert wrote.text.startswith("exit code 0") and (project / "made.txt").read_text() == "made\n"


def make_venv(root: Path) -> Path:
    """A real venv (no pip: quick) whose console script reads a home token if it can."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    script = root / "bin" / "checker"
    script.write_text(
        f"#!{root / 'bin' / 'python'}\n"
        "import os, pathlib, sys\n"
        "print('prefix', sys.prefix)\n"
        "token = pathlib.Path(os.environ['HOME'], '.kaggle', 'kaggle.json')\n"
        "print('token', token.read_text() if token.exists() else 'absent')\n"
        "try:\n"
        "    (pathlib.Path(sys.prefix) / 'planted').write_text('x')\n"
        "    print('WROTE in the venv')\n"
        "except OSError as error:\n"
        "    print('venv', error.strerror)\n"
    )
    script.chmod(0o755)
    return root


def environ_with(path: str, **names: str) -> dict[str, str]:
    return {"PATH": f"{path}:/usr/bin:/bin", "HOME": str(Path.home()), **names}


def test_a_program_in_a_venv_under_the_home_runs_with_its_venv_shown_read_only(
    tmp_path: Path, home: Path
) -> None:
    venv = make_venv(home / "venvs" / "x")
    tool = make_tool(tmp_path, environ=environ_with(str(venv / "bin"), VIRTUAL_ENV=str(venv)))
    lines, result = run(tool, argv=["checker"])

    assert f"visible read-only: {venv}" in lines, lines
    assert result.text.startswith("exit code 0"), result.text
    assert f"prefix {venv}" in result.text
    assert "token absent" in result.text and CANARY not in result.text
    assert "venv Read-only file system" in result.text
    assert not (venv / "planted").exists()


def test_a_toolchains_prefix_and_a_version_managers_root_are_shown_not_their_neighbours(
    tmp_path: Path, home: Path
) -> None:
    # nvm's layout: the program in <prefix>/bin, what it needs in <prefix>/lib.
    prefix = home / ".nvm" / "versions" / "node" / "v20.11.0"
    (prefix / "bin").mkdir(parents=True)
    (prefix / "lib").mkdir()
    (prefix / "lib" / "runtime.txt").write_text("runtime library\n")
    (prefix / "bin" / "noder").write_text(
        '#!/bin/sh\ncat "$(dirname "$0")/../lib/runtime.txt"\ncat ~/.kaggle/kaggle.json\n'
    )
    (prefix / "bin" / "noder").chmod(0o755)
    (home / ".nvm" / "alias").write_text(f"{CANARY} a neighbour of the prefix\n")
    # pyenv's layout: a shim that runs <root>/versions/<v>/bin/<program>.
    root = home / ".pyenv"
    (root / "shims").mkdir(parents=True)
    (root / "versions" / "1.0" / "bin").mkdir(parents=True)
    (root / "versions" / "1.0" / "bin" / "piper").write_text("#!/bin/sh\necho real piper ran\n")
    (root / "shims" / "piper").write_text(f'#!/bin/sh\nexec "{root}/versions/1.0/bin/piper"\n')
    for program in (root / "versions" / "1.0" / "bin" / "piper", root / "shims" / "piper"):
        program.chmod(0o755)
    environ = environ_with(f"{prefix / 'bin'}:{root / 'shims'}")

    lines, result = run(make_tool(tmp_path, environ=environ), argv=["noder"])
    assert f"visible read-only: {prefix}" in lines, lines
    assert "runtime library" in result.text, result.text
    assert CANARY not in result.text

    lines, result = run(make_tool(tmp_path, environ=environ), argv=["piper"])
    assert f"visible read-only: {root}" in lines, lines
    assert "real piper ran" in result.text, result.text


def test_a_program_lying_directly_in_the_home_is_refused_not_the_home_shown(
    tmp_path: Path, home: Path
) -> None:
    (home / "tool").write_text("#!/bin/sh\ncat ~/.kaggle/kaggle.json\n")
    (home / "tool").chmod(0o755)
    reason = refused(make_tool(tmp_path, environ=environ_with(str(home))), argv=["tool"])
    assert "lies directly in your home" in reason and "nothing ran" in reason, reason


def test_a_listed_folder_is_readable_but_not_writable_and_a_missing_one_is_said(
    tmp_path: Path, home: Path
) -> None:
    registry = home / ".cargo" / "registry"
    registry.mkdir(parents=True)
    (registry / "index.txt").write_text("crates index\n")
    (home / ".gitconfig").write_text("[user]\n\tname = Me\n")
    settings = CommandsSettings(
        visible_read_only=("~/.cargo/registry", "~/.gitconfig", "~/.m2/repository")
    )
    tool = make_tool(tmp_path, settings=settings)
    script = (
        "cat ~/.cargo/registry/index.txt ~/.gitconfig; cat ~/.kaggle/kaggle.json; "
        "echo x > ~/.cargo/registry/planted || echo refused; "
        "echo x >> ~/.gitconfig || echo refused"
    )
    lines, result = run(tool, argv=["sh", "-c", script])

    assert f"visible read-only: {registry} (commands.visible_read_only)" in lines, lines
    assert f"visible read-only: {home / '.gitconfig'} (commands.visible_read_only)" in lines
    assert (
        f"not found, so not shown: {home / '.m2' / 'repository'} (commands.visible_read_only)"
        in (lines)
    )
    assert "crates index" in result.text and "name = Me" in result.text, result.text
    assert CANARY not in result.text
    assert result.text.count("Read-only file system") == 2, result.text
    assert not (registry / "planted").exists()
    assert (home / ".gitconfig").read_text() == "[user]\n\tname = Me\n"


def test_a_listed_folder_that_holds_ssh_or_is_the_home_is_refused(
    tmp_path: Path, home: Path
) -> None:
    dotfiles = home / "dotfiles"
    (dotfiles / "ssh").mkdir(parents=True)
    (dotfiles / "ssh" / "id_ed25519").write_text(f"{CANARY} PRIVATE KEY\n")
    (home / ".ssh").symlink_to(dotfiles / "ssh")
    for entry, why in (("~/dotfiles", str(dotfiles / "ssh")), ("~", "your home itself")):
        settings = CommandsSettings(visible_read_only=(entry,))
        reason = refused(make_tool(tmp_path, settings=settings), argv=["true"])
        assert "commands.visible_read_only" in reason and entry in reason, reason
        assert why in reason and "nothing ran" in reason, reason


def test_one_shot_a_sandboxed_commands_output_reaching_the_model_holds_no_home_token(
    tmp_path: Path, home: Path, agent_home: Path
) -> None:
    """Through the real `agent -p` in a terminal: the model asks for a command that prints the
    token files; the person says yes; the model is sent what the command printed."""
    project = tmp_path / "project"
    project.mkdir()
    agent_home.mkdir(exist_ok=True)
    (agent_home / "settings.yaml").write_text("commands:\n  visible_read_only: [~/.gitconfig]\n")
    (home / ".gitconfig").write_text("[user]\n\tname = Listed Person\n")
    env = pty_env(agent_home, tmp_path)
    assert env["HOME"] == str(home)
    tokens = " ".join(str(home.joinpath(*parts)) for parts in TOKEN_FILES)
    script = f"ls -A ~; cat ~/.gitconfig; cat {tokens}; true"
    turns = [
        {"tool_calls": [{"id": "c1", "name": "run_command",
                         "arguments": {"argv": ["sh", "-c", script]}}]},
        {"text": "Printed them."},
    ]  # fmt: skip
    with FakeOpenAI(turns) as fake:
        agent = oneshot_in_terminal(fake.base_url, "run the tests", env, project)
        agent.expect("Approve\\?")
        shown = agent.before
        agent.send("y")
        agent.expect("Printed them.")
        agent.expect(pexpect.EOF)
        agent.close()
        requests = fake.requests
    assert agent.exitstatus == 0
    assert f"home: {home} hidden" in " ".join(shown.split()), shown
    sent = json.dumps(requests[1]["body"]["messages"][-1])
    assert "Listed Person" in sent
    assert CANARY not in sent, sent
