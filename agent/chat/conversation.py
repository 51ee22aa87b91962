"""One chat turn: compose the request, stream the model, check, approve and run tool calls,
repeat until the model answers without tools. Knows no terminal: it yields events and asks
an injected Approver.

The history stays valid for every provider whatever happens: a model error adds nothing, and
an interruption (Ctrl-C cancels the task) gives every tool call the model made a result.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Awaitable, Callable, Sequence
from dataclasses import dataclass, replace
from typing import Any

import anyio

from agent.chat.approval import (
    NOT_ASKED_STOPPED,
    ApprovalBatch,
    ApprovalRequest,
    Approver,
    Decision,
    Unasked,
    ask,
    ask_batch,
    needs_approval,
)
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
from agent.chat.history import History, Recorder
from agent.chat.plan_mode import PlanMode, PlanState
from agent.chat.plan_review import NoPersonReviews, PlanReviewer, PresentPlan
from agent.chat.tool_order import ToolOrder
from agent.errors import AgentError
from agent.messages import (
    Completion,
    Message,
    Part,
    ToolCall,
    ToolResult,
    Usage,
    openai_messages,
    parse_arguments,
    tool_message,
    user_message,
)
from agent.model import ChatModel, TextChunk, accepts_images
from agent.session.events import ApprovalEvent, PlanModeEvent, ToolsFoundEvent
from agent.text import plural
from agent.tools.base import (
    CallRefusedError,
    ConcurrentTool,
    NetworkChoiceTool,
    PreviewedTool,
    Tool,
    Toolset,
)
from agent.tools.combined import combine
from agent.tools.deferral import ToolDeferral
from agent.tools.validation import argument_problems

INTERRUPTED = "interrupted by the user before it finished"
STOPPED = "The person declined this tool call and stopped the turn."
NOT_RUN_STOPPED = "not run: the person stopped the turn when asked about this answer's calls"
PREVIEW_FAILED = "its preview failed: the arguments are shown as the model sent them"
CHANGED = "asked again: an earlier call of this answer changed what this one will do"


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
        deferral: ToolDeferral | None = None,
        plan_reviewer: PlanReviewer | None = None,
    ) -> None:
        self.model = model
        self.toolsets = list(toolsets)
        self.approver = approver
        self.system_prompt = system_prompt
        self.max_tool_rounds = max_tool_rounds
        self.history = History(recorder)
        self.tool_order = ToolOrder()  # a stable tool list keeps the cached prefix valid
        # MCP tools held back behind search_tools when they would crowd the window.
        self.deferral = deferral
        if deferral is not None:
            deferral.on_found = self._record_found
        # Plan mode: only tools that change nothing, and present_plan, which asks the person.
        self.plan = PlanMode()
        self.plan.record = self._record_plan_mode
        self.present_plan = PresentPlan(self.plan, plan_reviewer or NoPersonReviews())
        self.plan.present_tool = self.present_plan

    def _record_found(self, names: tuple[str, ...]) -> None:
        self.history.record(ToolsFoundEvent(names))

    def _record_plan_mode(self, state: PlanState) -> None:
        self.history.record(PlanModeEvent(state.on, state.mcp))

    def next_tools(self, *, remember: bool = False) -> dict[str, Tool]:
        """The tools of the next request in the order it sends them (deferred MCP tools left
        out); `remember`: this is the request, so new tools take their places for good.
        ToolConflictError when two sources offer one name. In plan mode only what it admits,
        left out before deferral, so a tool plan mode refuses is never found either."""
        tools = self.plan.offered(combine(self.toolsets))
        if self.deferral is not None:
            tools = self.deferral.plan(tools).offered
        return self.tool_order.arrange(tools) if remember else self.tool_order.peek(tools)

    async def deferred_servers(self) -> tuple[str, ...]:
        """The MCP servers whose tools the next request would defer behind the tool search
        (measured as the request will be, once the model can say its window); none when the
        tools cannot be composed (the request says why)."""
        if self.deferral is None:
            return ()
        try:
            await _prepared(self.model)
            self.next_tools()
        except AgentError:
            return ()
        return self.deferral.plan_now.servers

    @property
    def usage(self) -> Usage:
        """Tokens and cost of this session's requests so far."""
        return self.history.usage

    @property
    def memory(self) -> str | None:
        """The session memory from compaction, if any."""
        return self.history.memory

    def request_messages(
        self, estimate: bool = False, attachments: bool = True, system: str | None = None
    ) -> list[dict[str, object]]:
        """What the next request sends: the system prompt, then the history.

        `estimate`: for counting tokens; images are counted as their notes (their base64
        is no measure of their tokens, and asking about the model may load litellm).
        `attachments` False: the history without what was attached to its messages (so
        `/context` can say what the attachments cost). `system`: the prompt already rendered."""
        prompt = Message("system", self.system_prompt() if system is None else system)
        vision = (lambda: False) if estimate else (lambda: accepts_images(self.model))
        history = (
            self.history
            if attachments
            else [replace(message, parts=()) for message in self.history]
        )
        return [prompt.to_openai(), *openai_messages(history, vision)]

    async def compact(
        self, keep_recent_turns: int = 2, focus: str | None = None
    ) -> tuple[str, int]:
        """Summarise older turns into session memory with this chat's model."""
        return await self.history.compact(self.model, keep_recent_turns, focus)

    async def turn(self, text: str, parts: Sequence[Part] = ()) -> AsyncIterator[Event]:
        """Take the person's message (and what they attached) and run the model and tools
        until it answers."""
        self.plan.settle()  # the mode this turn runs in, recorded before its message
        self.history.add(user_message(text, parts))
        partial: list[str] = []
        try:
            rounds = 0
            while True:
                try:
                    await _prepared(self.model)  # the window deferral measures against
                    tools = self.next_tools(remember=True)
                except AgentError as error:
                    yield TurnFailed(str(error))
                    yield TurnEnded("error")
                    return
                answer: list[Completion] = []
                ended = False  # a step that ends the turn yields TurnEnded last
                async for event in self._request(tools, partial, answer):
                    ended = isinstance(event, TurnEnded)
                    yield event
                if ended:
                    return
                async for event in self._answer(answer[0], rounds):
                    ended = isinstance(event, TurnEnded)
                    yield event
                if ended:
                    return
                rounds += 1
                async for event in self._round(answer[0].tool_calls, tools):
                    ended = isinstance(event, TurnEnded)
                    yield event
                if ended:
                    return
        except BaseException:
            # Cancelled (Ctrl-C) or closed: keep the history valid for the next request.
            self._keep_partial_answer(partial, "[interrupted by the user]")
            self.answer_dangling_calls(INTERRUPTED)
            raise

    async def _request(
        self, tools: dict[str, Tool], partial: list[str], answer: list[Completion]
    ) -> AsyncIterator[Event]:
        """Stream one model request; its completion lands in `answer`. A model error ends the
        turn, keeping what was streamed so far."""
        partial.clear()
        try:
            async for item in self.model.stream(
                self.request_messages(), [tool.spec.to_openai() for tool in tools.values()]
            ):
                if isinstance(item, TextChunk):
                    partial.append(item.text)
                    yield TextDelta(item.text)
                else:
                    answer.append(item.with_unique_call_ids())
        except AgentError as error:
            self._keep_partial_answer(partial, "[the answer broke off]")
            yield TurnFailed(str(error))
            yield TurnEnded("error")
            return
        assert answer, "a model stream ends with its completion"
        partial.clear()

    async def _answer(self, completion: Completion, rounds: int) -> AsyncIterator[Event]:
        """Keep the model's answer; the turn ends unless it asked for a tool round it may run."""
        if not completion.text.strip() and not completion.tool_calls:
            # An empty assistant message is rejected by providers in the next request; keep
            # it out of the history and say what happened.
            self.history.add_usage(completion.usage)
            yield UsageReported(completion.usage, self.usage)
            yield Notice("The model returned an empty answer; ask again or rephrase.")
            yield TurnEnded("answered")
            return
        self.history.add(completion.message())
        self.history.add_usage(completion.usage)
        yield UsageReported(completion.usage, self.usage)
        if not completion.tool_calls:
            yield TurnEnded("answered")
            return
        if rounds == self.max_tool_rounds:
            for call in completion.tool_calls:
                result = ToolResult(
                    f"not run: this turn reached the limit of {self.max_tool_rounds} tool rounds",
                    is_error=True,
                )
                self.history.add(tool_message(call, result))
            yield Notice(
                f"Stopped after {self.max_tool_rounds} tool rounds in one turn "
                "(loop.max_tool_rounds in settings.yaml). Say how to continue."
            )
            yield TurnEnded("round_limit")

    async def _round(
        self, calls: Sequence[ToolCall], tools: dict[str, Tool]
    ) -> AsyncIterator[Event]:
        """The answer's tool calls: every one that needs approval is asked about in one batch
        before any of them runs, then each runs (or is refused) in the model's order. A stop
        at the question ends the turn with nothing of the answer run."""
        steps = [
            self._plan(call, tools, number, len(calls)) for number, call in enumerate(calls, 1)
        ]
        asked = [step for step in steps if step.request is not None]
        decided: dict[int, Decision] = {}
        if asked:
            for step in asked:
                assert step.request is not None
                yield ApprovalAsked(step.request)
            others = tuple(_unasked(step) for step in steps if step.request is None)
            batch = ApprovalBatch(tuple(s.request for s in asked if s.request), others)
            for step, decision in zip(asked, await ask_batch(self.approver, batch), strict=True):
                self._record_decision(step.call, decision)
                decided[step.number] = decision
        if any(decision.stop_turn for decision in decided.values()):
            async for event in self._stop_all(steps, decided):
                yield event
            return
        state = _RoundState()
        index = 0
        while index < len(steps):
            together = _alongside(steps, index)
            if len(together) > 1:
                async for event in self._run_together(together, state):
                    yield event
                index += len(together)
                continue
            step = steps[index]
            async for event in self._run_step(step, decided.get(step.number), tools, state):
                yield event
            index += 1
            if state.stopped:
                yield self._stop([step.call for step in steps[index:]])
                yield TurnEnded("stopped")
                return

    async def _run_together(
        self, steps: Sequence[_Step], state: _RoundState
    ) -> AsyncIterator[Event]:
        """Calls that need no approval and may run alongside each other (subagents) run at
        once; their results are kept in the model's order once all have ended. Ctrl-C cancels
        them all (each keeps its own history valid)."""
        for step in steps:
            assert step.tool is not None
            yield ToolCallStarted(step.call, step.tool.spec)
        results: dict[int, ToolResult] = {}

        async def run(step: _Step) -> None:
            assert step.tool is not None and step.arguments is not None
            results[step.number] = await _run_tool(step.arguments, step.tool.run)

        state.ran = True
        async with anyio.create_task_group() as group:
            for step in steps:
                group.start_soon(run, step)
        for step in steps:
            self.history.add(tool_message(step.call, results[step.number]))
            yield ToolFinished(step.call, results[step.number])

    def _record_decision(self, call: ToolCall, decision: Decision) -> None:
        if decision is not NOT_ASKED_STOPPED:  # a call never asked about has no answer to keep
            self.history.record(
                ApprovalEvent(call.id, call.name, decision.approved, decision.reason)
            )

    def _plan(self, call: ToolCall, tools: dict[str, Tool], number: int, of: int) -> _Step:
        """What `call` is before anyone is asked: refused (no such tool, arguments that break
        the schema, a preview that refuses it), run without asking, or a question."""
        tool = tools.get(call.name)
        if tool is None and self.deferral is not None:
            tool = self.deferral.found_tool(call.name)  # found by a search of this round
        step = _Step(call, number, of, tool)
        refused = self._plan_refusal(call, tool)
        if refused is not None:  # for good: accepting a plan later in the answer lifts none
            step.result, step.plan_refused = refused, True
            return step
        checked = self._checked(call, tool)
        if isinstance(checked, ToolResult):
            step.result = checked
            return step
        assert tool is not None
        step.arguments = checked
        if not needs_approval(tool.spec):
            return step
        preview = _preview(tool, checked)
        if isinstance(preview, ToolResult):  # refused before anyone is asked
            step.result = preview
            return step
        lines, failed = preview
        choice = isinstance(tool, NetworkChoiceTool) and tool.asks_for_network(checked)
        note = PREVIEW_FAILED if failed else None
        step.request = ApprovalRequest(call, tool.spec, checked, lines, number, of, choice, note)
        return step

    async def _run_step(
        self, step: _Step, decision: Decision | None, tools: dict[str, Tool], state: _RoundState
    ) -> AsyncIterator[Event]:
        """One call of the round, in its turn. Planned again first when a search of this
        answer may have found its tool since, or when an earlier call ran and may have changed
        what it does (an edit of the text a call before it wrote is refused until then): a
        call whose preview now differs from the one answered is asked again, alone, so what
        runs is always what was shown."""
        if step.plan_refused:
            pass  # made while plan mode was on: the model had not seen a plan accepted
        elif step.tool is None or (step.result is not None and state.ran):
            step, decision = self._plan(step.call, tools, step.number, step.of), None
        elif decision is not None and decision.approved and state.ran and _previewed(step):
            again = self._plan(step.call, tools, step.number, step.of)
            if again.request is None or _changed(step.request, again.request):
                step, decision = again, None
                if step.request is not None:
                    note = f"{CHANGED}; {step.request.note}" if step.request.note else CHANGED
                    step.request = replace(step.request, note=note)
        if step.request is not None and decision is None:
            yield ApprovalAsked(step.request)
            decision = await ask(self.approver, step.request)
            self._record_decision(step.call, decision)
        async for event in self._execute(step, decision, state):
            yield event

    async def _execute(
        self, step: _Step, decision: Decision | None, state: _RoundState
    ) -> AsyncIterator[Event]:
        """Run the planned call as decided (refused, declined, stopped, approved, or needing
        no approval) and keep its result."""
        tool, request = step.tool, step.request
        # present_plan's dialog shows the whole plan: its line need not repeat it.
        asked = request is not None or (tool is self.present_plan and step.result is None)
        yield ToolCallStarted(step.call, tool.spec if tool else None, asked=asked)
        result = step.result
        if result is None and request is not None:
            assert decision is not None  # every question was answered before its call runs
            yield ApprovalAnswered(step.call, decision)
            if decision.stop_turn:
                state.stopped = True
                result = ToolResult(STOPPED, is_error=True)
            elif not decision.approved:
                result = _declined(decision)
            elif request.network_choice and decision.without_network:
                assert isinstance(tool, NetworkChoiceTool) and step.arguments is not None
                state.ran = True
                result = await _run_tool(step.arguments, tool.run_without_network)
        if result is None:
            assert tool is not None and step.arguments is not None
            state.ran = True
            result = await _run_tool(step.arguments, tool.run)
            if tool is self.present_plan and self.present_plan.take_stop():
                state.stopped = True  # the person stopped the turn at the plan
        self.history.add(tool_message(step.call, result))
        yield ToolFinished(step.call, result)

    async def _stop_all(
        self, steps: Sequence[_Step], decided: dict[int, Decision]
    ) -> AsyncIterator[Event]:
        """The person stopped the turn at the answer's question: nothing of the answer runs.
        Each call they said no to is answered so; the others get a result saying they were not
        run (the history stays valid), and no request follows."""
        rest: list[ToolCall] = []
        for step in steps:
            decision = decided.get(step.number)
            if decision is None or decision.approved or decision is NOT_ASKED_STOPPED:
                rest.append(step.call)
                self.history.add(
                    tool_message(step.call, ToolResult(NOT_RUN_STOPPED, is_error=True))
                )
                continue
            yield ToolCallStarted(step.call, step.tool.spec if step.tool else None, asked=True)
            yield ApprovalAnswered(step.call, decision)
            stopped = ToolResult(STOPPED, is_error=True)
            result = stopped if decision.stop_turn else _declined(decision)
            self.history.add(tool_message(step.call, result))
            yield ToolFinished(step.call, result)
        yield _stopped_notice(len(rest))
        yield TurnEnded("stopped")

    def _stop(self, rest: Sequence[ToolCall]) -> Notice:
        """The person stopped the turn at an approval: the answer's other calls get a result
        (the history stays valid) without being asked about, and no request follows."""
        for call in rest:
            self.history.add(tool_message(call, ToolResult(NOT_RUN_STOPPED, is_error=True)))
        return _stopped_notice(len(rest))

    def _plan_refusal(self, call: ToolCall, tool: Tool | None) -> ToolResult | None:
        """Plan mode's refusal of a call it does not admit: a tool it left out of the request
        (the model may name any tool it knows of), or one a search of this round found."""
        if not self.plan.on:
            return None
        if tool is None:
            try:
                tool = combine(self.toolsets).get(call.name)
            except AgentError:
                return None
            if tool is None:  # no such tool: said so as in the normal mode
                return None
        return None if self.plan.admits(tool) else self.plan.refusal(call.name)

    def _checked(self, call: ToolCall, tool: Tool | None) -> dict[str, Any] | ToolResult:
        """The call's arguments when it may be asked about; an error result when it cannot run
        as proposed (no such tool, broken JSON, arguments that break the schema)."""
        if tool is None:
            hint = self.deferral.hint(call.name) if self.deferral is not None else None
            return ToolResult(
                hint
                or f"there is no tool named {call.name!r}; use one of the tools of this request",
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
            self.history.add(Message("assistant", "".join(partial) + f"\n{note}"))
            partial.clear()

    def answer_dangling_calls(self, text: str) -> None:
        """Give every unanswered tool call of the last assistant message a result."""
        messages = list(self.history)
        for index in range(len(messages) - 1, -1, -1):
            message = messages[index]
            if message.role == "assistant" and message.tool_calls:
                answered = {m.tool_call_id for m in messages[index + 1 :] if m.role == "tool"}
                for call in message.tool_calls:
                    if call.id not in answered:
                        self.history.add(tool_message(call, ToolResult(text, is_error=True)))
                return
            if message.role == "user":
                return


async def _prepared(model: ChatModel) -> None:
    """Wait until the model can say its context window (litellm still loading), so the first
    request defers by the same measure as the later ones. The request waits for it anyway."""
    prepare = getattr(model, "prepare", None)
    if callable(prepare):
        await prepare()


def _preview(tool: Tool, arguments: dict[str, Any]) -> tuple[tuple[str, ...], bool] | ToolResult:
    """What the tool says it will do, for the approval, and whether its preview failed; or
    its refusal of a call that cannot run. A preview that fails shows the raw arguments
    instead, saying so (the person still sees exactly what is asked, and still decides)."""
    if not isinstance(tool, PreviewedTool):
        return (), False
    try:
        return tuple(tool.preview(arguments)), False
    except CallRefusedError as refused:
        return ToolResult(str(refused), is_error=True)
    except Exception:  # a broken preview must not hide the call: the raw arguments show
        return (), True


@dataclass
class _Step:
    """One call of a tool round as planned before anyone is asked."""

    call: ToolCall
    number: int  # its place among the answer's calls
    of: int  # how many calls the answer has
    tool: Tool | None
    arguments: dict[str, Any] | None = None
    result: ToolResult | None = None  # decided without asking: it cannot run as proposed
    request: ApprovalRequest | None = None  # what the person is asked
    plan_refused: bool = False  # refused by plan mode: never planned again in this answer


@dataclass
class _RoundState:
    ran: bool = False  # a call of this answer has run: later previews may have changed
    stopped: bool = False  # the person stopped the turn at a call asked on its own


def _alongside(steps: Sequence[_Step], start: int) -> list[_Step]:
    """The calls from `start` on that run at once: consecutive calls to tools that may run
    alongside each other, planned to run without a question (one alone runs as any other)."""
    together: list[_Step] = []
    for step in steps[start:]:
        tool = step.tool
        ready = step.request is None and step.result is None and step.arguments is not None
        if not (ready and isinstance(tool, ConcurrentTool) and tool.runs_alongside):
            break
        together.append(step)
    return together


def _previewed(step: _Step) -> bool:
    # Only a tool's preview can go stale: an MCP call is shown as its arguments, which stay.
    return step.request is not None and isinstance(step.tool, PreviewedTool)


def _changed(shown: ApprovalRequest | None, now: ApprovalRequest) -> bool:
    """What the call would do now differs from what the person answered."""
    if shown is None:
        return True
    return (shown.preview, shown.network_choice, shown.note) != (
        now.preview,
        now.network_choice,
        now.note,
    )


def _unasked(step: _Step) -> Unasked:
    """How the dialog shows a call of the answer it does not ask about."""
    if step.result is not None:
        again = " (checked again in its turn, after the calls before it)" if step.number > 1 else ""
        return Unasked(step.call, step.number, f"refused, not asked: {step.result.text}{again}")
    return Unasked(step.call, step.number, "needs no approval; runs in its turn")


def _declined(decision: Decision) -> ToolResult:
    reason = f" Their reason: {decision.reason}" if decision.reason else ""
    return ToolResult(f"The person declined this tool call.{reason}", is_error=True)


def _stopped_notice(not_run: int) -> Notice:
    skipped = f"; {plural(not_run, 'more tool call')} of this answer not run" if not_run else ""
    return Notice(f"Turn stopped{skipped}. The model gets no further round; say how to go on.")


async def _run_tool(
    arguments: dict[str, Any], run: Callable[[dict[str, Any]], Awaitable[ToolResult]]
) -> ToolResult:
    """`run` (a tool's run, or its run without the network), its failures made results."""
    try:
        return await run(dict(arguments))
    except AgentError as error:
        return ToolResult(str(error), is_error=True)
    except Exception as error:  # a bug in a tool must not end the chat; the model is told
        return ToolResult(
            f"the tool failed unexpectedly: {type(error).__name__}: {error}", is_error=True
        )
