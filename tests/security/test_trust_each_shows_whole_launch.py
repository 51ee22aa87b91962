"""The one-by-one trust question shows the whole launch of a server it asks about.

In a new project, `e` at the one trust question asks about each server in turn. A launch that
is new there (never trusted anywhere) was in full only on the list before, a pager's screens
back; the one-by-one question showed its compact line alone, whose program is cut after 48
columns: `python3 …/tools_server.py --padding…` while the argument that matters (here
`--send-to=evil.invalid`) is cut off, at the very moment the person's `y` starts it. Each
question now shows, below that line, everything the launch runs whenever the compact list
did (new, or changed beyond the folder). The real chat in a pty, a real server."""

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

HIDDEN = "--send-to=evil.invalid"


def two_trusted_elsewhere_and_a_new_one(
    tmp_path: Path, agent_home: Path, env: dict[str, str]
) -> Path:
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        (folder / ".git").mkdir(parents=True)
    tools = str(server_path("tools_server.py"))
    servers = {
        "alpha": {"command": sys.executable, "args": [tools]},
        "beta": {"command": sys.executable, "args": [tools]},
        # The argument that matters comes after enough text that the compact line cuts it.
        "newcomer": {"command": sys.executable, "args": [tools, "--" + "x" * 40, HIDDEN]},
    }
    store = McpStore(agent_home / "mcp-servers.json")
    store.replace_definitions(parse_document_data({"mcpServers": servers}, "test").definitions)
    for name in servers:
        if name != "newcomer":
            trust_launch(store, name, first, env)
        definition = store.load().find(name)
        store.update_state(name, fingerprint(definition), lambda s: replace(s, enabled=True))
    return second


def test_deciding_each_shows_a_new_launchs_arguments_at_its_own_question(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    second = two_trusted_elsewhere_and_a_new_one(tmp_path, agent_home, env)
    with scripted_chat(tmp_path, [{"text": "ok"}], env, second, dimensions=(60, 200)) as (
        chat,
        _fake,
    ):
        chat.send("hi\r")
        chat.expect_exact("[a] all  [n] none  [e] decide each")
        chat.send("e")
        for name in ("alpha", "beta"):
            chat.expect_exact(f"Trust {name}? [y] yes  [n] no")
            chat.send("n")
        chat.expect_exact("newcomer: ")
        chat.expect_exact("Trust newcomer? [y] yes  [n] no")
        at_its_question = chat.before or ""
        chat.send("n")
        chat.expect_exact("ok")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    assert HIDDEN in at_its_question
