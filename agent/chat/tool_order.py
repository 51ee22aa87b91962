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

    def arrange(self, tools: dict[str, Tool]) -> dict[str, Tool]:
        """The same tools, known ones in their first places, new ones after them in the
        order given."""
        for name in tools:
            if name not in self._places:
                self._places[name] = len(self._places)
        return {name: tools[name] for name in sorted(tools, key=self._places.__getitem__)}
