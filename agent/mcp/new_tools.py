"""Telling the person of a server's new tools: they start unselected, and are said once.

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


def new_tools_notice(server: str, names: Sequence[str]) -> str:
    """One line naming a server's new (unselected) tools, at most NOTICE_NAMES of them."""
    shown = ", ".join(sanitize_line(name)[:_NAME_CHARS] for name in names[:NOTICE_NAMES])
    more = len(names) - NOTICE_NAMES
    if more > 0:
        shown += f" and {more} more"
    return (
        f"{plural(len(names), 'new tool')}, not selected: {shown} "
        f"(select with: agent mcp tools {shlex.quote(server)} --enable TOOL)"
    )


def told_new_tools(state: ServerState) -> ServerState:
    """`state` once the person has been told of its new tools."""
    return replace(state, new_tools=())
