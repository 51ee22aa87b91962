"""The task list in the session file: a `todos` event per kept update, read back as written,
the last one restored on resume (compaction forgets none), a malformed one skipped with a note,
and each update shown in the export."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.session.events import TodosEvent, event_from_json
from agent.session.export import export_markdown
from agent.session.history import rebuild
from agent.session.store import LoadedSession, SessionHeader
from agent.session.todos import TodoItem
from tests.session.session_helpers import MODEL, PROJECT, assistant, numbered, user

LIST = (TodoItem("Read the code", "done"), TodoItem("Write tests", "in_progress"))


def test_a_todos_event_is_written_as_its_items_and_read_back_the_same() -> None:
    event = TodosEvent(LIST)

    data = event.to_json()

    assert data == {
        "type": "todos",
        "todos": [
            {"text": "Read the code", "status": "done"},
            {"text": "Write tests", "status": "in_progress"},
        ],
    }
    assert event_from_json(data) == event


def test_resume_restores_the_last_list_even_after_a_compaction() -> None:
    events = [
        user("plan"),
        TodosEvent((TodoItem("first", "in_progress"),)).to_json(),
        assistant("ok"),
        TodosEvent(LIST).to_json(),
        {"type": "compaction", "summary": "- planned", "through": 2},
        user("go on"),
    ]

    rebuilt = rebuild(numbered(events))

    assert rebuilt.todos == LIST and rebuilt.notes == []


@pytest.mark.parametrize(
    "bad",
    [
        {"type": "todos"},
        {"type": "todos", "todos": "read the code"},
        {"type": "todos", "todos": [{"text": "a", "status": "doing"}]},
        {"type": "todos", "todos": [{"text": 3, "status": "done"}]},
        {"type": "todos", "todos": [{"text": "a", "status": "in_progress"}] * 2},
        {"type": "todos", "todos": [{"text": "a", "status": "done"}] * 51},
    ],
)
def test_a_malformed_todos_event_is_skipped_with_a_note_and_the_last_good_list_stays(
    bad: dict[str, object],
) -> None:
    events = [user("plan"), TodosEvent(LIST).to_json(), bad, assistant("ok")]

    rebuilt = rebuild(numbered(events))

    assert rebuilt.todos == LIST
    assert rebuilt.notes == ["an unreadable 'todos' event was skipped"]
    assert [m.content for m in rebuilt.messages] == ["plan", "ok"]


def test_the_export_shows_each_update_as_a_checklist_with_hostile_text_escaped() -> None:
    hostile = TodoItem("![x](https://evil.example/?d=1) \x1b[2J`tick`", "pending")
    header = SessionHeader("20261129-143501-3f9a2c", "2026-11-29T14:35:01", PROJECT, MODEL, "0")
    stamped = [
        {"at": "2026-11-29T14:36:00", **event}
        for event in numbered([user("plan"), TodosEvent((*LIST, hostile)).to_json()])
    ]
    loaded = LoadedSession(Path("unused.jsonl"), header, stamped, [])

    markdown = export_markdown(loaded)

    assert (
        "**Task list** (update_todos):\n\n"
        "- [x] Read the code\n"
        "- [ ] **in progress:** Write tests\n"
        "- [ ] \\!\\[x\\](https://evil.example/?d=1) \\\\x1b\\[2J\\`tick\\`"
    ) in markdown
    assert "\x1b" not in markdown


def test_an_empty_list_is_exported_as_cleared() -> None:
    header = SessionHeader("20261129-143501-3f9a2c", "2026-11-29T14:35:01", PROJECT, MODEL, "0")
    stamped = [{"at": "2026-11-29T14:36:00", **TodosEvent(()).to_json()}]

    markdown = export_markdown(LoadedSession(Path("unused.jsonl"), header, stamped, []))

    assert "**Task list** (update_todos): cleared." in markdown
