"""A modern server floods its `subscriptions/listen` stream with tool-list changes: each one
started its own tools/list and configuration write, all at once (listening_server.py, a real
SDK server)."""

from __future__ import annotations

import json
from pathlib import Path

import anyio
import pytest

from agent.mcp.store import McpStore
from tests.mcp.runtime_helpers import ScriptedTrust, runtime, save, script_server

pytestmark = pytest.mark.anyio


async def test_a_flood_of_tool_list_changes_costs_a_bounded_number_of_listings(
    agent_home: Path, tmp_path: Path
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"live": script_server("listening_server.py")})
    listings: list[str] = []

    def observe(server: str, direction: str, text: str) -> None:
        if direction == "send" and json.loads(text).get("method") == "tools/list":
            listings.append(text)

    with anyio.fail_after(120):
        async with runtime(
            store, agent_home, tmp_path, trust=ScriptedTrust(), observe=observe
        ) as rt:
            await rt.start("live")
            before = len(listings)
            began = anyio.current_time()
            await rt.call_tool("live", "flood", {"count": 300})
            await anyio.sleep(3)
            seconds = anyio.current_time() - began
            names = [tool.name for tool in await rt.list_tools("live")]
    assert "flood" in names
    # One listing a second at most (TOOLS_REFRESH_INTERVAL), not one per notification (before
    # the fix: up to two listings per notification, 600 here).
    assert len(listings) - before <= 2 + seconds
