"""Turning a server's tools/list answer into cached tools and a tool selection."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

import mcp_types as types

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


def with_discovered_tools(state: ServerState, tools: tuple[CachedTool, ...]) -> ServerState:
    """Cache `tools`. The first discovery selects every tool; later, only known selections stay.

    A tool that appears after the first discovery starts unselected: the person chose the
    set they wanted, and a server must not widen it on its own.
    """
    names = [tool.name for tool in tools]
    if state.cached_tools is None:
        selected = names
    else:
        kept = set(state.enabled_tools)
        selected = [name for name in names if name in kept]
    return replace(state, cached_tools=tools, enabled_tools=tuple(selected))
