"""A hostile server's lists, notifications and completions against the real McpRuntime.

resources_server.py runs as a real child: pages that never end or come back, a flood of
list_changed notifications, completion values that would break the person's input line, a
resource echoing a secret of its definition. Every wait is bounded.
"""

from __future__ import annotations

from pathlib import Path

import anyio
import pytest

from agent.errors import ToolCallError
from agent.mcp.catalog.contents import ResourceText
from agent.mcp.catalog.entries import CompletionRef, Listing, ResourceInfo
from agent.mcp.client.catalog_requests import MAX_PAGES
from agent.mcp.store import McpStore
from agent.settings import McpLimits
from tests import deadlines
from tests.fixtures.mcp_fixtures import trust_launch
from tests.mcp.runtime_helpers import enable, resources_server, runtime, save

pytestmark = pytest.mark.anyio

SECRET = "canary-91c3-resource-secret"


def saved(
    agent_home: Path, project: Path, *args: str, env: dict[str, str] | None = None
) -> McpStore:
    """resources_server.py with `args` saved as `rs`, trusted and enabled."""
    store = McpStore(agent_home / "mcp-servers.json")
    definition = resources_server(*args)
    if env:
        definition["env"] = env
    save(store, {"rs": definition})
    trust_launch(store, "rs", project)
    enable(store, "rs")
    return store


async def test_pages_that_never_end_stop_at_the_cap_and_say_so(
    agent_home: Path, tmp_path: Path
) -> None:
    store = saved(agent_home, tmp_path, "--hostile", "endless-pages")
    async with runtime(store, agent_home, tmp_path) as rt:
        with anyio.fail_after(60):
            listing = await rt.resources("rs")
        cached = rt.cached_catalog("rs").resources
    assert len(listing.items) == MAX_PAGES
    assert (
        listing.note
        == f"listing resources stopped after {MAX_PAGES} pages (the server kept paging)"
    )
    assert cached == listing


async def test_a_cursor_that_comes_back_ends_the_listing(agent_home: Path, tmp_path: Path) -> None:
    store = saved(agent_home, tmp_path, "--hostile", "repeat-cursor")
    async with runtime(store, agent_home, tmp_path) as rt:
        with anyio.fail_after(deadlines.PROCESS):
            listing = await rt.resources("rs")
    assert listing == Listing(
        (
            ResourceInfo("fixture://again/0", "again", None, None, None, None),
            ResourceInfo("fixture://again/0", "again", None, None, None, None),
        ),
        "listing resources stopped after 2 pages (the server repeated a cursor)",
    )


async def test_a_flood_of_list_changed_costs_a_bounded_number_of_listings(
    agent_home: Path, tmp_path: Path
) -> None:
    store = saved(agent_home, tmp_path, "--notes", "3")  # 5 resources: one page per listing
    listings: list[str] = []
    refreshed: list[str] = []
    added = anyio.Event()

    def observe(server: str, direction: str, text: str) -> None:
        if direction == "send" and '"resources/list"' in text:
            listings.append(text)

    async with runtime(store, agent_home, tmp_path, observe=observe) as rt:

        def listener(server: str, kind: str) -> None:
            refreshed.append(kind)
            listing = rt.cached_catalog(server).resources
            if listing is not None and listing.items[-1].uri == "fixture://added/late":
                added.set()

        rt.add_catalog_listener(listener)
        await rt.resources("rs")
        await rt.call_tool("rs", "flood", {"count": 500})
        await rt.call_tool("rs", "add_resource", {"name": "late"})
        with anyio.fail_after(deadlines.PROCESS):
            await added.wait()  # the change after the flood is still picked up
    # The first listing, then one refresh for the flood's start and one a second after it
    # (the add_resource notice may need one more): a handful, not 500.
    assert 2 <= len(listings) <= 4
    assert refreshed.count("resources") <= 3


async def test_completion_values_that_would_break_the_input_line_are_dropped(
    agent_home: Path, tmp_path: Path
) -> None:
    store = saved(agent_home, tmp_path, "--hostile", "content")
    ref = CompletionRef("template", "fixture://greeting/{name}")
    async with runtime(store, agent_home, tmp_path) as rt:
        values = await rt.complete("rs", ref, "name", "al")
    assert values[:2] == ("alice", "albert")
    assert len(values) <= 100
    assert all(value.isprintable() and len(value) <= 1000 for value in values)
    assert not [value for value in values if "\x1b" in value or "\n" in value or "\u202e" in value]


async def test_a_resource_echoing_a_secret_of_its_definition_is_masked(
    agent_home: Path, tmp_path: Path
) -> None:
    store = saved(agent_home, tmp_path, env={"API_TOKEN": SECRET})
    async with runtime(store, agent_home, tmp_path) as rt:
        parts = await rt.read_resource("rs", "fixture://env/API_TOKEN")
    assert parts == (ResourceText("fixture://env/API_TOKEN", None, "value: ***"),)


async def test_overlong_entries_are_clipped_or_left_out_and_the_listing_says_so(
    agent_home: Path, tmp_path: Path
) -> None:
    store = saved(agent_home, tmp_path, "--hostile", "content")
    async with runtime(store, agent_home, tmp_path) as rt:
        resources = await rt.resources("rs")
        prompts = await rt.prompts("rs")
    uris = [item.uri for item in resources.items]
    assert not [uri for uri in uris if uri.startswith("fixture://long/")]
    [wordy] = [item for item in resources.items if item.uri == "fixture://wordy"]
    assert wordy.name == "w" * 199 + "\u2026"
    assert wordy.description == "d" * 1999 + "\u2026"
    assert resources.note == "1 entry left out (a URI or name over 2048 characters)"
    assert [prompt.name for prompt in prompts.items if len(prompt.name) > 100] == []
    assert prompts.note == "1 entry left out (a URI or name over 2048 characters)"


async def test_a_read_that_never_answers_ends_at_the_tool_timeout(
    agent_home: Path, tmp_path: Path
) -> None:
    store = saved(agent_home, tmp_path, "--hostile", "content")
    limits = McpLimits(startup_timeout_seconds=20, tool_timeout_seconds=1, output_limit_chars=1000)
    async with runtime(store, agent_home, tmp_path, limits) as rt:
        with anyio.fail_after(15), pytest.raises(ToolCallError) as raised:
            await rt.read_resource("rs", "fixture://hang")
        after = await rt.read_resource("rs", "fixture://notes/1")  # the server is still usable
    assert str(raised.value) == (
        "MCP server 'rs' did not answer within 1 s while reading a resource"
    )
    assert after == (ResourceText("fixture://notes/1", "text/plain", "Note 1."),)
