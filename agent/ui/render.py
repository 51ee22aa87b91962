"""Rendering the loop's events as they happen: Markdown answers, tool calls, results, usage.

On a terminal the answer is Markdown rendered block by block (agent/ui/markdown.py, which
loads rich on first use) and a spinner fills the waits; anywhere else the text is written
as it arrives, sanitized, with no escape sequence at all.
"""

from __future__ import annotations

import json
import os
import sys
import threading
from collections import deque
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, TextIO

from agent.chat.events import (
    ApprovalAnswered,
    ApprovalAsked,
    Event,
    Notice,
    TextDelta,
    ToolCallStarted,
    ToolFinished,
    TurnEnded,
    TurnFailed,
    UsageReported,
)
from agent.chat.todos import TOOL_NAME as TODOS_TOOL
from agent.chat.todos import TodoList
from agent.messages import Usage
from agent.text import StreamSanitizer, plural, progress_text, sanitize, sanitize_line
from agent.ui.fit import glimpse
from agent.ui.spinner import Spinner, dialog_on_screen
from agent.ui.style import styled
from agent.ui.todo_list import step_label, todo_lines
from agent.ui.tool_calls import (
    call_title,
    decision_line,
    more_lines,
    result_preview,
    short_arguments,
    short_name,
)

if TYPE_CHECKING:
    from agent.session.todos import TodoItem
    from agent.ui.markdown import MarkdownStream

RESULT_PREVIEW_LINES = 4
KEPT_RESULTS = 20
WAITING = "Waiting for the model"


@dataclass(frozen=True)
class KeptResult:
    """A tool result in full, for /show."""

    title: str  # sanitized
    text: str  # as the tool returned it
    is_error: bool


class RecentResults:
    """The full text of the last few tool results; 1 is the most recent."""

    def __init__(self, limit: int = KEPT_RESULTS) -> None:
        self._results: deque[KeptResult] = deque(maxlen=limit)

    def add(self, result: KeptResult) -> None:
        self._results.appendleft(result)

    def get(self, number: int) -> KeptResult | None:
        if 1 <= number <= len(self._results):
            return self._results[number - 1]
        return None

    def __len__(self) -> int:
        return len(self._results)


RECENT_RESULTS = RecentResults()  # the chat's; /show reads it


def describe_usage(request: Usage, session: Usage, requests: int = 1) -> str:
    """`tokens 1,234 in · 56 out · $0.0012 (session $0.0100)`; a turn of several model
    requests (a tool round makes one more) sums them: `tokens 3,000 in · 30 out over 2
    requests`."""
    text = f"tokens {request.prompt_tokens:,} in · {request.completion_tokens:,} out"
    if requests > 1:
        text += f" over {plural(requests, 'request')}"
    if request.cost_usd is not None:
        text += f" · ${request.cost_usd:.4f}"
    if session.cost_usd is not None:
        text += f" (session ${session.cost_usd:.4f})"
    else:
        text += f" (session {plural(session.prompt_tokens + session.completion_tokens, 'token')})"
    return text


@dataclass
class TurnUsage:
    """Every model request of one turn, summed (a tool round is a request of its own)."""

    usage: Usage = field(default_factory=Usage)
    session: Usage = field(default_factory=Usage)
    requests: int = 0

    def add(self, request: Usage, session: Usage) -> None:
        self.usage, self.session, self.requests = self.usage + request, session, self.requests + 1

    def add_subagent(self, usage: Usage, requests: int) -> None:
        """A subagent's requests, counted into the turn that started it."""
        self.usage, self.requests = self.usage + usage, self.requests + requests


def preload_markdown() -> None:
    """Import rich in the background, once the prompt is on screen (it takes ~80 ms)."""

    def load() -> None:
        import agent.ui.markdown  # noqa: F401

    threading.Thread(target=load, name="load-rich", daemon=True).start()


