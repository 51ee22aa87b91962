"""Turning a server's tools/list answer into cached tools and a tool selection.

Every start lists the tools again (a server upgraded between two chats offers what it offers
now), unless the server's cache hint of its last listing (`ttlMs`, 2026-07-28) still holds.
A listing replaces the cached tools whole: a changed schema or description is the new one, a
removed tool is gone, a new tool starts unselected and is remembered as new until the person
is told (`told_new_tools`). The selection of the others stays.
"""

from __future__ import annotations

import time
from collections.abc import Sequence
from dataclasses import replace

import mcp_types as types

from agent.mcp.client.cache_hints import hint_seconds, within_bound
from agent.mcp.config.names import model_tool_names
from agent.mcp.store import CachedTool, ServerState


def cached_tools(server: str, tools: Sequence[types.Tool]) -> tuple[CachedTool, ...]:
    """What we keep of each tool; raises ToolNameCollisionError when two names collide."""
    model_tool_names(server, [tool.name for tool in tools])
    return tuple(
        CachedTool(
            name=tool.name,
            description=tool.description,
            input_schema=dict(tool.input_schema),
            annotations=(
                tool.annotations.model_dump(mode="json", by_alias=True, exclude_none=True)
                if tool.annotations is not None
                else None
            ),
        )
        for tool in tools
    )


def fresh_until(ttl_ms: int, now: float | None = None) -> float | None:
    """Until when a listing with cache hint `ttl_ms` may be used without listing again
    (None when it may not: no hint, or 0)."""
    if ttl_ms <= 0:
        return None
    return (time.time() if now is None else now) + hint_seconds(ttl_ms)


def is_fresh(state: ServerState, now: float | None = None) -> bool:
    """Whether the cached tools may be offered without listing them again."""
    until = state.tools_fresh_until
    if state.cached_tools is None or until is None:
        return False
    return within_bound(until, time.time() if now is None else now)


def with_discovered_tools(
    state: ServerState, tools: tuple[CachedTool, ...], until: float | None = None
) -> ServerState:
    """Cache `tools`. The first discovery selects every tool; later, only known selections stay.

    A tool that appears after the first discovery starts unselected, and is new until the
    person is told: the person chose the set they wanted, and a server must not widen it on
    its own. A tool that is gone leaves the selection and the new ones.
    """
    names = [tool.name for tool in tools]
    if state.cached_tools is None:
        selected, new = names, []
    else:
        kept = set(state.enabled_tools)
        seen = {tool.name for tool in state.cached_tools} - set(state.new_tools)
        selected = [name for name in names if name in kept]
        new = [name for name in names if name not in kept and name not in seen]
    return replace(
        state,
        cached_tools=tools,
        enabled_tools=tuple(selected),
        tools_fresh_until=until,
        new_tools=tuple(new),
    )
