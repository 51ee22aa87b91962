"""Attacks on the trust of local servers: the same stored definition made to run something else.

Trust covers what actually runs (resolved program, expanded arguments, working directory,
environment), so each attack below must end in a question, never in a silent start.
Everything goes through the real `agent` console script, on a pseudo-terminal where a person
answers.
"""

from __future__ import annotations

import io
import json
import os
import stat
import subprocess
import sys
from collections.abc import Mapping, Sequence
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests import deadlines
from tests.fake_openai import FakeOpenAI
from tests.fixtures.mcp_fixtures import server_path
from tests.pty_chat import AGENT, spawn_agent

TIMEOUT = deadlines.PROCESS
TOOLS_SERVER = server_path("tools_server.py")
SECRET = "tok-5f1c9e-first-value"
ROTATED = "tok-0b7d42-second-value"

# A module that runs the real fixture server: what the person trusted in project A.
BENIGN_MODULE = f"import runpy\nrunpy.run_path({TOOLS_SERVER!r}, run_name='__main__')\n"
# The same module name in project B: it only proves it ran by leaving a file behind.
HOSTILE_MODULE = "import pathlib\npathlib.Path('PWNED').write_text('ran')\n"


def project(root: Path, name: str, module: str) -> Path:
    """A git project holding `fx_server.py`."""
    folder = root / name
    (folder / ".git").mkdir(parents=True)
    (folder / "fx_server.py").write_text(module, encoding="utf-8")
    return folder


def agent(
    *args: str, cwd: Path, env: Mapping[str, str] | None = None, stdin: str | None = None
) -> subprocess.CompletedProcess[str]:
    """`agent ARGS` in `cwd` without a terminal."""
    return subprocess.run(
        [AGENT, *args],
        input=stdin,
        stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(env or os.environ),
        timeout=TIMEOUT,
        check=False,
    )


def at_terminal(
    *args: str,
    cwd: Path,
    answers: Sequence[tuple[str, str]],
    env: Mapping[str, str] | None = None,
) -> tuple[int | None, str]:
    """`agent ARGS` in `cwd` on a pseudo-terminal, answering each prompt once it shows."""
    environ = {**(env or os.environ), "PROMPT_TOOLKIT_NO_CPR": "1"}
    shown = io.StringIO()
    child = spawn_agent(list(args), environ, cwd, dimensions=(50, 300), timeout=TIMEOUT)
    child.logfile_read = shown
    try:
        for prompt, answer in answers:
            child.expect_exact(prompt)
            child.sendline(answer)
        child.expect(pexpect.EOF)
    finally:
        child.close(force=True)
    return child.exitstatus, shown.getvalue().replace("\r\n", "\n")


def import_servers(servers: dict[str, object], cwd: Path) -> None:
    result = agent("mcp", "import", "-", cwd=cwd, stdin=json.dumps({"mcpServers": servers}))
    assert result.returncode == 0, result.stderr


