"""One-shot mode: one turn from `agent -p PROMPT` (or piped stdin), printed as plain text, one
JSON object, or one JSON object per event, with exit codes a script can act on.

Approval asks on the controlling terminal (/dev/tty), so `cat f | agent -p ... > out` still
asks the person at the keyboard; with no terminal at all every call that needs approval is
denied, and the output says nobody was there. Nothing here imports prompt_toolkit or rich:
the approval dialog loads only when a call needs a person and /dev/tty could be opened.
"""

from __future__ import annotations

import contextlib
import json
import os
import sys
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from types import TracebackType
from typing import TYPE_CHECKING, TextIO

import anyio

from agent.chat.approval import ApprovalBatch, ApprovalRequest, Decision
from agent.chat.events import (
    ApprovalAnswered,
    Event,
    Notice,
    TextDelta,
    ToolCallStarted,
    ToolFinished,
    TurnFailed,
    UsageReported,
)
from agent.errors import AgentError
from agent.messages import Part, ToolCall, Usage, parse_arguments
from agent.text import StreamSanitizer, error_lines, plural, sanitize
from agent.ui.interrupt import ctrl_c_cancels
from agent.ui.tool_calls import call_title, decision_line, more_lines, result_preview

if TYPE_CHECKING:
    from prompt_toolkit.input import Input
    from prompt_toolkit.output import Output

    from agent.chat.state import ChatSession
    from agent.chat.subagents import SubagentRun


EXIT_OK = 0
EXIT_TURN_FAILED = 1  # the model (or the set-up before it) failed
EXIT_USAGE = 2
EXIT_DENIED = 3  # answered, but at least one tool call was denied
EXIT_BROKEN_PIPE = 141
EXIT_INTERRUPTED = 130

NO_TERMINAL_REASON = (
    "no person is present to approve it: agent ran without a terminal (/dev/tty could not be "
    "opened), so every tool call that needs approval (MCP tools, file changes, commands) is denied"
)
RESULT_PREVIEW_LINES = 3


@dataclass(frozen=True)
class OneShotInput:
    """What one turn sends: the person's -p prompt, and whatever was piped to stdin.

    Only the prompt's @-mentions attach resources (unasked, since the person wrote them).
    Piped text is data the person need not have read (`cat untrusted.md | agent -p ...`): a
    mention in it stays text, or a file could make agent read a secret and send it away.
    """

    prompt: str
    piped: str

    @property
    def text(self) -> str:
        """The message: the prompt, then a blank line and the piped text."""
        return "\n\n".join(part for part in (self.prompt, self.piped) if part.strip())


def one_shot_input(prompt: str | None, stdin: TextIO | None) -> OneShotInput:
    """The -p prompt and what was piped in (nothing when stdin is a terminal)."""
    piped = "" if stdin is None or stdin.isatty() else stdin.read()
    return OneShotInput(prompt or "", piped)


