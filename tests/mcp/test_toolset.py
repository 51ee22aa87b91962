"""The model's view of MCP: selected tools of enabled, trusted servers, always needing approval."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

import pytest

from agent.mcp.config.definitions import fingerprint
from agent.mcp.store import McpStore
from agent.mcp.toolset import McpToolset
from agent.messages import ToolResult
from agent.settings import McpLimits
from tests.mcp.runtime_helpers import ScriptedTrust, runtime, save, stdio_server

pytestmark = pytest.mark.anyio


@pytest.fixture
def store(agent_home: Path) -> McpStore:
    return McpStore(agent_home / "mcp-servers.json")


def enable(store: McpStore, name: str, tools: tuple[str, ...]) -> None:
    fp = fingerprint(store.load().find(name))
    store.update_state(name, fp, lambda s: replace(s, enabled=True, enabled_tools=tools))


async def test_only_selected_tools_of_enabled_servers_are_offered_and_all_require_approval(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"Context 7": stdio_server(), "off": stdio_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("Context 7")
        await rt.start("off")
        enable(store, "Context 7", ("echo", "add"))
        specs = [tool.spec for tool in McpToolset(rt).tools()]

    assert [(s.name, s.requires_approval, s.source) for s in specs] == [
        ("mcp__context-7__echo", True, "MCP server Context 7"),
        ("mcp__context-7__add", True, "MCP server Context 7"),
    ]
    assert specs[0].parameters["properties"]["text"]["type"] == "string"


async def test_a_changed_definition_drops_out_of_the_tools_until_trusted_again(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        enable(store, "fx", ("echo",))
        assert len(McpToolset(rt).tools()) == 1
        save(store, {"fx": stdio_server("--name", "other")})
        assert McpToolset(rt).tools() == []


async def test_invalid_arguments_are_a_tool_error_and_reach_no_server(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        enable(store, "fx", ("add",))
        await rt.stop("fx")
        [add] = McpToolset(rt).tools()
        result = await add.run({"a": "one"})
        assert rt.running() == []  # nothing was started to answer an invalid call

    assert result == ToolResult(
        "Invalid arguments for mcp__fx__add: (arguments): 'b' is a required property; "
        "a: 'one' is not of type 'integer'",
        is_error=True,
    )


async def test_results_are_capped_and_failures_become_error_results(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    limits = McpLimits(startup_timeout_seconds=20, tool_timeout_seconds=20, output_limit_chars=100)
    async with runtime(store, agent_home, tmp_path, limits, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        enable(store, "fx", ("big_output", "crash", "echo"))
        tools = {tool.spec.name: tool for tool in McpToolset(rt).tools()}
        big = await tools["mcp__fx__big_output"].run({"size": 250})
        crashed = await tools["mcp__fx__crash"].run({})

    assert big.text.endswith("[output cut: 100 of 250 characters shown, 150 omitted]")
    assert big.text.startswith(big.text[:100]) and not big.is_error
    assert crashed.is_error
    assert crashed.text.startswith("MCP server 'fx' closed the connection while calling crash")
