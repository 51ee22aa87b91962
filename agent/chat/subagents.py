"""Subagents: a task handed by the model (`delegate`) to a conversation of its own, with a
fresh context, its own tool loop and its own kind's tools, whose final answer alone comes back
as the tool's result. The chat's context grows by that answer, not by what it read.

Everything a subagent does is the chat's: its calls ask the person through the chat's
approver, naming it (agent.chat.subagent_approval); its events go to the session file under its
number (SubagentEvent), so resume and export show them and a resumed session never runs it
again; its requests' usage counts into the session's as they happen; Ctrl-C cancels the turn
and with it every subagent (each keeps its history valid and records how it ended).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Protocol

import anyio

from agent.chat.approval import Approver
from agent.chat.conversation import Conversation
from agent.chat.delegate import DelegateToolset
from agent.chat.events import (
    Event,
    ToolCallStarted,
    ToolFinished,
    TurnEnded,
    TurnFailed,
    UsageReported,
)
from agent.chat.history import Recorder
from agent.chat.prompt import NamedSection, SystemPrompt
from agent.chat.subagent_approval import AskingAs
from agent.chat.subagent_kinds import AgentDefinition, AllowedTools, SubagentKind, kinds_from
from agent.errors import AgentError
from agent.messages import ToolResult, Usage
from agent.model import ChatModel
from agent.session.events import (
    SessionEvent,
    SkillActivationEvent,
    SubagentEndEvent,
    SubagentEvent,
    SubagentStartEvent,
)
from agent.session.subagent_log import SubagentRecord
from agent.skills.activation import SkillSnapshot
from agent.skills.tools import SkillSession
from agent.text import plural
from agent.tools.base import Toolset
from agent.tools.deferral import ToolDeferral

# The answer a parent receives is bounded: a subagent exists to keep its reads out of the
# parent's context, and an answer as long as the files would defeat it.
MAX_ANSWER_CHARS = 16_000
RUNNING = "running"
# Subagents running at once, nested ones included: one answer cannot start hundreds of
# conversations that each ask the model unasked. Refused, not queued: a parent waiting on its
# children while holding a place could never let them start.
MAX_RUNNING = 8


class SubagentListener(Protocol):
    """A front end following the subagents (the terminal's lines, `agent -p`'s stderr)."""

    def started(self, run: SubagentRun) -> None: ...
    def updated(self, run: SubagentRun) -> None: ...
    def ended(self, run: SubagentRun) -> None: ...


@dataclass
class SubagentRun:
    """One subagent of this chat, running or ended."""

    number: int
    label: str  # `explore #2`; nested: `general #1 › explore #3`
    kind: str
    task: str
    model: str
    depth: int
    parent: int | None = None
    status: str = RUNNING  # then: answered, stopped, failed, round_limit, interrupted
    current_tool: str | None = None
    usage: Usage = field(default_factory=Usage)
    requests: int = 0  # its model requests so far
    answer: str = ""
    conversation: Conversation | None = None  # its messages, for /agents

    def record(self) -> SubagentRecord:
        """As a session file keeps it (what /agents shows of an ended one)."""
        messages = list(self.conversation.history) if self.conversation else []
        return SubagentRecord(
            self.number, self.label, self.kind, self.task, self.model, self.parent,
            self.status, self.answer, self.usage, messages,
        )  # fmt: skip


@dataclass(frozen=True)
class SubagentContext:
    """What of the chat its subagents use, given by chat/build.py."""

    project: Path
    model: Callable[[], ChatModel]  # the chat's model now (/model switches it)
    model_name: Callable[[], str]
    model_named: Callable[[str], ChatModel]  # a definition's own model
    toolsets: Sequence[Toolset]  # the chat's tools a subagent may get (its kind chooses)
    skills: SkillSession  # the chat's skills: a subagent activates them in a fork of its own
    approver: Approver  # the person's
    prompt_sections: Callable[[], Sequence[NamedSection]]  # instruction files, skills, ...
    recorder: Recorder  # the session's
    count_usage: Callable[[Usage], None]  # into the session's usage, as it happens
    deferral: Callable[[], ToolDeferral | None]  # a subagent's own (what it finds is its own)
    definitions: Callable[[], Sequence[AgentDefinition]] = lambda: ()
    max_tool_rounds: int = 25


class Subagents:
    """The chat's subagents: the kinds it offers, those that ran, and running one."""

    def __init__(self, context: SubagentContext) -> None:
        self.context = context
        self.runs: list[SubagentRun] = []
        self.earlier: list[SubagentRecord] = []  # a resumed session's, from its file
        self.listeners: list[SubagentListener] = []
        self._turn = anyio.Lock()  # one question at a time, whichever subagent asks
        self._next = 1

    def kinds(self) -> dict[str, SubagentKind]:
        return kinds_from(self.context.definitions())

    def records(self) -> list[SubagentRecord]:
        """Every subagent of this session, the resumed file's first."""
        return [*self.earlier, *(run.record() for run in self.runs)]

    def restore(self, records: dict[int, SubagentRecord]) -> None:
        """A resumed session's subagents: listed, never run again; numbers go on after them."""
        self.runs = []
        self.earlier = sorted(records.values(), key=lambda record: record.number)
        self._next = max(records, default=0) + 1

    def reset(self) -> None:
        """/new: a new session numbers its subagents from 1."""
        self.runs, self.earlier, self._next = [], [], 1

    async def run(
        self,
        kind_name: str,
        task: str,
        servers: frozenset[str],
        depth: int,
        parent: SubagentRun | None,
    ) -> ToolResult:
        """Run one subagent to its answer (the parent's tool result)."""
        kind = self.kinds().get(kind_name)
        if kind is None:
            known = ", ".join(self.kinds())
            return ToolResult(f"no subagent kind {kind_name!r}; the kinds are: {known}", True)
        if sum(run.status == RUNNING for run in self.runs) >= MAX_RUNNING:
            return ToolResult(
                f"not started: {MAX_RUNNING} subagents are running already; wait for their "
                "answers, then start more",
                True,
            )
        run = self._start(kind, task, depth, parent)
        ending: list[Event] = []
        try:
            conversation = run.conversation = self._conversation(run, kind, servers)
            async for event in conversation.turn(task):
                self._follow(run, event, ending)
            run.status = _status(ending)
            run.answer = _answer(conversation, ending)
        except AgentError as error:  # its definition's model cannot be made, say
            run.status, run.answer = "failed", str(error)
        finally:
            self._end(run)
        return ToolResult(_result_text(run), is_error=run.status != "answered")

    def _start(
        self, kind: SubagentKind, task: str, depth: int, parent: SubagentRun | None
    ) -> SubagentRun:
        number, self._next = self._next, self._next + 1
        label = f"{kind.name} #{number}"
        if parent is not None:
            label = f"{parent.label} › {label}"
        model = kind.model or self.context.model_name()
        parent_number = None if parent is None else parent.number
        run = SubagentRun(number, label, kind.name, task, model, depth, parent_number)
        self.runs.append(run)
        self.context.recorder.record(
            SubagentStartEvent(number, label, kind.name, task, model, run.parent)
        )
        for listener in self.listeners:
            listener.started(run)
        return run

    def _conversation(
        self, run: SubagentRun, kind: SubagentKind, servers: frozenset[str]
    ) -> Conversation:
        context = self.context
        recorder = _Tagged(context.recorder, run.number)
        skills = context.skills.fork()
        skills.on_activate = recorder.activated
        toolsets: list[Toolset] = [
            AllowedTools(toolset, lambda tool: kind.allows(tool, servers))
            for toolset in (*context.toolsets, skills)
        ]
        if kind.may_delegate(run.depth):
            toolsets.append(DelegateToolset(self, run.depth + 1, run))
        model = context.model() if kind.model is None else context.model_named(kind.model)
        prompt = SystemPrompt(
            context.project,
            [
                ("subagent", lambda: _preamble(run, kind, servers)),
                *context.prompt_sections(),
                ("skills catalog", skills.catalog_section),
                ("active skills", skills.active_section),
            ],
        )
        return Conversation(
            model,
            toolsets,
            AskingAs(context.approver, run.label, self._turn),
            prompt.render,
            max_tool_rounds=context.max_tool_rounds,
            recorder=recorder,
            deferral=context.deferral(),
        )

    def _follow(self, run: SubagentRun, event: Event, ending: list[Event]) -> None:
        """What the front ends show of a running subagent: its current tool and tokens."""
        if isinstance(event, ToolCallStarted):
            run.current_tool = event.call.name
        elif isinstance(event, ToolFinished):
            run.current_tool = None
        elif isinstance(event, UsageReported):
            run.usage, run.requests = event.session, run.requests + 1
            self.context.count_usage(event.request)
        elif isinstance(event, TurnEnded | TurnFailed):
            ending.append(event)
            return
        else:
            return
        for listener in self.listeners:
            listener.updated(run)

    def _end(self, run: SubagentRun) -> None:
        """Record how it ended, whatever ended it (Ctrl-C included: then `interrupted`), so
        it never stays counted as running."""
        if run.status == RUNNING:
            run.status = "interrupted"
        run.current_tool = None
        usage = run.conversation.usage if run.conversation is not None else Usage()
        self.context.recorder.record(SubagentEndEvent(run.number, run.status, run.answer, usage))
        for listener in self.listeners:
            listener.ended(run)


