"""One chat turn: compose the request, stream the model, check, approve and run tool calls,
repeat until the model answers without tools. Knows no terminal: it yields events and asks
an injected Approver.

The history stays valid for every provider whatever happens: a model error adds nothing, and
an interruption (Ctrl-C cancels the task) gives every tool call the model made a result.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Callable, Sequence
from dataclasses import dataclass
from typing import Any, Literal, Protocol

from agent.approval import ApprovalRequest, Approver, Decision, ask, needs_approval
from agent.errors import AgentError
from agent.messages import (
    Completion,
    Message,
    ToolCall,
    ToolResult,
    Usage,
    parse_arguments,
    tool_message,
    user_message,
)
from agent.model import ChatModel, TextChunk
from agent.session.events import ApprovalEvent, SessionEvent, UsageEvent, message_event
from agent.tools.base import Tool, Toolset, ToolSpec
from agent.tools.combined import combine
from agent.tools.validation import argument_problems

INTERRUPTED = "interrupted by the user before it finished"


@dataclass(frozen=True)
class TextDelta:
    text: str


@dataclass(frozen=True)
class ToolCallStarted:
    call: ToolCall
    spec: ToolSpec | None  # None: the model named a tool that does not exist


@dataclass(frozen=True)
class ApprovalAsked:
    request: ApprovalRequest


@dataclass(frozen=True)
class ApprovalAnswered:
    call: ToolCall
    decision: Decision


@dataclass(frozen=True)
class ToolFinished:
    call: ToolCall
    result: ToolResult


@dataclass(frozen=True)
class UsageReported:
    request: Usage
    session: Usage


@dataclass(frozen=True)
class Notice:
    text: str


@dataclass(frozen=True)
class TurnFailed:
    message: str


@dataclass(frozen=True)
class TurnEnded:
    reason: Literal["answered", "round_limit", "error"]


Event = (
    TextDelta
    | ToolCallStarted
    | ApprovalAsked
    | ApprovalAnswered
    | ToolFinished
    | UsageReported
    | Notice
    | TurnFailed
    | TurnEnded
)


class Recorder(Protocol):
    """Receives every event worth keeping (the session store implements it)."""

    def record(self, event: SessionEvent) -> int | None: ...


class Conversation:
    """A chat's history and the machinery to take one more turn."""

    def __init__(
        self,
        model: ChatModel,
        toolsets: Sequence[Toolset],
        approver: Approver,
        system_prompt: Callable[[], str],
        max_tool_rounds: int = 25,
        recorder: Recorder | None = None,
    ) -> None:
        self.model = model
        self.toolsets = list(toolsets)
        self.approver = approver
        self.system_prompt = system_prompt
        self.max_tool_rounds = max_tool_rounds
        self.history: list[Message] = []
        self.usage = Usage()
        self.recorder = recorder
        self.memory: str | None = None  # session memory from compaction
        self.numbers: list[int | None] = []  # aligned with history: each message's n in the file

    def record(self, event: SessionEvent) -> int | None:
        """Hand an event to the session recorder, if there is one; a message's number back."""
        if self.recorder is not None:
            return self.recorder.record(event)
        return None

    def add(self, message: Message) -> None:
        """Append to the history and record it, so the session file matches the history.

        `numbers` keeps each message's number in the file: compaction records which file
        messages it summarised, whatever repair did to the history in memory.
        """
        self.history.append(message)
        self.numbers.append(self.record(message_event(message)))

    def _record_usage(self, usage: Usage) -> None:
        self.record(UsageEvent(usage))

    def request_messages(self) -> list[dict[str, object]]:
        """What the next request sends: the system prompt, then the history."""
        system = Message("system", self.system_prompt())
        return [system.to_openai(), *(message.to_openai() for message in self.history)]

    async def turn(self, text: str) -> AsyncIterator[Event]:
        """Take the person's message and run the model and tools until it answers."""
        self.add(user_message(text))
        partial: list[str] = []
        try:
            rounds = 0
            while True:
                try:
                    tools = combine(self.toolsets)
                except AgentError as error:
                    yield TurnFailed(str(error))
                    yield TurnEnded("error")
                    return
                partial.clear()
                completion: Completion | None = None
                try:
                    async for item in self.model.stream(
                        self.request_messages(), [tool.spec.to_openai() for tool in tools.values()]
                    ):
                        if isinstance(item, TextChunk):
                            partial.append(item.text)
                            yield TextDelta(item.text)
                        else:
                            completion = item
                except AgentError as error:
                    self._keep_partial_answer(partial, "[the answer broke off]")
                    yield TurnFailed(str(error))
                    yield TurnEnded("error")
                    return
                assert completion is not None
                partial.clear()
                if not completion.text.strip() and not completion.tool_calls:
                    # An empty assistant message is rejected by providers in the next
                    # request; keep it out of the history and say what happened.
                    self.usage = self.usage + completion.usage
                    self._record_usage(completion.usage)
                    yield UsageReported(completion.usage, self.usage)
                    yield Notice("The model returned an empty answer; ask again or rephrase.")
                    yield TurnEnded("answered")
                    return
                self.add(completion.message())
                self.usage = self.usage + completion.usage
                self._record_usage(completion.usage)
                yield UsageReported(completion.usage, self.usage)
                if not completion.tool_calls:
                    yield TurnEnded("answered")
                    return
                if rounds == self.max_tool_rounds:
                    for call in completion.tool_calls:
                        result = ToolResult(
                            f"not run: this turn reached the limit of {self.max_tool_rounds} "
                            "tool rounds",
                            is_error=True,
                        )
                        self.add(tool_message(call, result))
                    yield Notice(
                        f"Stopped after {self.max_tool_rounds} tool rounds in one turn "
                        "(loop.max_tool_rounds in settings.yaml). Say how to continue."
                    )
                    yield TurnEnded("round_limit")
                    return
                rounds += 1
                for call in completion.tool_calls:
                    async for event in self._run_call(call, tools):
                        yield event
        except BaseException:
            # Cancelled (Ctrl-C) or closed: keep the history valid for the next request.
            self._keep_partial_answer(partial, "[interrupted by the user]")
            self.answer_dangling_calls(INTERRUPTED)
            raise

    async def _run_call(self, call: ToolCall, tools: dict[str, Tool]) -> AsyncIterator[Event]:
        tool = tools.get(call.name)
        yield ToolCallStarted(call, tool.spec if tool else None)
        checked = self._checked(call, tool)
        result: ToolResult | None = checked if isinstance(checked, ToolResult) else None
        if not isinstance(checked, ToolResult):
            assert tool is not None
            arguments = checked
            if needs_approval(tool.spec):
                request = ApprovalRequest(call, tool.spec, arguments)
                yield ApprovalAsked(request)
                decision = await ask(self.approver, request)
                self.record(ApprovalEvent(call.id, call.name, decision.approved, decision.reason))
                yield ApprovalAnswered(call, decision)
                if not decision.approved:
                    reason = f" Their reason: {decision.reason}" if decision.reason else ""
                    result = ToolResult(
                        f"The person declined this tool call.{reason}", is_error=True
                    )
            if result is None:
                result = await _run_tool(tool, arguments)
        assert result is not None  # every path above decided one
        self.add(tool_message(call, result))
        yield ToolFinished(call, result)

    def _checked(self, call: ToolCall, tool: Tool | None) -> dict[str, Any] | ToolResult:
        """The call's arguments when it may be asked about; an error result when it cannot run
        as proposed (no such tool, broken JSON, arguments that break the schema)."""
        if tool is None:
            return ToolResult(
                f"there is no tool named {call.name!r}; use one of the tools of this request",
                is_error=True,
            )
        try:
            arguments = parse_arguments(call)
        except ValueError as error:
            return ToolResult(f"{call.name}: {error}", is_error=True)
        problems = argument_problems(tool.spec.parameters, arguments)
        if problems:
            return ToolResult(
                f"invalid arguments for {call.name}: " + "; ".join(problems), is_error=True
            )
        return arguments

    def _keep_partial_answer(self, partial: list[str], note: str) -> None:
        if partial:
            self.add(Message("assistant", "".join(partial) + f"\n{note}"))
            partial.clear()

    def answer_dangling_calls(self, text: str) -> None:
        """Give every unanswered tool call of the last assistant message a result."""
        for index in range(len(self.history) - 1, -1, -1):
            message = self.history[index]
            if message.role == "assistant" and message.tool_calls:
                answered = {m.tool_call_id for m in self.history[index + 1 :] if m.role == "tool"}
                for call in message.tool_calls:
                    if call.id not in answered:
                        self.add(tool_message(call, ToolResult(text, is_error=True)))
                return
            if message.role == "user":
                return


async def _run_tool(tool: Tool, arguments: dict[str, object]) -> ToolResult:
    try:
        return await tool.run(dict(arguments))
    except AgentError as error:
        return ToolResult(str(error), is_error=True)
    except Exception as error:  # a bug in a tool must not end the chat; the model is told
        return ToolResult(
            f"the tool failed unexpectedly: {type(error).__name__}: {error}", is_error=True
        )
