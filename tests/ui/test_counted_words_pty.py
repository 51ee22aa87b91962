"""Counts said in the number they need, as a person meets them: "(1 tool)", never "(1 tools)".

The real chat in a pseudo-terminal: a server trusted in another project, with the one tool the
person chose, is trusted here and said ready with its count."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pexpect

from agent.mcp.config.definitions import fingerprint
from agent.mcp.config.document import parse_document_data
from agent.mcp.store import CachedTool, McpStore
from tests.fixtures.mcp_fixtures import server_path, trust_launch
from tests.pty_chat import pty_env, scripted_chat


def test_a_server_trusted_with_one_tool_is_ready_with_1_tool(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    first, second = tmp_path / "first", tmp_path / "second"
    for folder in (first, second):
        (folder / ".git").mkdir(parents=True)
    store = McpStore(agent_home / "mcp-servers.json")
    server = {"command": sys.executable, "args": [str(server_path("tools_server.py"))]}
    store.replace_definitions(
        parse_document_data({"mcpServers": {"alpha": server}}, "test").definitions
    )
    trust_launch(store, "alpha", first, env)
    schema = {"type": "object", "properties": {"text": {"type": "string"}}, "required": ["text"]}
    echo = CachedTool("echo", "Echo the text.", schema)  # listed before: the one tool chosen
    store.update_state(
        "alpha",
        fingerprint(store.load().find("alpha")),
        lambda s: replace(s, enabled=True, enabled_tools=("echo",), cached_tools=(echo,)),
    )
    with scripted_chat(tmp_path, [{"text": "ok"}], env, second, dimensions=(60, 200)) as (
        chat,
        _fake,
    ):
        chat.send("hi\r")
        chat.expect_exact("[y] yes")
        chat.send("y")
        chat.expect(r"MCP server alpha trusted and ready \((\d+ tools?)\)")
        said = chat.match.group(1)
        chat.expect_exact("ok")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    assert said == "1 tool"
