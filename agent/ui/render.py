"""Rendering the loop's events as they happen: streamed text, tool calls, results, usage."""

from __future__ import annotations

import json
import sys
from typing import TextIO

from agent.loop import (
    ApprovalAnswered,
    Event,
    Notice,
    TextDelta,
    ToolCallStarted,
    ToolFinished,
    TurnEnded,
    TurnFailed,
    UsageReported,
)
from agent.messages import Usage
from agent.text import sanitize
from agent.ui.style import styled

RESULT_PREVIEW_LINES = 4


def describe_usage(request: Usage, session: Usage) -> str:
    """`tokens 1,234 in · 56 out · $0.0012 (session $0.0100)`."""
    text = f"tokens {request.prompt_tokens:,} in · {request.completion_tokens:,} out"
    if request.cost_usd is not None:
        text += f" · ${request.cost_usd:.4f}"
    if session.cost_usd is not None:
        text += f" (session ${session.cost_usd:.4f})"
    else:
        text += f" (session {session.prompt_tokens + session.completion_tokens:,} tokens)"
    return text


class EventRenderer:
    """Writes events to a stream; streamed text goes out as it arrives."""

    def __init__(self, out: TextIO | None = None) -> None:
        self.out = out or sys.stdout
        self._mid_line = False
        self._last_usage: tuple[Usage, Usage] | None = None

    def render(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            text = sanitize(event.text)
            self.out.write(text)
            self.out.flush()
            self._mid_line = not text.endswith("\n")
            return
        if isinstance(event, ToolCallStarted):
            self._line(styled("⏺ ", "cyan") + self._call_title(event))
        elif isinstance(event, ApprovalAnswered):
            if event.decision.approved:
                self._line(styled("  ✓ approved", "green"))
            else:
                reason = f": {sanitize(event.decision.reason)}" if event.decision.reason else ""
                self._line(styled(f"  ✗ declined{reason}", "red"))
        elif isinstance(event, ToolFinished):
            self._result(event)
        elif isinstance(event, UsageReported):
            self._last_usage = (event.request, event.session)
        elif isinstance(event, Notice):
            self._line(styled(sanitize(event.text), "yellow"))
        elif isinstance(event, TurnFailed):
            self._line(styled(f"error: {sanitize(event.message)}", "red"))
        elif isinstance(event, TurnEnded) and self._last_usage is not None:
            self._line(styled(describe_usage(*self._last_usage), "dim"))
            self._last_usage = None
        self.out.flush()

    def finish(self) -> None:
        """End the last line of streamed text."""
        if self._mid_line:
            self.out.write("\n")
            self._mid_line = False
        self.out.flush()

    def interrupted(self) -> None:
        self._line(styled("(interrupted)", "yellow"))

    def _line(self, text: str) -> None:
        if self._mid_line:
            self.out.write("\n")
            self._mid_line = False
        self.out.write(text + "\n")

    def _call_title(self, event: ToolCallStarted) -> str:
        spec = event.spec
        name = sanitize(event.call.name)
        if spec is None:
            return f"{name} (no such tool)"
        if spec.server is not None:
            title = f"{sanitize(spec.server)} › {sanitize(spec.original_name or '')}"
            return f"{title} " + styled(f"({name})", "dim")
        arguments = sanitize(event.call.arguments.replace("\n", " "))
        if len(arguments) > 120:
            arguments = arguments[:117] + "..."
        return f"{name} {styled(arguments, 'dim')}"

    def _result(self, event: ToolFinished) -> None:
        lines = sanitize(event.result.text).splitlines() or ["(empty)"]
        shown = lines[:RESULT_PREVIEW_LINES]
        prefix = "  ⎿ " if not event.result.is_error else "  ⎿ error: "
        for index, line in enumerate(shown):
            lead = prefix if index == 0 else "    "
            text = line if len(line) <= 200 else line[:197] + "..."
            self._line(styled(lead + text, "red" if event.result.is_error else "dim"))
        if len(lines) > len(shown):
            self._line(styled(f"    … {len(lines) - len(shown)} more lines", "dim"))


def pretty_arguments(arguments: dict[str, object]) -> str:
    """Complete arguments as indented JSON (never cut)."""
    return json.dumps(arguments, indent=2, ensure_ascii=False)
