"""Attacks of a hostile repository on a server trusted in another project (issue 26).

A launch that nothing of the project can change is trusted everywhere once (asking again in
each project would only teach the person to say yes). Everything else of a project can change
what runs: a server whose working directory is the project folder reads the project's files
(`.env`, a config file, `node_modules`, `python -m`'s modules, a relative PATH entry, a file
named like its argument), so it is asked about in each project, and the question says that the
project folder is what differs, never "what it runs changed". Each attack runs the real
`agent` in project B after the person trusted the server in project A, with no terminal: the
server must be refused, and the hostile code must never run.
"""

from __future__ import annotations

import os
import sys
from collections.abc import Sequence
from dataclasses import replace
from pathlib import Path

import anyio
import pexpect
import pytest

from agent.mcp.config.definitions import fingerprint
from agent.mcp.config.document import parse_document_data
from agent.mcp.host import McpHost
from agent.mcp.store import McpStore
from agent.mcp.trust.question import TrustRequest
from tests.fixtures.mcp_fixtures import trust_launch
from tests.mcp.runtime_helpers import runtime
from tests.pty_chat import pty_env, scripted_chat
from tests.security.test_trust_binds_launch import (
    BENIGN_MODULE,
    HOSTILE_MODULE,
    TOOLS_SERVER,
    agent,
    at_terminal,
    call_echo,
    import_servers,
    project,
)

# A launcher that runs the real fixture server (what A holds) or leaves a file behind (B's).
BENIGN_SCRIPT = f"#!/bin/sh\nexec {sys.executable} {TOOLS_SERVER}\n"
HOSTILE_SCRIPT = "#!/bin/sh\necho ran > PWNED\n"


