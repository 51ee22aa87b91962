"""Combining toolsets into one request's tool list; a name used twice is an error, never
an overwrite."""

from __future__ import annotations

from collections.abc import Sequence

from agent.errors import AgentError
from agent.tools.base import Tool, Toolset


class ToolConflictError(AgentError):
    """Two sources offer a tool with the same model-facing name."""


def combine(toolsets: Sequence[Toolset]) -> dict[str, Tool]:
    """Every tool of every toolset by name, in order; a duplicate name names both sources."""
    tools: dict[str, Tool] = {}
    for toolset in toolsets:
        for tool in toolset.tools():
            name = tool.spec.name
            if name in tools:
                raise ToolConflictError(
                    f"tool name {name!r} is offered by both {tools[name].spec.source} and "
                    f"{tool.spec.source}; disable or rename one of them"
                )
            tools[name] = tool
    return tools
