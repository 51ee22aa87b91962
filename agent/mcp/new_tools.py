"""Telling the person of a server's new tools: they start unselected, and are said once; and
of a selected tool whose description or inputs the server changed mid-chat (a "rug pull": the
person chose the tool as it read then), said once a run for each tool.

No SDK import: the chat's host and `agent mcp tools` say it without loading mcp.
"""

from __future__ import annotations

import shlex
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

from agent.text import plural, sanitize_line

if TYPE_CHECKING:
    from agent.mcp.store import ServerState

# How many new tool names one notice names; the rest are counted. A server that invents new
# names at every start gets one short line per start, never a flood.
NOTICE_NAMES = 5
_NAME_CHARS = 64


def _named(names: Sequence[str]) -> str:
    """At most NOTICE_NAMES of `names`, each cut and made one line, and a count of the rest."""
    shown = ", ".join(sanitize_line(name)[:_NAME_CHARS] for name in names[:NOTICE_NAMES])
    more = len(names) - NOTICE_NAMES
    return f"{shown} and {more} more" if more > 0 else shown


def new_tools_notice(server: str, names: Sequence[str]) -> str:
    """One line naming a server's new (unselected) tools, at most NOTICE_NAMES of them."""
    return (
        f"{plural(len(names), 'new tool')}, not selected: {_named(names)} "
        f"(select with: agent mcp tools {shlex.quote(server)} --enable TOOL)"
    )


def changed_tools(before: ServerState, after: ServerState) -> tuple[str, ...]:
    """The selected tools of `after` that `before` listed with another description or input
    schema: what the model is now offered differs from what the person chose."""
    earlier = {tool.name: tool for tool in before.cached_tools or ()}
    chosen = set(after.enabled_tools)
    return tuple(
        tool.name
        for tool in after.cached_tools or ()
        if tool.name in chosen
        and (old := earlier.get(tool.name)) is not None
        and (old.description, old.input_schema) != (tool.description, tool.input_schema)
    )


def changed_tools_notice(server: str, names: Sequence[str]) -> str:
    """One line naming a server's selected tools whose description or inputs changed."""
    return (
        f"{plural(len(names), 'selected tool')} with a changed description or inputs: "
        f"{_named(names)}; "
        f"the model sees the new ones, every call still asks you "
        f"(unselect with: agent mcp tools {shlex.quote(server)} --disable TOOL)"
    )


def told_new_tools(state: ServerState) -> ServerState:
    """`state` once the person has been told of its new tools."""
    return replace(state, new_tools=())