def executable(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    path.chmod(0o755)
    return path


def trust_in(folder: Path, env: dict[str, str] | None = None) -> None:
    status, shown = at_terminal(
        "mcp", "trust", "fx", cwd=folder, env=env, answers=[("[y/N] ", "y")]
    )
    assert status == 0, shown
    assert call_echo(folder, env).returncode == 0


def assert_refused_without_running(second: Path, env: dict[str, str] | None = None) -> str:
    refused = call_echo(second, env)
    assert not (second / "PWNED").exists()
    assert refused.returncode == 1, refused.stderr
    assert refused.stderr.startswith("agent: MCP server 'fx' is not trusted here"), refused.stderr
    assert "what it runs changed" not in refused.stderr
    return refused.stderr


def test_a_launch_nothing_of_the_project_can_change_is_trusted_in_every_project(
    tmp_path: Path, agent_home: Path
) -> None:
    first = project(tmp_path, "first", BENIGN_MODULE)
    second = project(tmp_path, "second", HOSTILE_MODULE)
    home = tmp_path / "server-home"
    home.mkdir()
    # Absolute program, absolute argument, a working directory of its own: the same launch.
    import_servers(
        {"fx": {"command": sys.executable, "args": [TOOLS_SERVER], "cwd": str(home)}}, first
    )
    trust_in(first)

    assert call_echo(second).returncode == 0


@pytest.mark.parametrize(
    ("what", "hostile"),
    [
        (".env", {".env": "PYTHONSTARTUP=evil.py\n"}),
        ("a config file read from the working directory", {"fx.json": '{"plugin": "evil"}'}),
        ("a module named like the one the server imports", {"fx_server.py": HOSTILE_MODULE}),
    ],
)
def test_files_a_project_holds_make_a_server_in_its_folder_ask_again(
    tmp_path: Path, agent_home: Path, what: str, hostile: dict[str, str]
) -> None:
    first = project(tmp_path, "first", BENIGN_MODULE)
    second = project(tmp_path, "second", HOSTILE_MODULE)
    for name, text in hostile.items():
        (second / name).write_text(text, encoding="utf-8")
    # No cwd: the server starts in the project's folder, whatever that folder holds.
    import_servers({"fx": {"command": sys.executable, "args": ["-m", "fx_server"]}}, first)
    trust_in(first)

    refused = assert_refused_without_running(second)

    assert "its working directory is this project's folder" in refused, what


@pytest.mark.parametrize("program", ["./fx.sh", "./node_modules/.bin/fx"])
def test_a_relative_program_path_in_another_project_asks_again(
    tmp_path: Path, agent_home: Path, program: str
) -> None:
    first = project(tmp_path, "first", BENIGN_MODULE)
    second = project(tmp_path, "second", HOSTILE_MODULE)
    executable(first / program, BENIGN_SCRIPT)
    executable(second / program, HOSTILE_SCRIPT)
    import_servers({"fx": {"command": program}}, first)
    trust_in(first)

    refused = assert_refused_without_running(second)

    assert f"program: {first / program[2:]} -> {second / program[2:]}" in refused


def test_a_link_to_the_very_same_program_in_another_project_asks_again(
    tmp_path: Path, agent_home: Path
) -> None:
    first = project(tmp_path, "first", BENIGN_MODULE)
    second = project(tmp_path, "second", HOSTILE_MODULE)
    real = executable(tmp_path / "shared" / "fx.sh", BENIGN_SCRIPT)
    (first / "fx.sh").symlink_to(real)
    (second / "fx.sh").symlink_to(real)  # the same file: its folder is still the project's
    import_servers({"fx": {"command": "./fx.sh"}}, first)
    trust_in(first)

    refused = assert_refused_without_running(second)

    assert "its working directory is this project's folder" in refused


def test_an_argument_naming_a_file_of_the_project_asks_again_and_says_it_resolves_elsewhere(
    tmp_path: Path, agent_home: Path
) -> None:
    first = project(tmp_path, "first", BENIGN_MODULE)
    second = project(tmp_path, "second", HOSTILE_MODULE)
    import_servers({"fx": {"command": sys.executable, "args": ["./fx_server.py"]}}, first)
    trust_in(first)

    refused = assert_refused_without_running(second)

    assert "argument ./fx_server.py resolves to another file" in refused


def test_a_relative_path_entry_looked_up_in_another_project_asks_again(
    tmp_path: Path, agent_home: Path
) -> None:
    first = project(tmp_path, "first", BENIGN_MODULE)
    second = project(tmp_path, "second", HOSTILE_MODULE)
    executable(first / "bin" / "fx-server", BENIGN_SCRIPT)
    executable(second / "bin" / "fx-server", HOSTILE_SCRIPT)
    env = {**os.environ, "PATH": f"bin:{os.environ.get('PATH', '')}"}
    import_servers({"fx": {"command": "fx-server"}}, first)
    trust_in(first, env)

    assert_refused_without_running(second, env)


@pytest.mark.parametrize("cwd", [".", "${workspaceFolder}/.."])
def test_a_working_directory_written_from_the_project_is_trusted_per_project(
    tmp_path: Path, agent_home: Path, cwd: str
) -> None:
    # `${workspaceFolder}/..` is the same folder for two sibling projects: it still names the
    # project, so the yes in one is not a yes in the other.
    first = project(tmp_path, "first", BENIGN_MODULE)
    second = project(tmp_path, "second", HOSTILE_MODULE)
    import_servers({"fx": {"command": sys.executable, "args": [TOOLS_SERVER], "cwd": cwd}}, first)
    trust_in(first)

    refused = assert_refused_without_running(second)

    assert "this project's folder" in refused


def test_the_refusal_in_another_project_says_the_folder_differs_not_what_it_runs(
    tmp_path: Path, agent_home: Path
) -> None:
    first = project(tmp_path, "first", BENIGN_MODULE)
    second = project(tmp_path, "second", BENIGN_MODULE)
    import_servers({"fx": {"command": sys.executable, "args": [TOOLS_SERVER]}}, first)
    trust_in(first)

    refused = assert_refused_without_running(second)

    assert (
        f"MCP server 'fx' is not trusted here: it runs in this project's folder, and you "
        f"trusted it in {first} (its working directory is this project's folder)"
    ) in refused
    assert agent("mcp", "list", cwd=second).returncode == 0


class RewritesTheProgramWhileAsked:
    """A person who says yes to everything, while the repository rewrites a server's program
    under the open question (a `git pull` in another terminal, a hostile build step)."""

    def __init__(self, program: Path) -> None:
        self.program = program
        self.asked: list[str] = []

    async def choose(self, requests: Sequence[TrustRequest]) -> frozenset[str]:
        self.asked = [request.server for request in requests]
        executable(self.program, HOSTILE_SCRIPT)
        return frozenset(self.asked)


@pytest.mark.anyio
async def test_a_program_rewritten_while_the_question_is_open_is_not_started_by_its_yes(
    tmp_path: Path, agent_home: Path
) -> None:
    first = project(tmp_path, "first", BENIGN_MODULE)
    second = project(tmp_path, "second", BENIGN_MODULE)
    for folder in (first, second):
        executable(folder / "fx.sh", BENIGN_SCRIPT)
    store = McpStore(agent_home / "mcp-servers.json")
    document = {"mcpServers": {"fx": {"command": "./fx.sh"}}}
    store.replace_definitions(parse_document_data(document, "test").definitions)
    trust_launch(store, "fx", first)
    store.update_state(
        "fx", fingerprint(store.load().find("fx")), lambda s: replace(s, enabled=True)
    )
    reports: list[str] = []
    host = McpHost(lambda: runtime(store, agent_home, second), report=reports.append)
    person = RewritesTheProgramWhileAsked(second / "fx.sh")
    stop = anyio.Event()
    with anyio.fail_after(60):
        async with anyio.create_task_group() as group:
            group.start_soon(host.serve, stop)
            await host.started.wait()
            notes = await host.settle_trust(person)
            stop.set()

    assert person.asked == ["fx"]
    assert not (second / "PWNED").exists()
    assert notes == []
    assert any(
        line.startswith("MCP server fx was not started: MCP server 'fx' is not trusted here")
        for line in reports
    ), reports
    assert [known.project for known in store.load().state("fx").trusted_launches] == [str(first)]


def test_keys_typed_with_the_first_message_never_answer_the_servers_question(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    first, second = (
        project(tmp_path, "first", BENIGN_MODULE),
        project(tmp_path, "second", HOSTILE_MODULE),
    )
    store = McpStore(agent_home / "mcp-servers.json")
    document = {"mcpServers": {"fx": {"command": sys.executable, "args": ["-m", "fx_server"]}}}
    store.replace_definitions(parse_document_data(document, "test").definitions)
    trust_launch(store, "fx", first, env)
    store.update_state(
        "fx", fingerprint(store.load().find("fx")), lambda s: replace(s, enabled=True)
    )
    with scripted_chat(tmp_path, [{"text": "ok"}], env, second) as (chat, _):
        chat.expect_exact("you are asked before your next message")
        chat.send("hi\ry")  # the y is typed before the question exists
        chat.expect_exact("[y] yes  [n] no")
        chat.send("n")
        chat.expect_exact("Left off: server fx")
        chat.expect_exact("ok")
        chat.send("\x15/exit\r")  # the y, set aside during the question, is back in the prompt
        chat.expect(pexpect.EOF)
    assert not (second / "PWNED").exists()