@dataclass(frozen=True)
class _Tagged:
    """The session's recorder, keeping a subagent's events under its number."""

    recorder: Recorder
    agent: int

    def record(self, event: SessionEvent) -> int | None:
        self.recorder.record(SubagentEvent(self.agent, event))
        return None

    def activated(self, snapshot: SkillSnapshot) -> None:
        """A skill the subagent activated, kept under its number (never the chat's)."""
        self.record(SkillActivationEvent(snapshot))


def _preamble(run: SubagentRun, kind: SubagentKind, servers: frozenset[str]) -> str:
    lines = [
        f"You are a subagent ({run.label}): another conversation of agent gave you one task, "
        "its message below. Do it with your tools, then answer with a concise, complete "
        "summary of what you found or did, with the paths, names and facts the other "
        "conversation needs: your final answer is all it receives (it never sees your tool "
        "results). Nobody reads along to answer questions; say what is missing instead."
    ]
    if kind.read_only:
        named = ", ".join(sorted(servers)) or "none"
        lines.append(
            "You are read-only: you can read, list and search files, and call the tools of "
            f"the MCP servers the task named ({named}); you cannot change anything."
        )
    if kind.instructions:
        lines.append(kind.instructions)
    return "\n\n".join(lines)


def _status(ending: list[Event]) -> str:
    ended = next((e for e in ending if isinstance(e, TurnEnded)), None)
    if ended is None:
        return "interrupted"
    if any(isinstance(e, TurnFailed) for e in ending):
        return "failed"
    return ended.reason


