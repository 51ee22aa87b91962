"""How a tool call and its result are shown, in the chat and in one-shot mode alike.

Plain text only: the chat adds its colors around these pieces, one-shot mode prints them as
they are. Nothing here imports prompt_toolkit or rich (one-shot mode must load neither).
Every piece is sanitized: names, arguments and results come from the model or a server.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

from agent.errors import STDERR_TAIL_HEADING
from agent.text import plural, sanitize, sanitize_line

if TYPE_CHECKING:
    from agent.chat.approval import Decision
    from agent.messages import ToolCall
    from agent.tools.base import ToolSpec

ARGUMENTS_CHARS = 120  # the arguments on the title line
NAME_CHARS = 120  # a called tool's name as the model wrote it (a real one is at most 64)
RESULT_LINE_CHARS = 200  # each line of the result preview
RESULT_LEAD = "  ⎿ "
ERROR_LEAD = "  ⎿ error: "
INDENT = "    "


def cut(text: str, limit: int) -> str:
    """`text`, or its start and `...` when it is longer than `limit` characters."""
    return text if len(text) <= limit else text[: limit - 3] + "..."


def short_name(name: str) -> str:
    """The name the model called, on one line and cut: a name made up to flood the screen
    is no tool, and its title must not print it whole."""
    return cut(sanitize_line(name), NAME_CHARS)


def short_arguments(arguments: str) -> str:
    """The call's arguments on one line, cut to fit the title line."""
    return cut(sanitize_line(arguments.replace("\n", " ")), ARGUMENTS_CHARS)


@dataclass(frozen=True)
class CallTitle:
    """A call's title line in two parts: the tool, and the details the chat shows dimmed."""

    tool: str  # `name`, `server › tool`, or `name (no such tool)`
    details: str | None  # the arguments, or for an MCP tool its model-facing name

    def plain(self) -> str:
        """The whole title as one line of plain text."""
        return self.tool if self.details is None else f"{self.tool} {self.details}"


def call_title(call: ToolCall, spec: ToolSpec | None, *, server_arguments: bool) -> CallTitle:
    """The title of `call`; an MCP tool's arguments only with `server_arguments` (the chat's
    approval dialog shows them in full, one-shot mode may have no dialog)."""
    name = short_name(call.name)
    if spec is None:
        return CallTitle(f"{name} (no such tool)", None)
    if spec.server is None:
        return CallTitle(name, short_arguments(call.arguments))
    tool = f"{sanitize_line(spec.server)} › {sanitize_line(spec.original_name or '')}"
    details = f"({name})"
    if server_arguments:
        details += f" {short_arguments(call.arguments)}"
    return CallTitle(tool, details)


def decision_line(decision: Decision) -> str:
    """`  ✓ approved`, or `  ✗ declined: why` (the chat colors it, green or red)."""
    if decision.approved:
        return "  ✓ approved" + (" without the network" if decision.without_network else "")
    return "  ✗ declined" + (f": {sanitize(decision.reason)}" if decision.reason else "")


@dataclass(frozen=True)
class ResultPreview:
    """The first lines of a tool result, led and cut, and what was left out."""

    lines: list[str]
    hidden: int  # lines not shown
    cut: bool  # a shown line was cut short


def result_preview(text: str, is_error: bool, limit: int) -> ResultPreview:
    """At most `limit` lines of `text`: the first led by ⎿ (⎿ error:), the others indented."""
    if is_error:  # a server that stopped: its stderr lines are for the model (and its log)
        text = text.split("\n" + STDERR_TAIL_HEADING, 1)[0]
    lines = sanitize(text).splitlines() or ["(empty)"]
    shown = lines[:limit]
    lead = ERROR_LEAD if is_error else RESULT_LEAD
    preview = [
        (lead if index == 0 else INDENT) + cut(line, RESULT_LINE_CHARS)
        for index, line in enumerate(shown)
    ]
    was_cut = any(len(line) > RESULT_LINE_CHARS for line in shown)
    return ResultPreview(preview, len(lines) - len(shown), was_cut)


def more_lines(hidden: int) -> str:
    """The line saying how many lines of a result were left out."""
    return f"{INDENT}… {plural(hidden, 'more line')}"
