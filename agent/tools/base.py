"""Tool and Toolset: what every source of tools (built-in, MCP, skills) provides."""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from agent.messages import ToolResult


@dataclass(frozen=True)
class ToolSpec:
    """How a tool is offered to the model and shown to the person."""

    name: str  # model-facing, ^[a-zA-Z0-9_-]{1,64}$
    description: str
    parameters: dict[str, Any]  # JSON Schema of the arguments
    requires_approval: bool
    source: str  # e.g. "built-in", "MCP server github": shown in conflicts and /tools
    server: str | None = None  # MCP tools: the server's name as configured
    original_name: str | None = None  # MCP tools: the tool's name on its server
    annotations: dict[str, Any] | None = None  # MCP tools: hints the server declared
    # The tool itself vouches that a call changes nothing outside agent's memory (it reads
    # the project, searches, loads a skill's text): plan mode and read-only subagents offer
    # only such tools and refuse any other. False unless a built-in tool says so, so a tool
    # added later is left out until someone decides; MCP tools never are (a server's
    # read-only hint is its claim, not ours).
    changes_nothing: bool = False

    def to_openai(self) -> dict[str, Any]:
        """The tool in OpenAI function format, which litellm translates for every provider."""
        return {
            "type": "function",
            "function": {
                "name": self.name,
                "description": self.description,
                "parameters": self.parameters,
            },
        }


class Tool(Protocol):
    """A tool the model can call."""

    @property
    def spec(self) -> ToolSpec: ...

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        """Run with already-validated arguments; failures are results, not exceptions."""
        ...


class CallRefusedError(Exception):
    """A previewed tool finds the call cannot run as asked (a path outside the project, an
    edit whose text is not there): the model is told why, and nobody is asked about a call
    that could only fail."""


@runtime_checkable
class PreviewedTool(Tool, Protocol):
    """A tool whose approval shows what it will do, not only its arguments: the diff an edit
    makes, the exact command line a command runs. The lines are shown as they are given (after
    sanitising), so they must say everything the person needs to decide."""

    def preview(self, arguments: dict[str, Any]) -> list[str]:
        """The lines that replace the raw arguments in the approval (validated arguments);
        CallRefusedError when the call cannot run as asked."""
        ...


@runtime_checkable
class NetworkChoiceTool(PreviewedTool, Protocol):
    """A previewed tool whose call may ask for the network and that can run the very same call
    without it (run_command, fenced): the approval then offers "yes, without network" too."""

    def asks_for_network(self, arguments: dict[str, Any]) -> bool:
        """Whether the previewed call would run with the network, and could run without it."""
        ...

    async def run_without_network(self, arguments: dict[str, Any]) -> ToolResult:
        """Run the previewed call with the network off; the result says so to the model."""
        ...


@runtime_checkable
class ConcurrentTool(Tool, Protocol):
    """A tool that needs no approval and whose calls may run alongside each other (`delegate`:
    each call is a subagent whose own calls ask): the consecutive calls of one answer to such
    tools run at once, and their results are kept in the model's order."""

    @property
    def runs_alongside(self) -> bool: ...


@runtime_checkable
class PlanModeTool(Tool, Protocol):
    """A tool that plan mode offers in a restricted form (the subagents' `delegate`, limited
    to its read-only kind) instead of leaving it out. The form returned must itself vouch
    that it changes nothing (`changes_nothing` on its spec): plan mode admits a call by that
    spec alone, at the offer and again at the call (agent/chat/plan_mode.py)."""

    def in_plan_mode(self) -> Tool | None:
        """The tool as plan mode offers it, under the same name; None: not offered."""
        ...


class Toolset(Protocol):
    """A source of tools, asked afresh for each model request."""

    def tools(self) -> Sequence[Tool]: ...
