"""A chat in a new project asks once about every server that needs trust there (issue 26).

Three servers trusted in project A start in their project's folder, so in project B each needs
a yes: the chat says so in one line, and before the first message one dialog lists them, each
with what differs from where it was trusted; the person trusts all, none, or each in turn.
"""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pexpect

from agent.mcp.config.definitions import fingerprint
from agent.mcp.config.document import parse_document_data
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import server_path, trust_launch
from tests.pty_chat import pty_env, scripted_chat

NAMES = ("alpha", "beta", "gamma")


def projects_with_servers_trusted_in_the_first(
    tmp_path: Path, agent_home: Path, env: dict[str, str]
) -> tuple[Path, Path]:
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        (folder / ".git").mkdir(parents=True)
    store = McpStore(agent_home / "mcp-servers.json")
    # No cwd: each starts in the project's folder, so each is trusted per project.
    servers = {
        name: {"command": sys.executable, "args": [str(server_path("tools_server.py"))]}
        for name in NAMES
    }
    store.replace_definitions(parse_document_data({"mcpServers": servers}, "test").definitions)
    for name in NAMES:
        trust_launch(store, name, first, env)
        definition = store.load().find(name)
        store.update_state(name, fingerprint(definition), lambda s: replace(s, enabled=True))
    return first, second


def test_a_new_project_asks_once_for_all_its_servers_and_trust_all_starts_them(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    first, second = projects_with_servers_trusted_in_the_first(tmp_path, agent_home, env)
    with scripted_chat(tmp_path, [{"text": "ok"}], env, second, dimensions=(60, 200)) as (
        chat,
        fake,
    ):
        chat.expect_exact(
            "MCP servers alpha, beta, gamma need your trust in this project; you are asked "
            "before your next message"
        )
        chat.send("hi\r")
        chat.expect_exact("MCP 3 servers need your trust in this project.")
        chat.expect_exact(f"You trusted them in {first}.")
        for number, name in enumerate(NAMES, 1):
            # One line each: what runs, and why it asks here; the same launch but the folder.
            chat.expect_exact(
                f"[{number}] {name}: {Path(sys.executable).name} …/tools_server.py  · it starts "
                "in this project's folder and may read what is there"
            )
        chat.expect_exact("[a] all  [n] none  [e] decide each")
        chat.send("a")
        for _ in NAMES:
            chat.expect(r"MCP server (alpha|beta|gamma) trusted and ready")
        chat.expect_exact("ok")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        shown = chat.before or ""
    assert "what it runs changed" not in shown
    offered = {tool["function"]["name"] for tool in fake.requests()[0]["body"].get("tools", [])}
    assert {f"mcp__{name}__echo" for name in NAMES} <= offered


def test_each_server_can_be_answered_on_its_own_and_the_ones_left_off_are_named_once(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    _, second = projects_with_servers_trusted_in_the_first(tmp_path, agent_home, env)
    with scripted_chat(tmp_path, [{"text": "ok"}], env, second, dimensions=(60, 200)) as (
        chat,
        fake,
    ):
        chat.send("hi\r")
        chat.expect_exact("[a] all  [n] none  [e] decide each")
        chat.send("e")
        for name, answer in zip(NAMES, "ynn", strict=True):
            chat.expect_exact(f"Trust {name}? [y] yes  [n] no")
            chat.send(answer)
        chat.expect_exact("MCP server alpha trusted and ready")
        chat.expect_exact(
            "Left off: servers beta, gamma, also in later chats here; /mcp trust NAME asks again"
        )
        chat.expect_exact("ok")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    offered = {tool["function"]["name"] for tool in fake.requests()[0]["body"].get("tools", [])}
    assert "mcp__alpha__echo" in offered
    assert not [name for name in offered if name.startswith(("mcp__beta__", "mcp__gamma__"))]


def test_none_starts_nothing_and_the_next_message_asks_no_more(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    _, second = projects_with_servers_trusted_in_the_first(tmp_path, agent_home, env)
    turns = [{"text": "ok"}, {"text": "fine"}]
    with scripted_chat(tmp_path, turns, env, second, dimensions=(60, 200)) as (chat, fake):
        chat.send("hi\r")
        chat.expect_exact("[a] all  [n] none  [e] decide each")
        chat.send("n")
        chat.expect_exact("Left off: servers alpha, beta, gamma")
        chat.expect_exact("ok")
        chat.send("again\r")
        chat.expect_exact("fine")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        shown = chat.before or ""
    assert "decide each" not in shown  # after the first answer: asked once
    assert len(fake.requests()) == 2
    for request in fake.requests():
        offered = [tool["function"]["name"] for tool in request["body"].get("tools", [])]
        assert not [name for name in offered if name.startswith("mcp__")]


def test_a_no_is_remembered_in_that_project_until_trust_asks_again_or_the_launch_changes(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    first, second = projects_with_servers_trusted_in_the_first(tmp_path, agent_home, env)
    with scripted_chat(tmp_path, [{"text": "ok"}], env, second, dimensions=(60, 200)) as (
        chat,
        _fake,
    ):
        chat.send("hi\r")
        chat.expect_exact("[a] all  [n] none  [e] decide each")
        chat.send("n")
        chat.expect_exact("Left off: servers alpha, beta, gamma, also in later chats here")
        chat.expect_exact("ok")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)

    # The next chat in that project asks nothing and says why each is off, once.
    turns = [{"text": "ok"}, {"text": "fine"}]
    with scripted_chat(tmp_path, turns, env, second, dimensions=(60, 200)) as (chat, fake):
        for name in NAMES:
            chat.expect_exact(
                f"MCP server {name} is off here: you said no to what it runs in this project; "
                f"/mcp trust {name} asks again"
            )
        chat.send("hi\r")
        chat.expect_exact("ok")
        chat.send("/mcp trust beta\r")  # asks again, and a yes starts it
        chat.expect_exact("[y] yes  [n] no")
        chat.send("y")
        chat.expect_exact("Trusted beta")
        chat.send("again\r")
        chat.expect_exact("fine")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        shown = chat.before or ""
    assert "need your trust" not in shown and "decide each" not in shown
    offered = {tool["function"]["name"] for tool in fake.requests()[-1]["body"].get("tools", [])}
    assert "mcp__beta__echo" in offered
    assert not [name for name in offered if name.startswith(("mcp__alpha__", "mcp__gamma__"))]

    # The first project never heard that no: its servers start there without a question.
    with scripted_chat(tmp_path, [{"text": "ok"}], env, first, dimensions=(60, 200)) as (
        chat,
        _fake,
    ):
        for _ in NAMES:
            chat.expect(r"MCP server (alpha|beta|gamma) ready")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)

    # A launch that differs in anything (here its environment) asks again in the second.
    store = McpStore(agent_home / "mcp-servers.json")
    changed = {"command": sys.executable, "args": [str(server_path("tools_server.py"))]}
    changed["env"] = {"MODE": "other"}
    servers = {name: changed if name == "gamma" else _server() for name in NAMES}
    store.replace_definitions(parse_document_data({"mcpServers": servers}, "test").definitions)
    definition = store.load().find("gamma")
    store.update_state("gamma", fingerprint(definition), lambda s: replace(s, enabled=True))
    with scripted_chat(tmp_path, [{"text": "ok"}], env, second, dimensions=(60, 200)) as (
        chat,
        _fake,
    ):
        chat.expect_exact("MCP server alpha is off here: you said no")
        chat.expect_exact("MCP server gamma needs your trust in this project")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)


def _server() -> dict[str, object]:
    return {"command": sys.executable, "args": [str(server_path("tools_server.py"))]}