def call_echo(cwd: Path, env: Mapping[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return agent("mcp", "call", "fx", "echo", "--args", '{"text": "hi"}', cwd=cwd, env=env)


def say_hi(cwd: Path) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """`agent -p hi` in `cwd` with no terminal, against a model that answers "ok"; the run and
    the requests the model received."""
    env = {**os.environ, "OPENAI_API_KEY": "sk-test"}
    env.pop("AGENT_MODEL", None)
    with FakeOpenAI([{"text": "ok"}]) as fake:
        args = ["--model", "openai/fake-model", "--api-base", fake.base_url, "-p", "hi"]
        done = subprocess.run(
            [AGENT, *args],
            capture_output=True,
            text=True,
            cwd=cwd,
            env=env,
            timeout=60,
            start_new_session=True,
            check=False,
        )
        return done, fake.requests


def trusted_row(cwd: Path, env: Mapping[str, str] | None = None) -> str:
    listing = agent("mcp", "list", cwd=cwd, env=env).stdout.splitlines()
    header, row = listing[0], next(line for line in listing if line.startswith("fx "))
    start = header.index("TRUSTED")
    return row[start:].split()[0] + (" here" if row[start:].startswith("not here") else "")


def test_a_server_trusted_in_one_project_never_runs_another_projects_module(
    tmp_path: Path, agent_home: Path
) -> None:
    first = project(tmp_path, "first", BENIGN_MODULE)
    second = project(tmp_path, "second", HOSTILE_MODULE)
    # No cwd: the server starts in the project, so `-m fx_server` is the project's own file.
    import_servers({"fx": {"command": sys.executable, "args": ["-m", "fx_server"]}}, first)
    status, _ = at_terminal("mcp", "trust", "fx", cwd=first, answers=[("[y/N] ", "y")])
    assert status == 0
    assert call_echo(first).returncode == 0

    refused = call_echo(second)

    assert not (second / "PWNED").exists()
    assert refused.returncode == 1
    assert refused.stderr.startswith("agent: MCP server 'fx' is not trusted here")
    assert f"it runs in this project's folder, and you trusted it in {first}" in refused.stderr
    assert "its working directory is this project's folder" in refused.stderr
    assert trusted_row(second) == "not here"
    assert trusted_row(first) == "yes"


def test_trust_is_kept_per_project_and_the_question_says_what_changed(
    tmp_path: Path, agent_home: Path
) -> None:
    first = project(tmp_path, "first", BENIGN_MODULE)
    second = project(tmp_path, "second", BENIGN_MODULE)
    import_servers({"fx": {"command": sys.executable, "args": ["-m", "fx_server"]}}, first)
    assert at_terminal("mcp", "trust", "fx", cwd=first, answers=[("[y/N] ", "y")])[0] == 0

    status, shown = at_terminal("mcp", "trust", "fx", cwd=second, answers=[("[y/N] ", "y")])

    assert status == 0
    assert f"MCP server 'fx': it runs in this project's folder, and you trusted it in {first}." in (
        shown
    )
    assert "    - its working directory is this project's folder\n" in shown
    assert f"  Trust is recorded for this project only: {second}\n" in shown
    # Both projects keep their own trust: going back asks nothing.
    assert call_echo(first).returncode == 0
    assert call_echo(second).returncode == 0


def test_a_changed_environment_value_asks_again_and_no_value_is_stored(
    tmp_path: Path, agent_home: Path
) -> None:
    here = project(tmp_path, "here", BENIGN_MODULE)
    definition = {
        "command": sys.executable,
        "args": [TOOLS_SERVER, "--name", "fx"],
        "cwd": str(here),
        "env": {"API_TOKEN": "${FX_TOKEN}"},
    }
    import_servers({"fx": definition}, here)
    env = {**os.environ, "FX_TOKEN": SECRET}
    status, _ = at_terminal("mcp", "trust", "fx", cwd=here, env=env, answers=[("[y/N] ", "y")])
    assert status == 0
    assert call_echo(here, env).returncode == 0

    refused = call_echo(here, {**env, "FX_TOKEN": ROTATED})

    assert refused.returncode == 1
    assert "environment: the value of API_TOKEN changed" in refused.stderr
    for secret in (SECRET, ROTATED):
        assert secret not in refused.stderr
        for path in agent_home.rglob("*"):
            if path.is_file():
                assert secret.encode() not in path.read_bytes(), path
    key = agent_home / "trust.key"
    assert stat.S_IMODE(key.stat().st_mode) == 0o600


def test_a_command_that_path_resolves_elsewhere_asks_again(
    tmp_path: Path, agent_home: Path
) -> None:
    here = project(tmp_path, "here", BENIGN_MODULE)
    trusted_bin, other_bin = tmp_path / "trusted-bin", tmp_path / "other-bin"
    for folder in (trusted_bin, other_bin):
        folder.mkdir()
        launcher = folder / "fx-server"
        launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {TOOLS_SERVER}\n", encoding="utf-8")
        launcher.chmod(0o755)
    (other_bin / "marker").write_text("", encoding="utf-8")
    import_servers({"fx": {"command": "fx-server", "cwd": str(here)}}, here)
    path = os.environ.get("PATH", "")
    trusted_env = {**os.environ, "PATH": f"{trusted_bin}:{path}"}
    status, _ = at_terminal(
        "mcp", "trust", "fx", cwd=here, env=trusted_env, answers=[("[y/N] ", "y")]
    )
    assert status == 0

    refused = call_echo(here, {**os.environ, "PATH": f"{other_bin}:{path}"})

    assert refused.returncode == 1
    expected = f"program: {trusted_bin / 'fx-server'} -> {other_bin / 'fx-server'}"
    assert expected in refused.stderr


@pytest.mark.parametrize("variable", ["${workspaceFolder}", "${env:FX_DIR}"])
def test_an_argument_that_expands_differently_asks_again(
    variable: str, tmp_path: Path, agent_home: Path
) -> None:
    first = project(tmp_path, "first", BENIGN_MODULE)
    second = project(tmp_path, "second", BENIGN_MODULE)
    definition = {
        "command": sys.executable,
        "args": [TOOLS_SERVER, "--name", variable],
        "cwd": str(tmp_path),
    }
    import_servers({"fx": definition}, first)
    env_first = {**os.environ, "FX_DIR": str(first)}
    answers = [("[y/N] ", "y")]
    assert at_terminal("mcp", "trust", "fx", cwd=first, env=env_first, answers=answers)[0] == 0

    refused = call_echo(second, {**os.environ, "FX_DIR": str(second)})

    assert refused.returncode == 1
    if variable == "${workspaceFolder}":
        assert f"argument 3: {first} -> {second}" in refused.stderr
    else:  # a value from the environment may be a secret: never shown
        assert "argument 3 changed (set from an environment variable)" in refused.stderr
        assert str(second) not in refused.stderr


def test_a_chat_in_another_project_says_why_the_server_is_off_and_offers_none_of_its_tools(
    tmp_path: Path, agent_home: Path
) -> None:
    first = project(tmp_path, "first", BENIGN_MODULE)
    second = project(tmp_path, "second", HOSTILE_MODULE)
    import_servers({"fx": {"command": sys.executable, "args": ["-m", "fx_server"]}}, first)
    assert at_terminal("mcp", "trust", "fx", cwd=first, answers=[("[y/N] ", "y")])[0] == 0
    assert agent("mcp", "enable", "fx", cwd=first).returncode == 0
    done, requests = say_hi(second)

    assert done.returncode == 0, done.stderr
    assert not (second / "PWNED").exists()
    assert (
        f"MCP server fx is not trusted here: it runs in this project's folder, and you trusted "
        f"it in {first} (its working directory is this project's folder); /mcp trust fx "
        "reviews it"
    ) in done.stderr
    offered = [tool["function"]["name"] for tool in requests[0]["body"].get("tools", [])]
    assert not [name for name in offered if name.startswith("mcp__fx__")]


def test_a_relative_path_entry_is_resolved_as_the_child_will_and_the_question_names_it(
    tmp_path: Path, agent_home: Path
) -> None:
    here = project(tmp_path, "here", BENIGN_MODULE)
    (here / "bin").mkdir()
    launcher = here / "bin" / "fx-server"
    launcher.write_text(f"#!/bin/sh\nexec {sys.executable} {TOOLS_SERVER}\n", encoding="utf-8")
    launcher.chmod(0o755)
    elsewhere = tmp_path / "elsewhere"
    elsewhere.mkdir()
    import_servers({"fx": {"command": "fx-server", "cwd": str(here)}}, elsewhere)
    # "bin" is relative: the system resolves it in the child's working directory, not ours.
    env = {**os.environ, "PATH": f"bin:{os.environ.get('PATH', '')}"}

    status, shown = at_terminal(
        "mcp", "trust", "fx", cwd=elsewhere, env=env, answers=[("[y/N] ", "n")]
    )

    assert status == 1
    assert f"  executable:  fx-server  ({launcher})\n" in shown


def test_a_command_found_nowhere_is_never_spawned_nor_offered_for_trust(
    tmp_path: Path, agent_home: Path
) -> None:
    here = project(tmp_path, "here", BENIGN_MODULE)
    import_servers({"fx": {"command": "no-such-fx-server", "cwd": str(here)}}, here)

    status, shown = at_terminal("mcp", "trust", "fx", cwd=here, answers=[])

    assert status == 1
    assert "[y/N]" not in shown
    assert shown.endswith(
        "agent: MCP server 'fx' could not start: command 'no-such-fx-server' not found\n"
    )


def test_the_trust_question_shows_an_argument_from_the_environment_as_written(
    tmp_path: Path, agent_home: Path
) -> None:
    here = project(tmp_path, "here", BENIGN_MODULE)
    password = "pw-3c81f0-never-shown"
    definition = {
        "command": sys.executable,
        "args": [TOOLS_SERVER, "--name", "postgres://u:${DB_PASS}@db/x"],
        "cwd": "${env:FX_CWD}",
    }
    import_servers({"fx": definition}, here)
    env = {**os.environ, "DB_PASS": password, "FX_CWD": str(here)}

    status, shown = at_terminal("mcp", "trust", "fx", cwd=here, env=env, answers=[("[y/N] ", "n")])

    assert status == 1
    assert password not in shown and str(here) not in shown.split("[y/N]")[0].split("command:")[1]
    assert "postgres://u:${DB_PASS}@db/x" in shown
    assert "  working dir: ${env:FX_CWD}\n" in shown


def test_a_project_path_with_a_line_break_cannot_forge_a_line_in_the_refusal(
    tmp_path: Path, agent_home: Path
) -> None:
    # The refusal names the project the server was trusted in.
    first = project(tmp_path, "p\nagent: MCP server fx trusted", BENIGN_MODULE)
    second = project(tmp_path, "second", BENIGN_MODULE)
    import_servers({"fx": {"command": sys.executable, "args": ["-m", "fx_server"]}}, first)
    assert at_terminal("mcp", "trust", "fx", cwd=first, answers=[("[y/N] ", "y")])[0] == 0

    refused = call_echo(second)

    assert refused.returncode == 1
    assert refused.stderr.count("\n") == 1, refused.stderr
    assert "p\\nagent: MCP server fx trusted" in refused.stderr


def test_a_damaged_trust_key_is_one_clear_line_and_the_answer_still_comes(
    tmp_path: Path, agent_home: Path
) -> None:
    here = project(tmp_path, "here", BENIGN_MODULE)
    import_servers({"fx": {"command": sys.executable, "args": ["-m", "fx_server"]}}, here)
    assert at_terminal("mcp", "trust", "fx", cwd=here, answers=[("[y/N] ", "y")])[0] == 0
    assert agent("mcp", "enable", "fx", cwd=here).returncode == 0
    key = agent_home / "trust.key"
    key.write_bytes(b"short")
    done, _ = say_hi(here)

    assert (done.returncode, done.stdout) == (0, "ok\n"), done.stderr
    assert "Traceback" not in done.stderr
    assert f"MCP server fx cannot start: {key}: not a trust key (5 bytes, expected 32)" in (
        done.stderr
    )
    assert key.read_bytes() == b"short"  # never replaced behind the person's back