class EventRenderer:
    """Writes events to a stream as they happen.

    `markdown` and `spinner` default to on exactly when `out` is a terminal.
    """

    def __init__(
        self,
        out: TextIO | None = None,
        *,
        markdown: bool | None = None,
        spinner: bool | None = None,
        results: RecentResults | None = None,
    ) -> None:
        self.out = out or sys.stdout
        terminal = self.out.isatty()
        self._markdown_on = terminal if markdown is None else markdown
        self._markdown: MarkdownStream | None = None
        self.spinner = Spinner(self.out) if (terminal if spinner is None else spinner) else None
        self.results = RECENT_RESULTS if results is None else results
        self._mid_line = False
        self._plain = StreamSanitizer()  # the answer, written as it arrives without Markdown
        self._turn_usage = TurnUsage()
        self._todos: TodoList | None = None

    def follow(self, todos: TodoList) -> None:
        """Draw the chat's task list when the model updates it, and name its current step
        while the turn waits for the model."""
        self._todos = todos
        todos.watch(self.todos_updated)

    def todos_updated(self, items: tuple[TodoItem, ...]) -> None:
        """The model's new list, a line per step, in the transcript."""
        lines = todo_lines(items) or [styled("  (task list cleared)", "dim")]
        for line in lines:
            self._line(line)
        self.out.flush()

    def begin(self) -> None:
        """A turn starts: wait for the model's first words."""
        self._turn_usage = TurnUsage()
        self._status(self._waiting())

    def _waiting(self) -> str:
        """The spinner's label while the model is asked: the step the model works on, if
        its list has one."""
        current = self._todos.current() if self._todos is not None else None
        return step_label(current) if current is not None else WAITING

    def end(self) -> None:
        """A turn is over (or was stopped): print what is pending, stop the spinner."""
        self._status(None)
        self._flush_text()

    def waiting(self, label: str | None) -> None:
        """Show what the turn waits for before its request (None: stop showing it)."""
        self._status(label)

    def typed_ahead(self, draft: str) -> None:
        """The next message as it is typed during the turn (in the spinner's line)."""
        if self.spinner is not None:
            self.spinner.typed(draft)

    def queued(self, text: str) -> None:
        """A typed-ahead message was queued: say so, and that it goes when the turn ends."""
        note = "(sent when this turn ends; Esc clears)"
        self._between_lines(styled(f"⏎ queued: {glimpse(text)}  {note}", "dim"))

    def draft_kept(self, draft: str) -> None:
        """A question set the line being typed aside while it was open; it is back."""
        note = "(set aside while the question was open; it is back: go on typing)"
        self._between_lines(styled(f"✎ typing: {glimpse(draft)}  {note}", "dim"))

    def queue_cleared(self) -> None:
        """Esc cleared the typed-ahead message."""
        self._between_lines(styled("queued message cleared", "dim"))

    def _between_lines(self, line: str) -> None:
        # A line of ours amid the turn: the spinner, if it was up, comes back after it.
        label = self.spinner.label if self.spinner is not None and self.spinner.shown else None
        self._line(line)
        self.out.flush()
        if label is not None and self.spinner is not None:
            self.spinner.resume(label)

    def aside(self, text: str, colour: str = "dim") -> None:
        """A line of our own about the turn (what was attached), sanitized."""
        self._line(styled(sanitize(text), colour))

    def render(self, event: Event) -> None:
        if isinstance(event, TextDelta):
            self._text(event.text)
            return
        self._status(None)
        self._flush_text()
        if isinstance(event, ToolCallStarted):
            self._line(styled("⏺ ", "cyan") + self._call_title(event))
            if event.spec is not None and not event.spec.requires_approval:
                self._status(f"Running {sanitize_line(event.call.name)}")
        elif isinstance(event, ApprovalAsked):
            pass  # the dialog takes the screen
        elif isinstance(event, ApprovalAnswered):
            line = decision_line(event.decision)
            if event.decision.approved:
                self._line(styled(line, "green"))
                self._status(f"Running {sanitize_line(event.call.name)}")
            else:
                self._line(styled(line, "red"))
        elif isinstance(event, ToolFinished):
            self._result(event)
            self._status(self._waiting())
        elif isinstance(event, UsageReported):
            self._turn_usage.add(event.request, event.session)
        elif isinstance(event, Notice):
            self._line(styled(sanitize(event.text), "yellow"))
        elif isinstance(event, TurnFailed):
            self._line(styled(f"error: {sanitize(event.message)}", "red"))
        elif isinstance(event, TurnEnded) and self._turn_usage.requests:
            turn, self._turn_usage = self._turn_usage, TurnUsage()
            self._line(styled(describe_usage(turn.usage, turn.session, turn.requests), "dim"))
        self.out.flush()

    def subagent_rows(self, rows: list[str]) -> None:
        """One line per running subagent, under the spinner's (on a terminal)."""
        if self.spinner is not None:
            self.spinner.rows(rows)

    def subagent_line(self, line: str, usage: Usage | None = None, requests: int = 0) -> None:
        """A subagent started or ended (its usage then counts into the turn's)."""
        if usage is not None:
            self._turn_usage.add_subagent(usage, requests)
        if dialog_on_screen():
            # Another subagent's question is open: written to the terminal here, the line
            # would land inside the dialog and read as part of what is asked. Through
            # prompt_toolkit's stdout it goes above the dialog, which is drawn again below.
            print(line, file=sys.stdout, flush=True)
            return
        self._between_lines(line)

    def progress(self, done: float, total: float | None, message: str | None) -> None:
        """An MCP server's progress on the running tool, shown in the spinner line."""
        if self.spinner is not None:
            self.spinner.detail(f"({progress_text(done, total, message)})")

    def finish(self) -> None:
        """End the last line of streamed text."""
        self.end()
        if self._mid_line:
            self.out.write("\n")
            self._mid_line = False
        self.out.flush()

    def interrupted(self) -> None:
        self.end()
        self._line(styled("(interrupted)", "yellow"))

    def _text(self, text: str) -> None:
        if not self._markdown_on:
            text = self._plain.feed(text)
            self._status(None)
            self.out.write(text)
            self.out.flush()
            if text:
                self._mid_line = not text.endswith("\n")
            return
        if self._markdown is None:
            from agent.ui.markdown import MarkdownStream, make_console

            color = "NO_COLOR" not in os.environ and self.out.isatty()
            self._markdown = MarkdownStream(make_console(color=color))
        self._write_rendered(self._markdown.feed(text))
        if self._markdown.pending and self.spinner is not None:
            self.spinner.show("Writing")  # with a glimpse of the block until it is printed
            self.spinner.detail(self._markdown.preview)
        else:
            self._status(None)

    def _flush_text(self) -> None:
        if self._markdown is not None:
            self._write_rendered(self._markdown.flush())

    def _write_rendered(self, rendered: str) -> None:
        if not rendered:
            return
        self._status(None)
        if self._mid_line:
            self.out.write("\n")
        self.out.write(rendered)
        self.out.flush()
        self._mid_line = not rendered.endswith("\n")

    def _status(self, label: str | None) -> None:
        if self.spinner is None:
            return
        if label is None:
            self.spinner.hide()
        else:
            self.spinner.show(label)

    def _line(self, text: str) -> None:
        self._status(None)
        if self._mid_line:
            self.out.write("\n")
            self._mid_line = False
        self.out.write(text + "\n")

    def _call_title(self, event: ToolCallStarted) -> str:
        # The arguments of a call the person was asked about are in the approval dialog above,
        # in full: the line names the call its outcome belongs to. An MCP call's arguments are
        # never on it (its dialog shows them, or it was refused before any could).
        # The task list's arguments are the list, drawn whole below it.
        title = call_title(event.call, event.spec, server_arguments=False)
        if title.details is None or (event.asked and event.spec and event.spec.server is None):
            return title.tool
        if event.spec is not None and event.spec.server is None and title.tool == TODOS_TOOL:
            return title.tool
        return f"{title.tool} " + styled(title.details, "dim")

    def _result(self, event: ToolFinished) -> None:
        result = event.result
        self.results.add(KeptResult(_plain_title(event), result.text, result.is_error))
        preview = result_preview(result.text, result.is_error, RESULT_PREVIEW_LINES)
        for line in preview.lines:
            self._line(styled(line, "red" if result.is_error else "dim"))
        if preview.hidden:
            self._line(styled(more_lines(preview.hidden) + " (/show for all)", "dim"))
        elif preview.cut:
            self._line(styled("    (/show for all)", "dim"))


def _plain_title(event: ToolFinished) -> str:
    call = event.call
    return f"{short_name(call.name)} {short_arguments(call.arguments)}"


def pretty_arguments(arguments: dict[str, object]) -> str:
    """Complete arguments as indented JSON (never cut)."""
    return json.dumps(arguments, indent=2, ensure_ascii=False)
