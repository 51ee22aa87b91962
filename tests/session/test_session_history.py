"""Rebuilding a conversation from its events: repaired for providers, compacted as recorded."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.messages import Message, ToolCall
from agent.session.compaction import split_point
from agent.session.events import MESSAGE_EVENTS, CompactionEvent, event_from_json, message_event
from agent.session.history import INTERRUPTED_RESULT, rebuild
from agent.session.store import SessionWriter, load_session
from agent.skills.activation import SkillSnapshot
from tests.session.session_helpers import (
    MODEL,
    assistant,
    history_problems,
    numbered,
    result,
    snapshot,
    snapshot_event,
    turn_events,
    user,
)


def test_tool_calls_left_without_results_get_an_interrupted_result_where_they_belong() -> None:
    events = numbered(
        [
            user("list and read"),
            assistant(None, ("c1", "list", "{}"), ("c2", "read", "{}")),
            result("c1", "a.txt"),
            user("are you there?"),  # the app died while c2 ran; the person went on later
            assistant(None, ("c3", "read", "{}")),
        ]
    )

    rebuilt = rebuild(events)

    calls = (ToolCall("c1", "list"), ToolCall("c2", "read"))
    assert rebuilt.messages == [
        Message("user", "list and read"),
        Message("assistant", None, calls),
        Message("tool", "a.txt", tool_call_id="c1"),
        Message("tool", INTERRUPTED_RESULT, tool_call_id="c2"),
        Message("user", "are you there?"),
        Message("assistant", None, (ToolCall("c3", "read"),)),
        Message("tool", INTERRUPTED_RESULT, tool_call_id="c3"),
    ]
    assert rebuilt.notes == [
        "1 tool call had no result (interrupted); marked as interrupted",
        "1 tool call had no result (interrupted); marked as interrupted",
    ]
    assert history_problems(rebuilt.messages) == []


def test_tool_results_without_their_call_are_dropped_with_a_note() -> None:
    events = numbered(
        [
            user("hi"),
            result("ghost", "from nowhere"),
            assistant(None, ("c1", "list", "{}")),
            result("c1", "a.txt"),
            result("c1", "answered twice"),
            assistant("done"),
        ]
    )

    rebuilt = rebuild(events)

    assert rebuilt.messages == [
        Message("user", "hi"),
        Message("assistant", None, (ToolCall("c1", "list"),)),
        Message("tool", "a.txt", tool_call_id="c1"),
        Message("assistant", "done"),
    ]
    assert rebuilt.notes == [
        "a tool result for an unknown call (ghost) was dropped",
        "a tool result for an unknown call (c1) was dropped",
    ]


def test_a_compaction_replaces_the_messages_it_summarised_with_memory_and_keeps_skills() -> None:
    events = numbered(
        [
            snapshot_event("review", "Be thorough."),
            *[e for e in turn_events(0) if e["type"] != "approval"],
            {"type": "compaction", "summary": "first memory", "through": 5},
            *turn_events(1),
            {"type": "compaction", "summary": "second memory", "through": 10},
            user("latest"),
        ]
    )

    rebuilt = rebuild(events)

    assert rebuilt.messages == [Message("user", "latest")]
    assert rebuilt.memory == "second memory"
    assert rebuilt.snapshots == [SkillSnapshot.from_json(snapshot("review", "Be thorough."))]
    assert (rebuilt.message_count, rebuilt.notes) == (11, [])


def test_activating_a_changed_skill_again_replaces_its_snapshot_in_place() -> None:
    events = [
        snapshot_event("review", "old body"),
        snapshot_event("tests", "run them"),
        snapshot_event("review", "new body"),
    ]

    rebuilt = rebuild(events)

    assert rebuilt.snapshots == [
        SkillSnapshot.from_json(snapshot("review", "new body")),
        SkillSnapshot.from_json(snapshot("tests", "run them")),
    ]


def test_a_model_change_is_the_model_a_resumed_chat_continues_with() -> None:
    events = [user("hi"), {"type": "model_change", "from": MODEL, "to": "openai/next"}]

    assert rebuild(events, MODEL).model == "openai/next"
    assert rebuild(events[:1], MODEL).model == MODEL


def history_with_tools(turns: int) -> list[Message]:
    """The messages of `turns` whole turns, each with two tool calls and their results."""
    events = [event_from_json(data) for i in range(turns) for data in turn_events(i)]
    return [event.message() for event in events if isinstance(event, MESSAGE_EVENTS)]


@pytest.mark.parametrize("keep", [1, 2, 3])
def test_compaction_never_splits_a_tool_call_from_its_result(keep: int, tmp_path: Path) -> None:
    history = history_with_tools(4)
    cut = split_point(history, keep)
    writer = SessionWriter.create(Path("/p"), MODEL, tmp_path)
    for message in history:
        writer.record(message_event(message))
    writer.record(CompactionEvent(f"kept {keep}", cut))
    writer.close()

    rebuilt = rebuild(load_session(writer.path).events)

    assert cut > 0 and history[cut].role == "user"
    assert (history_problems(history[:cut]), history_problems(history[cut:])) == ([], [])
    assert rebuilt.messages == history[cut:]
    assert (rebuilt.memory, rebuilt.notes) == (f"kept {keep}", [])


def test_there_is_nothing_to_compact_while_the_history_is_within_the_turns_kept() -> None:
    history = history_with_tools(4)

    assert [split_point(history, keep) for keep in (4, 5)] == [0, 0]
