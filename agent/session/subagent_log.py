"""A session's subagents as its file records them: who each was, its task, its own messages,
how it ended and what it cost. Rebuilt on resume (for `/agents` and export) and never put
back into the chat's history: the chat keeps only each subagent's answer, as its tool result,
so a resumed session never runs a subagent again."""

from __future__ import annotations

from dataclasses import dataclass, field

from agent.messages import Message, Usage
from agent.session.events import (
    MESSAGE_EVENTS,
    SubagentEndEvent,
    SubagentEvent,
    SubagentStartEvent,
    UsageEvent,
)

# How a subagent that has no end event in the file ended: the program died (or was killed)
# while it ran; its parent's tool call was answered as interrupted on resume.
UNFINISHED = "interrupted"


@dataclass
class SubagentRecord:
    """One subagent of a session."""

    number: int
    label: str
    kind: str
    task: str
    model: str
    parent: int | None = None
    status: str = UNFINISHED
    answer: str = ""
    usage: Usage = field(default_factory=Usage)
    messages: list[Message] = field(default_factory=list)


def absorb_subagent_event(
    event: SubagentStartEvent | SubagentEvent | SubagentEndEvent,
    records: dict[int, SubagentRecord],
) -> None:
    """Fold one subagent event into `records` (by number). An event for a subagent whose
    start is missing (a hand-edited file) is dropped: there is nothing to show it under."""
    if isinstance(event, SubagentStartEvent):
        records[event.agent] = SubagentRecord(
            event.agent, event.label, event.agent_kind, event.task, event.model, event.parent
        )
        return
    record = records.get(event.agent)
    if record is None:
        return
    if isinstance(event, SubagentEndEvent):
        record.status, record.answer, record.usage = event.status, event.answer, event.usage
        return
    inner = event.event
    if isinstance(inner, MESSAGE_EVENTS):
        record.messages.append(inner.message())
    elif isinstance(inner, UsageEvent) and record.status == UNFINISHED:
        record.usage = record.usage + inner.usage  # the end event, when there is one, says all