class ControllingTerminalApprover:
    """Asks on /dev/tty with the chat's approval dialog, whatever stdin and stdout are.

    The terminal is opened at the first call that needs approval; when it cannot be (no
    controlling terminal: setsid, CI, cron), every such call is denied, saying why.
    """

    def __init__(self, device: str = "/dev/tty") -> None:
        self.device = device
        self._files: list[TextIO] = []
        self._io: tuple[Input, Output] | None = None
        self._absent = False

    async def decide(self, request: ApprovalRequest) -> Decision:
        return (await self.decide_batch(ApprovalBatch((request,))))[0]

    async def decide_batch(self, batch: ApprovalBatch) -> Sequence[Decision]:
        """The calls of one answer in the chat's one dialog, drawn on the terminal."""
        terminal = self._open()
        if terminal is None:
            return [Decision(False, NO_TERMINAL_REASON) for _ in batch.requests]
        from prompt_toolkit.application import create_app_session

        from agent.ui.dialogs.approval import ChatApprover

        # The dialog drops the keys typed before it was on screen, in every buffer of this
        # input (agent.ui.dialogs.fresh_keys): the kernel's, and prompt_toolkit's own store, which
        # holds the keys after the one that answered the last call's question.
        # The dialog is drawn on the terminal, not stdout: it gets colours unless NO_COLOR.
        with create_app_session(input=terminal[0], output=terminal[1]):
            approver = ChatApprover(colour="NO_COLOR" not in os.environ)
            if len(batch.requests) == 1 and not batch.others:
                return [await approver.decide(batch.requests[0])]
            return await approver.decide_batch(batch)

    def _open(self) -> tuple[Input, Output] | None:
        if self._io is not None or self._absent:
            return self._io
        try:
            reader = open(self.device, encoding="utf-8")  # noqa: SIM115 (closed in close())
            self._files.append(reader)
            self._files.append(open(self.device, "w", encoding="utf-8"))  # noqa: SIM115
        except OSError:
            self.close()
            self._absent = True
            return None
        from prompt_toolkit.input import create_input
        from prompt_toolkit.output import create_output

        self._io = (create_input(self._files[0]), create_output(self._files[1]))
        return self._io

    def close(self) -> None:
        """Close the terminal, if it was opened."""
        for file in self._files:
            file.close()
        self._files.clear()
        self._io = None

    def __enter__(self) -> ControllingTerminalApprover:
        return self

    def __exit__(
        self,
        kind: type[BaseException] | None,
        error: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        self.close()


@dataclass
class CallRecord:
    """One tool call of the turn and what became of it."""

    id: str
    name: str
    arguments: object  # the parsed object, or the raw text when it is not a JSON object
    approved: bool | None = None  # None: the call needed no approval (or never got that far)
    reason: str | None = None
    result: str | None = None
    is_error: bool | None = None

    def to_json(self) -> dict[str, object]:
        return dict(vars(self))


def _arguments(call: ToolCall) -> object:
    """The arguments as an object when they are one (the same check the turn made), else as sent."""
    try:
        return parse_arguments(call)
    except ValueError:
        return call.arguments


class TurnSummary:
    """Everything the JSON result reports, gathered from the turn's events.

    `text` is the model's words: each round's text, rounds separated by a blank line. The
    text format prints exactly this, so `agent -p` and `jq -r .text` agree.
    """

    def __init__(self) -> None:
        # Pieces, joined when read: `text += piece` copied the whole answer for each of its
        # thousands of deltas (quadratic: a 4 MB answer in 4000 deltas took 15 s).
        self._pieces: list[str] = []
        self.calls: list[CallRecord] = []
        self.usage = Usage()
        self.notices: list[str] = []
        self.error: str | None = None
        self._new_round = False

    def add(self, event: Event) -> str:
        """Take one event; return the text it added to `text` (a separator and the delta)."""
        if isinstance(event, TextDelta):
            piece = event.text
            if self._new_round and self._pieces and piece:
                piece = "\n" * max(0, 2 - self._trailing_newlines()) + piece
            self._new_round = self._new_round and not piece
            if piece:
                self._pieces.append(piece)
            return piece
        if isinstance(event, ToolCallStarted):
            self._new_round = True
            self.calls.append(CallRecord(event.call.id, event.call.name, _arguments(event.call)))
        elif isinstance(event, ApprovalAnswered):
            record = self._record(event.call)
            record.approved, record.reason = event.decision.approved, event.decision.reason
        elif isinstance(event, ToolFinished):
            record = self._record(event.call)
            record.result, record.is_error = event.result.text, event.result.is_error
        elif isinstance(event, UsageReported):
            self.usage = self.usage + event.request
        elif isinstance(event, Notice):
            self.notices.append(event.text)
        elif isinstance(event, TurnFailed):
            self.error = event.message
        return ""

    @property
    def text(self) -> str:
        return "".join(self._pieces)

    def _trailing_newlines(self) -> int:
        """How many line breaks the text ends with (up to the 2 a new round needs)."""
        count = 0
        for piece in reversed(self._pieces):
            stripped = piece.rstrip("\n")
            count += len(piece) - len(stripped)
            if stripped or count >= 2:
                break
        return count

    def _record(self, call: ToolCall) -> CallRecord:
        for record in reversed(self.calls):
            if record.id == call.id:
                return record
        record = CallRecord(call.id, call.name, _arguments(call))
        self.calls.append(record)
        return record

    def denied(self) -> int:
        return sum(1 for record in self.calls if record.approved is False)

    def exit_code(self, interrupted: bool) -> int:
        if interrupted:
            return EXIT_INTERRUPTED
        if self.error is not None:
            return EXIT_TURN_FAILED
        return EXIT_DENIED if self.denied() else EXIT_OK

    def result(self, model: str, session_id: str | None, exit_code: int) -> dict[str, object]:
        """The JSON result: final text, tool calls with decisions, usage, and how it ended."""
        return {
            "text": self.text,
            "tool_calls": [record.to_json() for record in self.calls],
            "usage": self.usage.to_json(),
            "notices": self.notices,
            "session_id": session_id,
            "model": model,
            "exit_code": exit_code,
            "error": self.error,
        }


class OneShotOutput:
    """Shows a one-shot turn as it happens and its result at the end; subclasses choose how.

    stdout carries only the format's own output; everything else goes to stderr.
    """

    def __init__(self, model: str, out: TextIO | None = None, err: TextIO | None = None) -> None:
        self.model = model
        self.out = out or sys.stdout
        self.err = err or sys.stderr
        self.summary = TurnSummary()
        self.closed = False  # stdout's reader went away (`agent -p ... | head -1`)

    def note(self, text: str) -> None:
        """A note of ours (skills, resume, MCP start-up), not an event of the turn."""
        self.summary.notices.append(text)
        self.show_note(text)

    def event(self, event: Event) -> None:
        self.show(event, self.summary.add(event))

    def fail(self, message: str) -> int:
        """The turn could not start (settings, resume): report it like a failed turn."""
        self.summary.error = message
        return self.finish(None)

    def finish(self, session_id: str | None, interrupted: bool = False) -> int:
        """Show the result; return the exit code."""
        if interrupted:
            self.summary.error = "interrupted"
        code = self.summary.exit_code(interrupted)
        self.show_result(self.summary.result(self.model, session_id, code))
        return EXIT_BROKEN_PIPE if self.closed else code

    def show_note(self, text: str) -> None:
        pass

    def show(self, event: Event, text: str) -> None:
        pass

    def show_result(self, result: dict[str, object]) -> None:
        pass

    def write(self, text: str) -> None:
        """Write to stdout; if its reader has gone, stop writing (and let the turn stop)."""
        if self.closed:
            return
        try:
            self.out.write(text)
            self.out.flush()
        except BrokenPipeError:
            self.closed = True
            with contextlib.suppress(OSError, ValueError):
                os.dup2(os.open(os.devnull, os.O_WRONLY), self.out.fileno())

    def tell(self, line: str) -> None:
        """One line on stderr."""
        with contextlib.suppress(OSError):
            self.err.write(line + "\n")
            self.err.flush()


class TextOutput(OneShotOutput):
    """The model's words on stdout, sanitized; tool activity and notes on stderr."""

    def __init__(self, model: str, out: TextIO | None = None, err: TextIO | None = None) -> None:
        super().__init__(model, out, err)
        self._mid_line = False
        self._owed = 0  # newlines written early (before stderr lines) that the text still has
        self._stream = StreamSanitizer()  # the answer arrives in pieces

    def show_note(self, text: str) -> None:
        self.tell(sanitize(text))

    def show(self, event: Event, text: str) -> None:
        if text:
            skip = min(self._owed, len(text) - len(text.lstrip("\n")))
            self._owed = 0
            self._text(text[skip:])
            return
        if isinstance(event, ToolCallStarted):
            if self._mid_line:  # stderr may be the same screen: end the line first
                self._text("\n")
                self._owed = 1
            # No approval dialog may come to show them: an MCP call's arguments are in the title.
            title = call_title(event.call, event.spec, server_arguments=True)
            self.tell(f"⏺ {title.plain()}")
        elif isinstance(event, ApprovalAnswered):
            self.tell(decision_line(event.decision))
        elif isinstance(event, ToolFinished):
            self._result(event)
        elif isinstance(event, Notice):
            self.tell(sanitize(event.text))
        elif isinstance(event, TurnFailed):
            self.tell(f"error: {sanitize(event.message)}")

    def fail(self, message: str) -> int:
        for line in error_lines(message) or ["unknown error"]:
            self.tell(f"agent: {line}")
        return super().fail(message)

    def show_result(self, result: dict[str, object]) -> None:
        if self._mid_line:
            self._text("\n")
        if result["exit_code"] == EXIT_INTERRUPTED:
            self.tell("(interrupted)")
        elif result["exit_code"] == EXIT_DENIED:
            denied = plural(self.summary.denied(), "tool call")
            self.tell(f"{denied} denied (exit code {EXIT_DENIED})")

    def _text(self, text: str) -> None:
        text = self._stream.feed(text)
        if text:
            self.write(text)
            self._mid_line = not text.endswith("\n")

    def _result(self, event: ToolFinished) -> None:
        preview = result_preview(event.result.text, event.result.is_error, RESULT_PREVIEW_LINES)
        for line in preview.lines:
            self.tell(line)
        if preview.hidden:
            self.tell(more_lines(preview.hidden))


class JsonOutput(OneShotOutput):
    """One JSON object on stdout at the end; nothing else on stdout."""

    def show_result(self, result: dict[str, object]) -> None:
        self.write(json.dumps(result) + "\n")


class StreamJsonOutput(OneShotOutput):
    """One JSON object per line as things happen, then a `result` line like JsonOutput's."""

    def show_note(self, text: str) -> None:
        self._emit({"type": "notice", "text": text})

    def show(self, event: Event, text: str) -> None:
        if isinstance(event, TextDelta):
            self._emit({"type": "text", "text": event.text})
        elif isinstance(event, ToolCallStarted):
            call, spec = event.call, event.spec
            self._emit(
                {
                    "type": "tool_call",
                    "id": call.id,
                    "name": call.name,
                    "arguments": _arguments(call),
                    "server": spec.server if spec else None,
                }
            )
        elif isinstance(event, ApprovalAnswered):
            self._emit(
                {
                    "type": "approval",
                    "id": event.call.id,
                    "name": event.call.name,
                    "approved": event.decision.approved,
                    "reason": event.decision.reason,
                }
            )
        elif isinstance(event, ToolFinished):
            self._emit(
                {
                    "type": "tool_result",
                    "id": event.call.id,
                    "name": event.call.name,
                    "result": event.result.text,
                    "is_error": event.result.is_error,
                }
            )
        elif isinstance(event, UsageReported):
            usage = event.request
            self._emit({"type": "usage", **usage.to_json()})
        elif isinstance(event, Notice):
            self._emit({"type": "notice", "text": event.text})
        elif isinstance(event, TurnFailed):
            self._emit({"type": "error", "message": event.message})

    def show_result(self, result: dict[str, object]) -> None:
        self._emit({"type": "result", **result})

    def _emit(self, item: dict[str, object]) -> None:
        self.write(json.dumps(item) + "\n")


def make_output(output_format: str, model: str) -> OneShotOutput:
    """The output for --output-format."""
    kinds: dict[str, type[OneShotOutput]] = {
        "text": TextOutput,
        "json": JsonOutput,
        "stream-json": StreamJsonOutput,
    }
    return kinds[output_format](model)


async def _settle_served_skills(
    chat: ChatSession, output: OneShotOutput, scope: anyio.CancelScope
) -> None:
    """Once the servers that start have started, offer their skills to the turn's later
    requests: with no person to ask, only those trusted as they are listed now."""
    with scope:
        await chat.host.started.wait()
        try:
            notes = await chat.settle_served_skills(None)
        except AgentError as error:  # a server gone meanwhile: the turn goes on without them
            notes = [f"skills of the MCP servers were not listed: {error}"]
        for line in notes:
            output.note(line)


async def _attachments(chat: ChatSession, prompt: str, output: OneShotOutput) -> list[Part]:
    """The resources the -p prompt @-mentions (the person wrote them: no approval)."""
    if "@" not in prompt:
        return []
    from agent.chat.attachments import read_mentions

    attached = await read_mentions(prompt, chat.host.runtime)
    for line in attached.notes:
        output.note(line)
    return attached.parts


def _file_attachments(chat: ChatSession, prompt: str, output: OneShotOutput) -> list[Part] | None:
    """The project files the -p prompt @-mentions; None when one is refused (each said)."""
    if "@" not in prompt:
        return []
    from agent.chat.file_attachments import file_mentions

    found = file_mentions(prompt, chat.project, chat.host.runtime)
    for line in found.refused:
        output.note(line)
    return None if found.refused else found.parts


class NotedSubagents:
    """A one-shot run's subagents, a note each when it starts and ends (stderr: stdout is
    the answer)."""

    def __init__(self, output: OneShotOutput) -> None:
        self.output = output

    def started(self, run: SubagentRun) -> None:
        from agent.ui.subagent_lines import started_line

        self.output.note(started_line(run))

    def updated(self, run: SubagentRun) -> None:
        pass  # no live lines off a terminal's spinner

    def ended(self, run: SubagentRun) -> None:
        from agent.ui.subagent_lines import ended_line

        # Its requests are the run's: the result's usage (what scripts bill by) counts them.
        # A nested subagent's are in its own run, never in its parent's.
        summary = self.output.summary
        summary.usage = summary.usage + run.usage
        self.output.note(ended_line(run))


async def run_one_shot(chat: ChatSession, sent: OneShotInput, output: OneShotOutput) -> int:
    """Take one turn while the MCP servers start, show it; Ctrl-C stops the turn (exit 130).

    The request does not wait for the servers: it offers the trusted servers' tools as their
    cached listings have them (so a model that is down is said at once), a call to a tool
    waits for its server, and a server whose tools the request defers starts only when one
    of them is called (agent/mcp/host.py's `on_call_only`; a call asks first, and the start
    still needs its exact launch trusted)."""
    conversation, host = chat.conversation, chat.host
    if chat.subagents is not None:
        chat.subagents.listeners.append(NotedSubagents(output))
    files = _file_attachments(chat, sent.prompt, output)
    if files is None:  # all or nothing: no model is asked with half of what was meant
        output.summary.error = "a mentioned file was not attached; nothing was sent"
        return output.finish(None)
    stop, settling = anyio.Event(), anyio.CancelScope()
    async with anyio.create_task_group() as group:
        lazy = conversation.deferred_servers
        group.start_soon(partial(host.serve, stop, only_if_used=True, on_call_only=lazy))
        try:
            with ctrl_c_cancels(ignore_after=False) as scope:
                await host.ready.wait()  # the runtime is up: the cached listings can be offered
                group.start_soon(_settle_served_skills, chat, output, settling)
                async with host.request_scope():
                    parts = [*files, *await _attachments(chat, sent.prompt, output)]
                    async for event in conversation.turn(sent.text, parts):
                        output.event(event)
                        if output.closed:
                            scope.cancel()
        finally:
            settling.cancel()  # the turn is over: its skills no longer matter
            stop.set()
    recorder = chat.recorder
    for problem in recorder.problems:
        output.note(problem)
    interrupted = scope.cancelled_caught and not output.closed
    return output.finish(recorder.session_id, interrupted)
