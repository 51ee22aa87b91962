"""The order tools are offered in, kept stable for a whole chat.

Providers cache a request's prefix, and the tool list comes first in it: a tool list that
changes order from one request to the next makes every request pay for the whole prompt
again. So a tool keeps the place it had when it was first offered; a tool that joins later
(a server that finished starting, a tool the person selected) is appended, and one that
leaves simply drops out. A server that lists its tools in a new order each time, or any
toolset composed in a different order, cannot reorder what the model saw.
"""

from __future__ import annotations

from agent.tools.base import Tool


class ToolOrder:
    """Remembers where each tool name was first offered."""

    def __init__(self) -> None:
        self._places: dict[str, int] = {}
        self._in_order: tuple[str, ...] = ()  # names last given already in their places

    def arrange(self, tools: dict[str, Tool]) -> dict[str, Tool]:
        """The same tools, known ones in their first places, new ones after them in the
        order given."""
        names = tuple(tools)
        if names == self._in_order:  # the usual case, compared in C: as last time, in order
            return tools
        places = self._places
        last, in_order = -1, True
        for name in tools:
            place = places.setdefault(name, len(places))
            in_order = in_order and place > last
            last = place
        if in_order:  # nothing moved, nothing to rebuild
            self._in_order = names
            return tools
        return {name: tools[name] for name in sorted(tools, key=places.__getitem__)}

    def peek(self, tools: dict[str, Tool]) -> dict[str, Tool]:
        """The order `arrange` would give `tools` now, remembering nothing (for `/context` and
        the toolbar, which measure the next request without shaping it)."""
        places = self._places
        unknown = {name: len(places) + index for index, name in enumerate(tools)}
        return {
            name: tools[name]
            for name in sorted(tools, key=lambda name: places.get(name, unknown[name]))
        }