def _answer(conversation: Conversation, ending: list[Event]) -> str:
    """Its last words: the last answer's text, or why it failed."""
    failure = next((e.message for e in ending if isinstance(e, TurnFailed)), None)
    last = next(
        (m.content for m in reversed(conversation.history) if m.role == "assistant" and m.content),
        None,
    )
    if failure is not None:
        return f"{failure}" + (f"\n\nIts last words before that:\n{last}" if last else "")
    return last or ""


def _result_text(run: SubagentRun) -> str:
    """The tool result the parent reads: the answer, bounded, and how the subagent ended when
    it did not answer."""
    answer = run.answer
    if len(answer) > MAX_ANSWER_CHARS:
        cut = plural(len(answer), "character")
        answer = f"{answer[:MAX_ANSWER_CHARS]}\n[the answer was cut here: it had {cut}]"
    headline = {
        "answered": "",
        "stopped": "The person stopped this subagent at one of its calls.",
        "round_limit": "This subagent reached its limit of tool rounds before answering.",
        "failed": "This subagent failed.",
        "interrupted": "This subagent was interrupted.",
    }.get(run.status, f"This subagent ended: {run.status}.")
    if not answer:
        answer = "(it gave no answer)"
    return f"{headline}\n\n{answer}" if headline else answer
