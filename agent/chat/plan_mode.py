"""Plan mode: the model investigates and answers with a plan, and nothing changes meanwhile.

What a request offers in plan mode is decided by one rule, never by a list of names: a tool
whose spec vouches that it changes nothing (`ToolSpec.changes_nothing`), the plan's own
`present_plan`, and MCP tools only when the person asked for them (`/plan mcp`; every call
still asks). A tool that can run in a restricted form (the subagents' `delegate`, limited to
its read-only kind) implements `PlanModeTool` and is offered as that form, which must itself
vouch that it changes nothing. The rule is the engine's, checked again at every call
(`Conversation._checked`): a tool the model names anyway is refused before anyone is asked.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass

from agent.messages import ToolResult
from agent.tools.base import PlanModeTool, Tool

PRESENT_PLAN = "present_plan"

PLAN_PROMPT = """\
Plan mode is on: the person wants a plan before anything changes. Investigate with the tools \
of this request, which only read (files, searches, skills); nothing that changes a file or runs \
a program is available, and such a call is refused. When you know enough, call present_plan \
once with the plan as Markdown: what you found, the steps, the files to change and how, and \
how to check the result. The person then chooses to carry it out, to keep planning (with a \
comment you will get as its result), or to stop. Ask the person when something is unclear \
instead of guessing."""
PLAN_PROMPT_MCP = (
    "The person allowed MCP tools while planning: each call still asks them, so use them "
    "to look things up, not to change anything."
)


@dataclass(frozen=True)
class PlanState:
    """The chat's mode as the session records it: plan mode on, and MCP tools asked for."""

    on: bool = False
    mcp: bool = False


class PlanMode:
    """One chat's plan mode: whether it is on, what it offers, what it refuses.

    `on_change` hears each change (the session records the mode with the turn it applies to:
    `settle`)."""

    def __init__(self) -> None:
        self.state = PlanState()
        self._recorded = PlanState()  # what the session file says the mode is
        self.record: Callable[[PlanState], None] | None = None
        self.present_tool: Tool | None = None  # present_plan, set by the conversation

    @property
    def on(self) -> bool:
        return self.state.on

    def enter(self, mcp: bool = False) -> None:
        self.state = PlanState(True, mcp)

    def leave(self) -> None:
        self.state = PlanState()

    def restore(self, state: PlanState) -> None:
        """A resumed session's mode, as its file recorded it."""
        self.state = self._recorded = state

    def reset(self) -> None:
        """A new session file: it has recorded nothing yet, so the next turn records the
        mode if it is not the normal one."""
        self._recorded = PlanState()

    def settle(self) -> None:
        """Record the mode if it changed since the file last said it. Called as a turn starts
        and when a plan is accepted: a /plan typed and taken back with no turn between
        leaves no trace, and a chat where nothing was said gets no session file."""
        if self.state != self._recorded and self.record is not None:
            self.record(self.state)
        self._recorded = self.state

    def admits(self, tool: Tool) -> bool:
        """Whether plan mode lets `tool` be called (off: every tool)."""
        if not self.on:
            return True
        spec = tool.spec
        if tool is self.present_tool or spec.changes_nothing:
            return True
        return self.state.mcp and spec.server is not None

    def offered(self, tools: dict[str, Tool]) -> dict[str, Tool]:
        """The tools a request offers, given every tool in order (off: all of them). A
        `PlanModeTool` is offered in its plan-mode form, or left out."""
        if not self.on:
            return tools
        offered: dict[str, Tool] = {}
        for name, tool in tools.items():
            if isinstance(tool, PlanModeTool):
                restricted = tool.in_plan_mode()
                if restricted is None:
                    continue
                tool = restricted
            if self.admits(tool):
                offered[name] = tool
        if self.present_tool is not None:
            offered[PRESENT_PLAN] = self.present_tool
        return offered

    def refusal(self, name: str) -> ToolResult:
        """What the model is told of a call plan mode does not allow."""
        mcp = (
            " MCP tools are not available either unless the person allows them (/plan mcp)."
            if not self.state.mcp
            else ""
        )
        return ToolResult(
            f"not run: the chat is in plan mode, where {name!r} is not available. Nothing may "
            "change a file or run a program until the person accepts a plan: investigate with "
            f"the read-only tools of this request and present your plan with {PRESENT_PLAN}." + mcp,
            is_error=True,
        )

    def prompt_section(self) -> str:
        """The system prompt's plan-mode part (empty when plan mode is off)."""
        if not self.on:
            return ""
        return f"{PLAN_PROMPT}\n{PLAN_PROMPT_MCP}" if self.state.mcp else PLAN_PROMPT
