"""The cache hint of a listing, and what a listing does to the cached tools and selection."""

from __future__ import annotations

from agent.mcp.client.cache_hints import MAX_FRESH_SECONDS
from agent.mcp.discovery import fresh_until, is_fresh, with_discovered_tools
from agent.mcp.store import CachedTool, ServerState

NOW = 1_800_000_000.0


def tool(name: str, description: str = "") -> CachedTool:
    return CachedTool(name, description or f"{name}.", {"type": "object"})


def test_no_hint_or_a_zero_hint_is_never_fresh() -> None:
    assert fresh_until(0, NOW) is None
    state = ServerState(cached_tools=(tool("a"),), tools_fresh_until=None)
    assert not is_fresh(state, NOW)


def test_a_hint_holds_for_its_time_and_at_most_a_day() -> None:
    assert fresh_until(90_000, NOW) == NOW + 90
    assert fresh_until(10**15, NOW) == NOW + MAX_FRESH_SECONDS
    cached = (tool("a"),)
    assert is_fresh(ServerState(cached_tools=cached, tools_fresh_until=NOW + 90), NOW)
    assert not is_fresh(ServerState(cached_tools=cached, tools_fresh_until=NOW - 1), NOW)


def test_a_moment_beyond_a_day_from_now_is_not_believed() -> None:
    # A clock set back, or a hand-edited file (even Infinity): the list is listed again.
    far = ServerState(cached_tools=(tool("a"),), tools_fresh_until=float("inf"))
    assert not is_fresh(far, NOW)


def test_a_listing_replaces_changed_tools_drops_removed_ones_and_keeps_new_ones_off() -> None:
    before = ServerState(enabled_tools=("a", "b"), cached_tools=(tool("a"), tool("b"), tool("c")))

    after = with_discovered_tools(before, (tool("a", "A, changed."), tool("c"), tool("d")))

    assert after.cached_tools == (tool("a", "A, changed."), tool("c"), tool("d"))
    assert after.enabled_tools == ("a",)  # b is gone; c stays off as the person left it
    assert after.new_tools == ("d",)


def test_a_tool_stays_new_until_told_and_a_new_tool_that_left_is_forgotten() -> None:
    state = ServerState(enabled_tools=("a",), cached_tools=(tool("a"),))
    state = with_discovered_tools(state, (tool("a"), tool("x"), tool("y")))
    state = with_discovered_tools(state, (tool("a"), tool("x")))

    assert state.new_tools == ("x",)


def test_the_first_listing_selects_everything_and_nothing_is_new() -> None:
    state = with_discovered_tools(ServerState(), (tool("a"), tool("b")), NOW + 5)

    assert state.enabled_tools == ("a", "b")
    assert state.new_tools == ()
    assert state.tools_fresh_until == NOW + 5
