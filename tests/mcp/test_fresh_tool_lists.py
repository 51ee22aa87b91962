"""Every start of a trusted server lists its tools again: an upgraded server (same command
line) is offered as it is now; a new tool starts unselected and is said once, as is a selected
tool whose description or inputs changed since it was chosen; a removed one is gone; the
selection of the others stays; a cache hint (ttlMs) that still holds spares the listing."""

from __future__ import annotations

import os
import time
from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from agent.mcp.config.definitions import fingerprint
from agent.mcp.store import McpStore
from agent.mcp.toolset import McpToolset
from tests.mcp.runtime_helpers import runtime
from tests.mcp.upgrading import release, save_upgrading, start_chat

pytestmark = pytest.mark.anyio


@pytest.fixture
def store(agent_home: Path, tmp_path: Path) -> McpStore:
    return McpStore(agent_home / "mcp-servers.json")


async def test_a_server_upgraded_between_two_chats_is_offered_as_it_is_now(
    store: McpStore, tmp_path: Path
) -> None:
    release_file = tmp_path / "release.json"
    release(release_file, 1)
    save_upgrading(store, "up", release_file, os.environ)
    _reports, first = await start_chat(store, tmp_path, tmp_path)
    assert first["mcp__up__lookup"].parameters["required"] == ["city"]
    release(release_file, 2)

    reports, second = await start_chat(store, tmp_path, tmp_path)

    assert sorted(second) == ["mcp__up__echo", "mcp__up__lookup"]  # old_tool gone, new one off
    lookup = second["mcp__up__lookup"]
    assert lookup.parameters["required"] == ["city", "country"]
    assert lookup.description == "Look up a city in a country (release 2: the country is required)."
    # lookup, selected, has a new description and a new required argument: said once too.
    assert reports == [
        "MCP server up ready (2 tools); 1 new tool, not selected: fresh_tool "
        "(select with: agent mcp tools up --enable TOOL)",
        "MCP server up: 1 selected tool with a changed description or inputs: lookup; the "
        "model sees the new ones, every call still asks you "
        "(unselect with: agent mcp tools up --disable TOOL)",
    ]
    state = store.load().state("up")
    assert [tool.name for tool in state.cached_tools or ()] == ["echo", "lookup", "fresh_tool"]
    assert state.enabled_tools == ("echo", "lookup")
    assert state.new_tools == ()  # said: the next start does not say it again
    again, _ = await start_chat(store, tmp_path, tmp_path)
    assert again == ["MCP server up ready (2 tools)"]


async def test_a_tool_the_person_deselected_stays_deselected_and_is_not_new(
    store: McpStore, tmp_path: Path
) -> None:
    release_file = tmp_path / "release.json"
    release(release_file, 2)
    save_upgrading(store, "up", release_file, os.environ)
    await start_chat(store, tmp_path, tmp_path)
    fp = fingerprint(store.load().find("up"))
    store.update_state("up", fp, lambda s: replace(s, enabled_tools=("lookup",)))

    reports, offered = await start_chat(store, tmp_path, tmp_path)

    assert sorted(offered) == ["mcp__up__lookup"]
    assert reports == ["MCP server up ready (1 tool)"]


async def test_a_cache_hint_that_still_holds_spares_the_listing_and_one_that_ran_out_does_not(
    store: McpStore, tmp_path: Path
) -> None:
    release_file = tmp_path / "release.json"
    release(release_file, 1)
    save_upgrading(store, "up", release_file, os.environ)
    await start_chat(store, tmp_path, tmp_path)
    release(release_file, 2)
    fp = fingerprint(store.load().find("up"))
    # As a 2026-07-28 server's listing with ttlMs of an hour leaves it (the legacy session
    # this fixture speaks drops the hint: see the next test).
    store.update_state("up", fp, lambda s: replace(s, tools_fresh_until=time.time() + 3600))

    _reports, within = await start_chat(store, tmp_path, tmp_path)
    store.update_state("up", fp, lambda s: replace(s, tools_fresh_until=time.time() - 1))
    _reports, after = await start_chat(store, tmp_path, tmp_path)

    assert within["mcp__up__lookup"].parameters["required"] == ["city"]  # the hint holds
    assert after["mcp__up__lookup"].parameters["required"] == ["city", "country"]


async def test_a_hint_on_a_legacy_session_is_not_one_and_the_tools_are_listed_at_every_start(
    store: McpStore, tmp_path: Path
) -> None:
    release_file = tmp_path / "release.json"
    release(release_file, 1, ttl_ms=3_600_000)  # ttlMs on a 2025-11-25 answer: not its field
    save_upgrading(store, "up", release_file, os.environ)

    await start_chat(store, tmp_path, tmp_path)

    assert store.load().state("up").tools_fresh_until is None


async def test_a_modern_servers_hint_keeps_its_listing_fresh_for_that_long(
    store: McpStore, tmp_path: Path
) -> None:
    release_file = tmp_path / "release.json"
    release(release_file, 1, ttl_ms=3_600_000, modern=True)
    save_upgrading(store, "up", release_file, os.environ)

    before = time.time()
    await start_chat(store, tmp_path, tmp_path)

    fresh_until = store.load().state("up").tools_fresh_until
    assert fresh_until is not None and before + 3000 < fresh_until < time.time() + 3601


async def test_the_toolset_says_new_tools_found_after_the_start_once(
    store: McpStore, tmp_path: Path
) -> None:
    release_file = tmp_path / "release.json"
    release(release_file, 1)
    save_upgrading(store, "up", release_file, os.environ)
    await start_chat(store, tmp_path, tmp_path)
    release(release_file, 2)
    reports: list[str] = []
    with anyio.fail_after(60):
        async with runtime(store, tmp_path, tmp_path) as mcp:
            toolset = McpToolset(mcp, report=reports.append)
            await mcp.discover("up")  # as a list_changed notice lists them again mid-chat
            first = sorted(tool.spec.name for tool in toolset.tools())
            second = sorted(tool.spec.name for tool in toolset.tools())

    assert first == second == ["mcp__up__echo", "mcp__up__lookup"]
    assert reports == [
        "MCP server up: 1 new tool, not selected: fresh_tool "
        "(select with: agent mcp tools up --enable TOOL)",
        "MCP server up: 1 selected tool with a changed description or inputs: lookup; the "
        "model sees the new ones, every call still asks you "
        "(unselect with: agent mcp tools up --disable TOOL)",
    ]
