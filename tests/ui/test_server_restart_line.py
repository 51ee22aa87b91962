"""A server that crashes mid-chat and is started again says so in one line (issue 26): the
call's error is its first line on screen (the model still gets the server's last stderr lines),
and the restart is one line of its own."""

from __future__ import annotations

import io
import re
from dataclasses import replace
from pathlib import Path

import pexpect

from agent.mcp.config.definitions import fingerprint
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import save_trusted_echo_server
from tests.pty_chat import pty_env, scripted_chat


def test_a_crashed_server_is_one_error_line_and_one_restart_line(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    save_trusted_echo_server(agent_home, env)
    store = McpStore(agent_home / "mcp-servers.json")
    store.update_state(
        "fx",
        fingerprint(store.load().find("fx")),
        lambda s: replace(s, enabled_tools=("echo", "crash")),
    )
    crash = {"id": "c1", "name": "mcp__fx__crash", "arguments": {}}
    echo = {"id": "e1", "name": "mcp__fx__echo", "arguments": {"text": "again"}}
    turns = [{"tool_calls": [crash]}, {"tool_calls": [echo]}, {"text": "done"}]
    with scripted_chat(tmp_path, turns, env, tmp_path, dimensions=(60, 160)) as (chat, fake):
        shown = io.StringIO()
        chat.logfile_read = shown
        chat.expect_exact("MCP server fx ready")
        chat.send("go\r")
        chat.expect_exact("Approve?")
        chat.send("y")
        chat.expect_exact('"again"')
        chat.expect_exact("Approve?")
        chat.send("y")
        chat.expect_exact("done")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    screen = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "\n", shown.getvalue())
    assert "error: MCP server 'fx' closed the connection while calling crash" in screen
    assert "Last lines of its stderr" not in screen
    assert "crashing on purpose" not in screen
    assert screen.count("MCP server fx stopped unexpectedly; restarted it") == 1
    to_model = fake.requests()[1]["body"]["messages"][-1]["content"]
    assert "tools_server crashing on purpose" in to_model  # why it stopped, for the model
