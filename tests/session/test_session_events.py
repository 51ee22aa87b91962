"""Typed session events keep the file format: a session written before they existed loads,
rebuilds and exports as it did, and writing its events again gives the same lines.

The fixture files were made by the app as of v0.1.0 (dict events): the .jsonl by its
SessionWriter, the .md by its export_markdown of that file.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.messages import Message, ToolCall, Usage
from agent.session.events import (
    AssistantEvent,
    ModelChangeEvent,
    UnknownEvent,
    UsageEvent,
    event_from_json,
    message_event,
)
from agent.session.export import export_markdown
from agent.session.history import rebuild
from agent.session.store import SessionWriter, load_session

FIXTURES = Path(__file__).parent / "fixtures"
OLD_SESSION = FIXTURES / "session-written-by-v0.1.0.jsonl"


def test_a_session_written_before_typed_events_rebuilds_the_same_conversation() -> None:
    loaded = load_session(OLD_SESSION)

    rebuilt = rebuild(loaded.events, loaded.header.model)

    assert loaded.notes == [] and rebuilt.notes == []
    assert rebuilt.messages == [
        # Saved with empty arguments; sent on as "{}", which every provider accepts.
        Message("assistant", None, (ToolCall("call_3", "read_file", "{}"),)),
        Message("tool", "Error: interrupted by the user before it finished", tool_call_id="call_3"),
        Message("assistant", "Fixed."),
        Message("user", "thanks"),
        Message("assistant", "You are welcome."),
    ]
    assert (rebuilt.numbers, rebuilt.message_count) == ([5, 6, 7, 8, 9], 9)
    assert (rebuilt.memory, rebuilt.model) == (
        "- The person wants main.py fixed.",
        "openai/other-model",
    )
    assert rebuilt.usage == Usage(170, 35, 0.002)
    assert [s.name for s in rebuilt.snapshots] == ["review"]


def test_a_session_written_before_typed_events_exports_the_same_markdown() -> None:
    skipped: list[str] = []

    markdown = export_markdown(load_session(OLD_SESSION), skipped)

    assert (markdown, skipped) == ((FIXTURES / "session-written-by-v0.1.0.md").read_text(), [])


def test_writing_the_typed_events_of_an_old_session_again_gives_the_same_lines(
    tmp_path: Path,
) -> None:
    old = load_session(OLD_SESSION)
    writer = SessionWriter.create(Path(old.header.project), old.header.model, tmp_path)
    for data in old.events:
        writer.record(event_from_json(data))
    writer.close()

    def lines_without_time(path: Path) -> list[str]:
        lines = path.read_text(encoding="utf-8").splitlines()[1:]  # after the header
        return [line.split(", ", 1)[1] for line in lines]  # "at" is each line's first field

    assert lines_without_time(writer.path) == lines_without_time(OLD_SESSION)


def test_history_messages_become_events_and_come_back_unchanged() -> None:
    messages = [
        Message("user", "hi"),
        Message("assistant", "calling", (ToolCall("c1", "t", '{"a": 1}'),)),
        Message("tool", "done", tool_call_id="c1"),
        Message("assistant", "bye"),
    ]

    events = [message_event(message) for message in messages]

    assert [event_from_json(e.to_json()) for e in events] == events
    assert [e.message() for e in events] == messages


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        ({"type": "user", "content": 5}, "'content' must be str, not int"),
        ({"type": "assistant", "tool_calls": "abc"}, "'tool_calls' must be list, not str"),
        ({"type": "assistant", "tool_calls": [{"id": "c", "name": 3}]}, "'name' must be str"),
        ({"type": "assistant", "tool_calls": [1]}, "a tool call must be an object"),
        ({"type": "tool_result", "content": "x"}, "'tool_call_id' is missing"),
        ({"type": "approval", "approved": "yes"}, "'approved' must be bool, not str"),
        ({"type": "usage", "prompt_tokens": True}, "'prompt_tokens' must be int, not a boolean"),
        ({"type": "usage", "cost_usd": "1"}, "'cost_usd' must be int or float, not str"),
        ({"type": "skill_activation", "snapshot": "nope"}, "'snapshot' must be dict, not str"),
        ({"type": "skill_activation", "snapshot": {"name": "x"}}, "'scope' is missing"),
        ({"type": "compaction", "through": "5"}, "'through' must be int, not str"),
        ({"type": "model_change", "from": "a"}, "'to' is missing"),
    ],
)
def test_an_event_with_a_wrongly_typed_field_is_a_value_error_naming_the_field(
    data: dict[str, object], problem: str
) -> None:
    with pytest.raises(ValueError) as raised:
        event_from_json(data)

    assert problem in str(raised.value)


def test_fields_left_out_take_the_defaults_the_readers_always_used() -> None:
    assert event_from_json({"type": "assistant"}) == AssistantEvent(None)
    assert event_from_json({"type": "usage"}) == UsageEvent(Usage(0, 0, None))
    assert event_from_json({"type": "model_change", "to": "m"}) == ModelChangeEvent(None, "m")


def test_an_event_of_an_unknown_kind_is_kept_as_saved_without_its_time() -> None:
    data = {"at": "2026-01-01T00:00:00.000+00:00", "type": "from_the_future", "x": [1]}

    event = event_from_json(data)

    assert event == UnknownEvent({"type": "from_the_future", "x": [1]})
    assert json.dumps(event.to_json()) == '{"type": "from_the_future", "x": [1]}'


def test_the_last_plan_mode_event_is_the_mode_a_rebuilt_session_resumes_in() -> None:
    from agent.session.events import PlanModeEvent

    on = PlanModeEvent(True, mcp=True)
    assert event_from_json(on.to_json()) == on
    assert event_from_json({"type": "plan_mode", "on": False}) == PlanModeEvent(False)
    with pytest.raises(ValueError, match="'on' must be bool, not str"):
        event_from_json({"type": "plan_mode", "on": "yes"})

    assert rebuild([]).plan_mode == PlanModeEvent(False)
    assert rebuild([PlanModeEvent(False).to_json(), on.to_json()]).plan_mode == on
    assert rebuild([on.to_json(), PlanModeEvent(False).to_json()]).plan_mode.on is False
