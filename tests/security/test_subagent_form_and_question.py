"""Subagents run at once (issue 41): one's approved MCP call may bring a form from its server
while another subagent asks about a call. Two questions on screen at once are drawn over each
other, and a key meant for one lands on the other: the chat's questions (approvals, forms,
web pages) come one at a time, whoever asks."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pexpect

from tests.pty_chat import finish, scripted_chat
from tests.security.test_subagent_lines_at_a_question import release
from tests.ui.test_subagents_pty import delegate, wait_until

B_ASKS = "Allow this tool call of subagent general #2"


def select_ask_name(agent_home: Path) -> None:
    """fx's ask_name (it asks the client for a form) selected beside echo, listed at start."""
    from agent.mcp.config.definitions import fingerprint
    from agent.mcp.store import McpStore

    store = McpStore(agent_home / "mcp-servers.json")
    fp = fingerprint(store.load().find("fx"))
    store.update_state(
        "fx", fp, lambda s: replace(s, enabled_tools=("echo", "ask_name"), cached_tools=None)
    )


def asked_by(agent_home: Path, agent: int) -> bool:
    """Whether the session file holds subagent `agent`'s answer calling a tool."""
    for path in (agent_home / "sessions").rglob("*.jsonl"):
        for line in path.read_text().splitlines():
            event = json.loads(line)
            inner = event.get("event") or {}
            if event.get("agent") == agent and inner.get("tool_calls"):
                return True
    return False


def test_a_subagents_question_waits_while_a_form_of_anothers_call_is_open(
    tmp_path: Path, agent_home: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    select_ask_name(agent_home)
    write = {"id": "w1", "name": "write_file", "arguments": {"path": "b.txt", "content": "b\n"}}
    turns = [
        {"when": "PARENT", "tool_calls": [
            delegate("d1", "general", "SUB-A: ask who"),
            delegate("d2", "general", "SUB-B: write b.txt"),
        ]},
        {"when": "SUB-A", "tool_calls": [{"id": "a1", "name": "mcp__fx__ask_name",
                                          "arguments": {}}]},
        # B asks only once A's form is on screen.
        {"when": "SUB-B", "wait_for": "RELEASE-B", "tool_calls": [write]},
        {"when": "RELEASE-B", "text": "released"},
        {"when": "SUB-A", "text": "A: the form was declined."},
        {"when": "SUB-B", "text": "B: the write was declined."},
        {"when": "PARENT", "text": "Both ended."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("PARENT: go\r")
        chat.expect("Allow this tool call of subagent general #1\\?")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Answer MCP server fx\\?")
        release(fake.base_url, "RELEASE-B")
        wait_until(lambda: asked_by(agent_home, 2))
        chat.expect(pexpect.TIMEOUT, timeout=3)  # what reaches the screen while the form is open
        assert B_ASKS not in chat.before
        chat.send("n")  # declines the form
        chat.expect(B_ASKS)
        chat.expect("Approve\\?")
        chat.send("n")
        chat.expect("Both ended.")
        chat.expect("›")
        finish(chat)
    assert not (tmp_path / "b.txt").exists()
