"""Deferred MCP tools: when their definitions would fill too much of the model's context
window, the request carries `search_tools` in their place.

Each server's tools are deferred by its mode (agent/mcp/store.py, `/mcp defer NAME MODE`):
"on" always, "off" never, "auto" when the MCP tools a request would carry (those of "auto"
and "off" servers) take more than `share` of the window, estimated at four characters a
token. Below that the request is exactly as it would be without deferral.

A tool the search returned is found: it is offered in every later request of the
conversation, after the tools already offered (so the prompt prefix a provider caches stays
byte for byte), and the session keeps the names (`on_found`), so a resumed chat offers the
same tools. A deferred tool that was never found cannot be called: the model is told to
search first. Approval and validation do not change: a found tool is the same Tool object.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass, field

from agent.messages import CHARS_PER_TOKEN
from agent.tools.base import Tool
from agent.tools.combined import ToolConflictError
from agent.tools.search_index import IndexKeeper
from agent.tools.search_tool import SEARCH_TOOL, SearchTools, entry_chars

MODES = ("auto", "on", "off")
DEFAULT_SHARE = 0.10
# The window assumed when the model's is unknown (a local model litellm's table lacks): small
# local models are where tools crowd out the conversation, so deferral errs on their side.
UNKNOWN_WINDOW_TOKENS = 32_000


@dataclass(frozen=True)
class Plan:
    """One request's tools: those it carries and those it defers."""

    offered: dict[str, Tool]  # in order: kept, search_tools, found ones in the order found
    deferred: dict[str, Tool] = field(default_factory=dict)  # held back (found ones too)
    found: tuple[str, ...] = ()  # the deferred tools offered because a search returned them
    servers: tuple[str, ...] = ()  # the servers with deferred tools, in order

    def hidden(self) -> dict[str, Tool]:
        """The deferred tools not offered (never found)."""
        found = set(self.found)
        return {name: tool for name, tool in self.deferred.items() if name not in found}


class ToolDeferral:
    """One conversation's deferral: the policy, the tools found so far, the search."""

    def __init__(
        self,
        window: Callable[[], int | None],
        modes: Callable[[], Mapping[str, str]],
        share: float = DEFAULT_SHARE,
    ) -> None:
        self.share = share
        self._window = window  # the model's known window, None when unknown
        self._modes = modes  # each server's mode; a server not named is "auto"
        self.found: list[str] = []
        self.on_found: Callable[[tuple[str, ...]], None] | None = None
        self.plan_now = Plan({})  # the last plan: the system prompt's line and the hint
        self.search_tool = SearchTools(self.find, lambda: self.plan_now.servers)
        self._sizes: dict[int, tuple[Tool, int]] = {}
        self._index = IndexKeeper()

    def window(self) -> int:
        """The context window the threshold is a share of."""
        return self._window() or UNKNOWN_WINDOW_TOKENS

    def plan(self, tools: dict[str, Tool]) -> Plan:
        """The request's tools given all of them in order; remembered as `plan_now`."""
        if SEARCH_TOOL in tools:
            raise ToolConflictError(
                f"tool name {SEARCH_TOOL!r} is offered by {tools[SEARCH_TOOL].spec.source} and "
                "by the tool search; disable or rename that tool"
            )
        modes = self._modes()
        always: list[str] = []
        auto: list[str] = []
        sent = 0
        for name, tool in tools.items():
            server = tool.spec.server
            mode = modes.get(server, "auto") if server is not None else "off"
            if mode == "on":
                always.append(name)
            elif server is not None:
                sent += self._tokens(tool)
                if mode == "auto":
                    auto.append(name)
        over = sent > self.share * self.window()
        deferred_names = [*always, *auto] if over else always
        self.plan_now = self._compose(tools, set(deferred_names))
        self._prune(len(tools))
        if self.plan_now.deferred:  # indexed while the model answers, for its first search
            self._index.prepare([tool.spec for tool in self.plan_now.deferred.values()])
        return self.plan_now

    def _compose(self, tools: dict[str, Tool], names: set[str]) -> Plan:
        if not names:
            return Plan(tools)
        deferred = {name: tool for name, tool in tools.items() if name in names}
        found = tuple(name for name in self.found if name in deferred)
        offered = {name: tool for name, tool in tools.items() if name not in names}
        offered[SEARCH_TOOL] = self.search_tool
        offered.update((name, deferred[name]) for name in found)
        servers = dict.fromkeys(str(tool.spec.server) for tool in deferred.values())
        return Plan(offered, deferred, found, tuple(servers))

    def _tokens(self, tool: Tool) -> int:
        """A tool definition's tokens, estimated once per tool object (a toolset keeps its
        tools while the configuration is unchanged, so a request measures few or none)."""
        known = self._sizes.get(id(tool))
        if known is not None and known[0] is tool:
            return known[1]
        size = len(json.dumps(tool.spec.to_openai(), ensure_ascii=False)) // CHARS_PER_TOKEN
        self._sizes[id(tool)] = (tool, size)
        return size

    def _prune(self, count: int) -> None:
        if len(self._sizes) > 2 * count + 256:  # tools rebuilt after a configuration change
            self._sizes.clear()

    # -- the search ---------------------------------------------------------------------------

    def find(self, query: str, limit: int, max_chars: int) -> list[Tool]:
        """The best deferred tools for `query` (at most `limit`, and no more than `max_chars`
        of answer beyond the first); those returned are found from now on."""
        deferred = self.plan_now.deferred
        index = self._index.index([tool.spec for tool in deferred.values()])
        chosen: list[Tool] = []
        used = 0
        for spec in index.search(query, limit):
            tool = deferred[spec.name]
            used += entry_chars(tool)
            if chosen and used > max_chars:
                break
            chosen.append(tool)
        self.mark_found(tool.spec.name for tool in chosen)
        return chosen

    def mark_found(self, names: Iterable[str]) -> None:
        """Offer these deferred tools from the next request on (and tell the session)."""
        new = tuple(name for name in dict.fromkeys(names) if name not in self.found)
        if not new:
            return
        self.found.extend(new)
        if self.on_found is not None:
            self.on_found(new)

    def found_tool(self, name: str) -> Tool | None:
        """A deferred tool found since the request was composed (a search in the same round)."""
        return self.plan_now.deferred.get(name) if name in self.found else None

    def hint(self, name: str) -> str | None:
        """What a call to a deferred tool that was never found is answered with."""
        if name not in self.plan_now.hidden():
            return None
        return (
            f"{name} is a deferred tool: it cannot be called before {SEARCH_TOOL} has returned "
            f"it. Call {SEARCH_TOOL} first (its exact name works as the query); it can be "
            "called from then on."
        )

    def prompt_line(self) -> str:
        """The system prompt's line saying more tools can be found (empty when none are)."""
        servers = self.plan_now.servers
        if not servers:
            return ""
        return (
            f"More tools than this request lists are available: {SEARCH_TOOL} finds the tools "
            f"of the MCP servers {', '.join(servers)} (describe what you need; a tool it "
            "returns can be called from then on)."
        )

    # -- the session --------------------------------------------------------------------------

    def restore(self, names: Sequence[str]) -> None:
        """A resumed session's found tools, in the order they were found."""
        self.found = list(dict.fromkeys(names))

    def reset(self) -> None:
        """A new conversation: nothing found yet."""
        self.found = []
