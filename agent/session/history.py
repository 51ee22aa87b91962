"""Rebuilding a conversation from its events, repaired so every provider accepts it.

A tool call with no result (the app died mid-tool, or Ctrl-C) gets a synthetic "interrupted"
result; a tool result whose call is missing is dropped, with a note. Compaction events
replace the messages they summarised with session memory; the events themselves stay in the
file, so export still shows everything.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any

from agent.messages import Message, ToolCall, Usage
from agent.session.events import (
    MESSAGE_EVENTS,
    CompactionEvent,
    FileChangeEvent,
    ModelChangeEvent,
    PlanModeEvent,
    Recorded,
    SkillActivationEvent,
    SubagentEndEvent,
    SubagentEvent,
    SubagentStartEvent,
    TodosEvent,
    ToolsFoundEvent,
    UndoEvent,
    UsageEvent,
)
from agent.session.subagent_log import SubagentRecord, absorb_subagent_event
from agent.session.todos import TodoItem
from agent.skills.activation import SkillSnapshot
from agent.skills.names import skill_key
from agent.text import plural

INTERRUPTED_RESULT = "Error: interrupted before it finished (the session was resumed)"


@dataclass
class Rebuilt:
    """What a resumed conversation starts from."""

    messages: list[Message] = field(default_factory=list)
    numbers: list[int | None] = field(default_factory=list)  # each message's n in the file
    snapshots: list[SkillSnapshot] = field(default_factory=list)
    memory: str | None = None
    usage: Usage = field(default_factory=Usage)
    model: str | None = None
    message_count: int = 0
    notes: list[str] = field(default_factory=list)
    found_tools: list[str] = field(default_factory=list)  # deferred tools a search returned
    # Files changed by the tools, with when (the whole session's: compaction forgets none).
    file_changes: list[tuple[str | None, FileChangeEvent]] = field(default_factory=list)
    undone: set[int] = field(default_factory=set)  # numbers of the changes /undo took back
    # The session's subagents by number (for /agents and export; never part of `messages`).
    subagents: dict[int, SubagentRecord] = field(default_factory=dict)
    # The model's task list as last kept (compaction forgets it no more than the prompt does).
    todos: tuple[TodoItem, ...] = ()
    plan_mode: PlanModeEvent = field(default_factory=lambda: PlanModeEvent(False))  # the last


def rebuild(events: list[dict[str, Any]], model: str | None = None) -> Rebuilt:
    """Messages (after the last compaction), snapshots, memory, usage; repaired.

    An event that cannot be understood is skipped with a note rather than ending the resume.
    """
    rebuilt = Rebuilt(model=model)
    numbered: list[tuple[int, Message]] = []
    compacted_through = 0
    for event in events:
        try:
            through = _absorb(event, rebuilt, numbered)
        except ValueError:
            rebuilt.notes.append(f"an unreadable {event.get('type')!r} event was skipped")
            continue
        if through is not None:
            compacted_through = through
    kept: list[Numbered] = [(n, m) for n, m in numbered if n > compacted_through]
    repaired = repair_numbered(kept, rebuilt.notes)
    rebuilt.messages = [message for _, message in repaired]
    rebuilt.numbers = [number for number, _ in repaired]
    return rebuilt


def _absorb(
    data: dict[str, Any], rebuilt: Rebuilt, numbered: list[tuple[int, Message]]
) -> int | None:
    """Fold one event into `rebuilt`; returns a compaction's `through`, else None."""
    recorded = Recorded.from_json(data)
    event = recorded.event
    if isinstance(event, MESSAGE_EVENTS):
        number = recorded.n or len(numbered) + 1
        numbered.append((number, event.message()))
        rebuilt.message_count = max(rebuilt.message_count, number)
    elif isinstance(event, SkillActivationEvent):
        _keep_snapshot(rebuilt.snapshots, event.snapshot)
    elif isinstance(event, CompactionEvent):
        rebuilt.memory = event.summary
        return event.through or 0
    elif isinstance(event, UsageEvent):
        rebuilt.usage = rebuilt.usage + event.usage
    elif isinstance(event, ModelChangeEvent):
        rebuilt.model = event.to
    elif isinstance(event, ToolsFoundEvent):
        rebuilt.found_tools.extend(n for n in event.names if n not in rebuilt.found_tools)
    elif isinstance(event, FileChangeEvent):
        rebuilt.file_changes.append((recorded.at, event))
    elif isinstance(event, UndoEvent):
        rebuilt.undone.add(event.number)
    elif isinstance(event, SubagentStartEvent | SubagentEvent | SubagentEndEvent):
        absorb_subagent_event(event, rebuilt.subagents)
    elif isinstance(event, TodosEvent):
        rebuilt.todos = event.items
    elif isinstance(event, PlanModeEvent):
        rebuilt.plan_mode = event
    return None


def _keep_snapshot(snapshots: list[SkillSnapshot], snapshot: SkillSnapshot) -> None:
    """Each skill once, in first-activation order; a later activation (the person refreshing
    a changed skill) replaces the earlier snapshot in place, as ActiveSkills.activate does."""
    key = skill_key(snapshot.name)
    for index, existing in enumerate(snapshots):
        if skill_key(existing.name) == key:
            snapshots[index] = snapshot
            return
    snapshots.append(snapshot)


Numbered = tuple[int | None, Message]


def repair_numbered(messages: list[Numbered], notes: list[str]) -> list[Numbered]:
    """Every tool call answered right after its assistant message; orphan results dropped.

    Each message keeps its number in the file (None for the results this adds)."""
    repaired: list[Numbered] = []
    pending: list[ToolCall] = []  # calls of the last assistant message still unanswered

    def close_pending() -> None:
        for call in pending:
            repaired.append((None, Message("tool", INTERRUPTED_RESULT, tool_call_id=call.id)))
        if pending:
            notes.append(
                f"{plural(len(pending), 'tool call')} had no result (interrupted); marked as "
                "interrupted"
            )
        pending.clear()

    for number, message in messages:
        if message.role == "tool":
            match = next((c for c in pending if c.id == message.tool_call_id), None)
            if match is None:
                notes.append(
                    f"a tool result for an unknown call ({message.tool_call_id}) was dropped"
                )
                continue
            pending.remove(match)
            repaired.append((number, message))
            continue
        close_pending()
        repaired.append((number, message))
        if message.role == "assistant":
            pending = list(message.tool_calls)
    close_pending()
    return repaired
