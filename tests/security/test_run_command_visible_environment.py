"""run_command with a program under /tmp, which the sandbox's private /tmp would hide: a venv
at /tmp/venvs/x, found on PATH and named in the approval, runs once the person said yes (its
root shown read-only at the same path, and the approval says so); a link from /tmp into
~/.ssh or agent's own folder shows nothing of them, and the call is refused saying why.

The project and the home lie outside /tmp (under /var/tmp, as in the other sandbox tests);
the venvs and programs under a fresh folder in the real /tmp.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.run_command_helpers import (
    fake_home,
    folder_in_tmp,
    folder_outside_tmp,
    make_tool,
    refused,
    run,
)


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    yield from folder_outside_tmp()


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fake_home(tmp_path, monkeypatch)


@pytest.fixture
def in_tmp() -> Iterator[Path]:
    """A fresh folder in the real /tmp, the place the sandbox replaces by its own."""
    yield from folder_in_tmp("agent-visible-")


def make_venv(root: Path) -> Path:
    """A real venv (no pip: quick), with a `pytest`-like console script as pip writes them."""
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(root)], check=True)
    script = root / "bin" / "checker"
    script.write_text(
        f"#!{root / 'bin' / 'python'}\n"
        "import pathlib, sys\n"
        "print('prefix', sys.prefix)\n"
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


def test_a_venv_under_tmp_found_on_path_runs_and_is_shown_read_only(
    tmp_path: Path, in_tmp: Path
) -> None:
    venv = make_venv(in_tmp / "venvs" / "x")
    environ = environ_with(str(venv / "bin"), VIRTUAL_ENV=str(venv))
    tool = make_tool(tmp_path, environ=environ)

    lines, result = run(tool, argv=["checker"])

    assert f"program: {venv / 'bin' / 'checker'}" in lines
    assert f"visible read-only: {venv}" in lines
    assert result.text.startswith("exit code 0"), result.text
    assert f"prefix {venv}" in result.text
    assert "venv Read-only file system" in result.text
    assert not (venv / "planted").exists()


def test_a_program_in_a_plain_folder_under_tmp_gets_that_folder_only(
    tmp_path: Path, in_tmp: Path
) -> None:
    tools = in_tmp / "tools"
    tools.mkdir()
    (tools / "hello").write_text("#!/bin/sh\necho hello from tmp\nls /tmp\n")
    (tools / "hello").chmod(0o755)
    (in_tmp / "beside.txt").write_text("not shown")
    tool = make_tool(tmp_path, environ=environ_with(str(tools)))

    lines, result = run(tool, argv=["hello"])

    assert f"visible read-only: {tools}" in lines
    assert result.text.startswith("exit code 0"), result.text
    assert "hello from tmp" in result.text
    assert "beside.txt" not in result.text  # the rest of /tmp stays out of sight


def test_virtual_env_under_tmp_is_shown_for_a_program_from_elsewhere(
    tmp_path: Path, in_tmp: Path
) -> None:
    venv = make_venv(in_tmp / "venv")
    tool = make_tool(tmp_path, environ=environ_with("/usr/bin", VIRTUAL_ENV=str(venv)))

    lines, result = run(tool, argv=["ls", str(venv / "bin")])

    assert f"visible read-only: {venv}" in lines
    assert "checker" in result.text


def test_nothing_extra_is_shown_for_programs_outside_tmp(tmp_path: Path) -> None:
    tool = make_tool(tmp_path, environ=environ_with("/usr/bin"))
    lines, _ = run(tool, argv=["true"])
    assert not any(line.startswith("visible read-only") for line in lines)


def test_a_program_lying_directly_in_tmp_is_refused_not_all_of_tmp_shown(
    tmp_path: Path, in_tmp: Path
) -> None:
    program = Path(tempfile.mkstemp(prefix="agent-visible-tool-", dir="/tmp")[1])
    try:
        program.write_text("#!/bin/sh\necho ran\n")
        program.chmod(0o755)
        tool = make_tool(tmp_path, environ=environ_with("/tmp"))
        reason = refused(tool, argv=[program.name])
    finally:
        program.unlink()
    assert "lies directly in /tmp" in reason and "nothing ran" in reason


# Attacks: a repository or a model answer that arranges a program under /tmp so that showing
# "its folder" would show a place the sandbox hides on purpose.


def test_a_program_linked_from_tmp_into_ssh_does_not_show_ssh(
    tmp_path: Path, in_tmp: Path, home: Path
) -> None:
    ssh = home / ".ssh"
    ssh.mkdir()
    (ssh / "id_ed25519").write_text("PRIVATE KEY")
    (ssh / "tool").write_text("#!/bin/sh\ncat ~/.ssh/id_ed25519\n")
    (ssh / "tool").chmod(0o755)
    links = in_tmp / "links"
    links.mkdir()
    (links / "tool").symlink_to(ssh / "tool")
    (in_tmp / "linked-folder").symlink_to(ssh)  # the folder itself a link: PATH entry /tmp/...
    (in_tmp / "venv").mkdir()
    (in_tmp / "venv" / "pyvenv.cfg").write_text("home = /usr/bin\n")
    (in_tmp / "venv" / "bin").symlink_to(ssh)  # a "venv" whose bin/ is ~/.ssh

    for entry in (links, in_tmp / "linked-folder", in_tmp / "venv" / "bin"):
        tool = make_tool(tmp_path, environ=environ_with(str(entry)))
        reason = refused(tool, argv=["tool"])
        assert "where the sandbox hides" in reason and str(ssh) in reason, reason


def test_virtual_env_linked_from_tmp_into_agents_folder_shows_nothing(
    tmp_path: Path, in_tmp: Path
) -> None:
    own = tmp_path / "agent-home"
    (own / "sessions").mkdir()
    (own / "sessions" / "chat.jsonl").write_text("the person's chat\n")
    (in_tmp / "venv").symlink_to(own)
    environ = environ_with("/usr/bin", VIRTUAL_ENV=str(in_tmp / "venv"))
    tool = make_tool(tmp_path, environ=environ)

    lines, result = run(tool, argv=["sh", "-c", 'cat "$VIRTUAL_ENV/sessions/chat.jsonl"'])

    assert not any(line.startswith("visible read-only") for line in lines), lines
    assert "the person's chat" not in result.text
    assert "No such file" in result.text


def test_a_program_beside_agents_folder_under_tmp_does_not_show_that_folder(
    in_tmp: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Everything under /tmp this time: agent's folder, the home, and a program in the folder
    # holding them. Showing the program's folder would show agent's folder within it.
    home = in_tmp / "home"
    (home / ".ssh").mkdir(parents=True)
    monkeypatch.setenv("HOME", str(home))
    (in_tmp / "agent-home").mkdir()
    (in_tmp / "agent-home" / "settings.yaml").write_text("secret: yes\n")
    (in_tmp / "tool").write_text("#!/bin/sh\ncat agent-home/settings.yaml\n")
    (in_tmp / "tool").chmod(0o755)
    project = Path(tempfile.mkdtemp(prefix="agent-visible-project-", dir="/var/tmp"))
    try:
        from agent.settings import CommandsSettings
        from agent.tools.command_tool import RunCommand
        from agent.tools.sandbox import sandbox_state

        tool = RunCommand(
            project.resolve(),
            [(in_tmp / "agent-home").resolve()],
            CommandsSettings(),
            sandbox=sandbox_state,
            environ=environ_with(str(in_tmp)),
        )
        reason = refused(tool, argv=["tool"])
    finally:
        shutil.rmtree(project, ignore_errors=True)
    assert "where the sandbox hides" in reason and str(in_tmp / "agent-home") in reason
