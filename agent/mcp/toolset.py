"""The selected tools of enabled MCP servers, as model tools `mcp__<server>__<tool>`.

Every MCP tool requires approval, every time; arguments are checked against the tool's JSON
Schema before anyone is asked, and a failure of any kind is a result the model sees.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from typing import Any

from agent.errors import AgentError
from agent.mcp.client.results import tool_result_from_mcp
from agent.mcp.config.definitions import LOCAL_DEFINITIONS, ServerDefinition
from agent.mcp.config.names import model_tool_names
from agent.mcp.new_tools import changed_tools_notice, new_tools_notice
from agent.mcp.oauth.status import needs_login
from agent.mcp.progress import progress_sink
from agent.mcp.runtime import McpRuntime
from agent.mcp.store import CachedTool, McpConfig
from agent.messages import ToolResult
from agent.text import plural, sanitize_name
from agent.tools.base import Tool, ToolSpec
from agent.tools.schema_limits import schema_limit_problem, withheld_reason
from agent.tools.validation import argument_problems

# Withheld tools of one server named a line each; the rest are counted in one more line.
WITHHELD_NAMED = 5


@dataclass(frozen=True)
class McpTool:
    """One selected tool of one server."""

    runtime: McpRuntime
    server: str
    tool: CachedTool
    spec: ToolSpec

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        """Validate, call through the runtime, and turn any failure into an error result."""
        problems = argument_problems(self.tool.input_schema, arguments)
        if problems:
            return ToolResult(
                f"Invalid arguments for {self.spec.name}: " + "; ".join(problems), is_error=True
            )
        try:
            result = await self.runtime.call_tool(
                self.server,
                self.tool.name,
                arguments,
                on_progress=progress_sink.get(),
                shown=self.tool,
            )
        except AgentError as error:  # every failure is a result the model sees
            return ToolResult(str(error), is_error=True)
        return tool_result_from_mcp(
            result, self.runtime.limits.output_limit_chars, source=self.spec.name
        )


class McpToolset:
    """Composed afresh for each request from the saved configuration.

    Building 1 000 tools takes milliseconds, and every request needs them, so each server's
    tools are kept while the configuration object (re-read only when the file changes) and
    the server's availability are the same.
    """

    def __init__(
        self,
        runtime: McpRuntime,
        *,
        started_only: bool = False,
        report: Callable[[str], None] | None = None,
    ) -> None:
        self.runtime = runtime
        # A tool whose schema is over the limits of agent/tools/schema_limits.py is withheld
        # (litellm would compile its patterns on every request); said once, through `report`.
        self._report = report
        self._said: set[tuple[str, str, str]] = set()  # (server, tool, problem) said
        # In a chat, a local server's tools join once it has started: the model never sees
        # tools of a server that is still starting or failed to start.
        self.started_only = started_only
        self._built: dict[str, tuple[object, list[Tool]]] = {}

    def tools(self) -> Sequence[Tool]:
        """Selected tools of enabled servers whose current definition is trusted."""
        config = self.runtime.store.load()
        tools: list[Tool] = []
        for definition in config.definitions:
            if not self._offered(config, definition):
                continue
            cached = self._built.get(definition.name)
            if cached is None or cached[0] is not config:
                cached = (config, self._server_tools(config, definition))
                self._built[definition.name] = cached
            tools.extend(cached[1])
        return tools

    def _offered(self, config: McpConfig, definition: ServerDefinition) -> bool:
        state = config.state(definition.name)
        if not state.enabled or state.cached_tools is None:
            return False
        if not self.runtime.is_trusted(definition):
            return False
        if needs_login(definition):
            return False  # reported once at start; /mcp login brings its tools back
        return not (
            self.started_only
            and isinstance(definition, LOCAL_DEFINITIONS)
            and self.runtime.status(definition.name).state not in ("ready", "offline")
        )

    def _server_tools(self, config: McpConfig, definition: ServerDefinition) -> list[Tool]:
        # Masked again here: the cache may predate masking, and it reaches the model as is.
        masked = self.runtime.cached_state(definition, config.state(definition.name))
        state = masked.state
        chosen = set(state.enabled_tools)
        selected = [t for t in state.cached_tools or () if t.name in chosen]
        names = model_tool_names(definition.name, [t.name for t in selected])
        tools: list[Tool] = []
        live = self.runtime.live(definition.name)
        # Listed, but a secret is in its name: never cached, so it is said from the listing.
        listed = live.withheld_tools if live is not None else {}
        withheld = list({**listed, **masked.withheld}.items())
        if state.new_tools and self._report is not None:
            # Found by a listing after the start (list_changed, an HTTP server's first
            # connection): said here, once; the start's own are said by the host.
            new = self.runtime.take_new_tools(definition.name)
            if new:
                self._report(
                    f"MCP server {definition.name}: {new_tools_notice(definition.name, new)}"
                )
        if self._report is not None:
            # A selected tool swapped mid-chat (a rug pull): the person chose it as it read
            # then, so they hear, once, that the model is now offered something else.
            changed = self.runtime.take_changed_tools(definition.name)
            if changed:
                notice = changed_tools_notice(definition.name, changed)
                self._report(f"MCP server {definition.name}: {notice}")
        for cached in selected:
            too_big = schema_limit_problem(cached.input_schema)
            if too_big is not None:
                withheld.append((cached.name, too_big))
                continue
            spec = ToolSpec(
                name=names[cached.name],
                description=cached.description or f"{cached.name} (MCP server {definition.name})",
                parameters=cached.input_schema,
                requires_approval=True,
                source=f"MCP server {definition.name}",
                server=definition.name,
                original_name=cached.name,
                annotations=cached.annotations,
            )
            tools.append(McpTool(self.runtime, definition.name, cached, spec))
        self._say_withheld(definition.name, withheld)
        return tools

    def _say_withheld(self, server: str, withheld: list[tuple[str, str]]) -> None:
        """Say once which tools of `server` are withheld and why: the first few by name, the
        rest counted (a server listing thousands of such tools gets two lines, not thousands)."""
        unsaid = [(server, tool, problem) for tool, problem in withheld]
        unsaid = [key for key in unsaid if key not in self._said]
        if self._report is None or not unsaid:
            return
        self._said.update(unsaid)
        for _, tool, problem in unsaid[:WITHHELD_NAMED]:
            self._report(withheld_reason(sanitize_name(tool), server, problem))
        if len(unsaid) > WITHHELD_NAMED:
            more = plural(len(unsaid) - WITHHELD_NAMED, "more tool")
            self._report(f"and {more} of MCP server {server} cannot be offered either")
