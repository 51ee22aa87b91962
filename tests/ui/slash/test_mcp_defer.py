"""`/mcp defer NAME on|off|auto` and `/tools` as a person meets them: the real chat in a
pseudo-terminal, a catalog server with the 165 tools of five real servers, the scripted model."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from tests.chat.tool_search_chat import WORK_SERVERS, tool_names
from tests.fixtures.tool_catalog import merged, save_catalog_server
from tests.pty_chat import scripted_chat


def test_tools_says_what_is_deferred_and_mcp_defer_off_sends_the_server_tools_whole(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    tools = merged(WORK_SERVERS)
    save_catalog_server(agent_home, "work", tools, tmp_path / "servers", environ=chat_env)
    turns = [{"text": "First answer."}, {"text": "Second answer."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("MCP server work ready")
        chat.expect("›")
        chat.send("/tools\r")
        chat.expect("search_tools \\(no approval\\)")
        chat.expect(f"Deferred: {len(tools)} MCP tools of work \\({len(tools)}\\)")
        chat.expect("›")
        chat.send("hello\r")
        chat.expect("First answer.")
        chat.expect("›")
        chat.send("/mcp defer work off\r")
        chat.expect("work: its tools are always sent whole, never deferred")
        chat.expect("›")
        chat.send("again\r")
        chat.expect("Second answer.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()

    first, second = (tool_names(request["body"]) for request in requests)
    assert "search_tools" in first
    assert not [name for name in first if name.startswith("mcp__work__")]
    assert "search_tools" not in second
    assert len([name for name in second if name.startswith("mcp__work__")]) == len(tools)
    saved = json.loads((agent_home / "mcp-servers.json").read_text(encoding="utf-8"))
    assert saved["runtime"]["work"]["defer"] == "off"


def test_mcp_defer_with_a_mode_it_does_not_know_says_the_modes_and_changes_nothing(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    save_catalog_server(
        agent_home, "work", merged(["time"]), tmp_path / "servers", environ=chat_env
    )
    with scripted_chat(tmp_path, [], chat_env) as (chat, _fake):
        chat.expect("MCP server work ready")
        chat.expect("›")
        chat.send("/mcp defer work sometimes\r")
        chat.expect("/mcp defer work sometimes: the mode is on, off or auto")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)

    saved = json.loads((agent_home / "mcp-servers.json").read_text(encoding="utf-8"))
    assert saved["runtime"]["work"]["defer"] == "auto"


def test_context_shows_the_deferred_tools_and_the_tokens_they_would_take(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    tools = merged(WORK_SERVERS)
    save_catalog_server(agent_home, "work", tools, tmp_path / "servers", environ=chat_env)
    with scripted_chat(tmp_path, [], chat_env) as (chat, _fake):
        chat.expect("MCP server work ready")
        chat.expect("›")
        chat.send("/context\r")
        chat.expect("tool search")
        chat.expect(
            f"deferred \\(not sent\\) +[0-9,]+ tokens  {len(tools)} tools of work; "
            "search_tools finds them"
        )
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)


def test_tools_and_context_give_the_same_count_for_the_deferred_tools(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    """One count: `/tools` and `/context` measure the tools held back by the same function
    (the request counted with them less the request without), so they say the same number."""
    tools = merged(WORK_SERVERS)
    save_catalog_server(agent_home, "work", tools, tmp_path / "servers", environ=chat_env)
    with scripted_chat(tmp_path, [], chat_env) as (chat, _fake):
        chat.expect("MCP server work ready")
        chat.expect("›")
        chat.send("/tools\r")
        chat.expect(
            f"Deferred: {len(tools)} MCP tools of work \\({len(tools)}\\), ([0-9,]+) tokens"
        )
        said_by_tools = int(chat.match.group(1).replace(",", ""))
        chat.expect("›")
        chat.send("/context\r")
        chat.expect("deferred \\(not sent\\) +([0-9,]+) tokens")
        said_by_context = int(chat.match.group(1).replace(",", ""))
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)

    assert said_by_tools == said_by_context > 0
