"""The session file: what goes in comes back out, damage is skipped and said, listing is cheap."""

from __future__ import annotations

import json
import os
import stat
import time
from pathlib import Path
from typing import Any

import pytest

from agent.messages import Message, ToolCall, Usage
from agent.session.events import event_from_json
from agent.session.history import rebuild
from agent.session.store import (
    SessionError,
    SessionWriter,
    find_session,
    list_sessions,
    load_session,
    summarize,
)
from agent.skills.activation import SkillSnapshot
from tests.cost_meters import bytes_read
from tests.session.session_helpers import (
    MODEL,
    approval,
    assistant,
    result,
    snapshot,
    snapshot_event,
    usage,
    user,
    without_stamps,
)

TORN_NOTE = "the last line was cut off (the app stopped mid-write); it was ignored"


def write_session(folder: Path, events: list[dict[str, Any]], project: str = "/p") -> Path:
    writer = SessionWriter.create(Path(project), MODEL, folder)
    for event in events:
        writer.record(event_from_json(event))
    writer.close()
    return writer.path


EVERY_EVENT_TYPE: list[dict[str, Any]] = [
    snapshot_event("review", "Check the tests first.\n"),
    user("Please look at main.py\nand fix it"),
    assistant(
        "Reading it.",
        ("call_1", "mcp__fx__echo", '{"text": "hi"}'),
        ("call_2", "mcp__fx__add", '{"a": 1, "b": 2}'),
    ),
    approval("call_1", "mcp__fx__echo", True, None),
    result("call_1", "hi"),
    approval("call_2", "mcp__fx__add", False, "not now"),
    result("call_2", "Error: The person declined this tool call. Their reason: not now"),
    assistant("Fixed, ünïcode and all ✓."),
    usage(120, 30, 0.002),
    {"type": "compaction", "summary": "- The person wants main.py fixed.", "through": 5},
    {"type": "model_change", "from": MODEL, "to": "openai/other-model"},
    user("thanks"),
    assistant("You are welcome."),
    usage(80, 5, None),
]


def test_every_event_type_round_trips_through_the_file_and_rebuilds_the_conversation(
    tmp_path: Path,
) -> None:
    path = write_session(tmp_path, EVERY_EVENT_TYPE)

    loaded = load_session(path)
    rebuilt = rebuild(loaded.events, loaded.header.model)

    assert (loaded.notes, [without_stamps(e) for e in loaded.events]) == ([], EVERY_EVENT_TYPE)
    assert all("at" in event for event in loaded.events)
    assert [e["n"] for e in loaded.events if "n" in e] == [1, 2, 3, 4, 5, 6, 7]
    assert (loaded.header.project, loaded.header.model) == ("/p", MODEL)
    assert rebuilt.messages == [Message("user", "thanks"), Message("assistant", "You are welcome.")]
    assert rebuilt.snapshots == [
        SkillSnapshot.from_json(snapshot("review", "Check the tests first.\n"))
    ]
    assert rebuilt.memory == "- The person wants main.py fixed."
    assert rebuilt.usage == Usage(200, 35, 0.002)
    assert (rebuilt.model, rebuilt.message_count, rebuilt.notes) == ("openai/other-model", 7, [])


def test_without_compaction_every_message_comes_back_in_order(tmp_path: Path) -> None:
    path = write_session(tmp_path, EVERY_EVENT_TYPE[:9])

    rebuilt = rebuild(load_session(path).events)

    assert rebuilt.messages == [
        Message("user", "Please look at main.py\nand fix it"),
        Message(
            "assistant",
            "Reading it.",
            (
                ToolCall("call_1", "mcp__fx__echo", '{"text": "hi"}'),
                ToolCall("call_2", "mcp__fx__add", '{"a": 1, "b": 2}'),
            ),
        ),
        Message("tool", "hi", tool_call_id="call_1"),
        Message(
            "tool",
            "Error: The person declined this tool call. Their reason: not now",
            tool_call_id="call_2",
        ),
        Message("assistant", "Fixed, ünïcode and all ✓."),
    ]


def test_a_lone_surrogate_in_a_tool_result_is_saved_and_read_back_unchanged(
    tmp_path: Path,
) -> None:
    events = [
        user("decode this"),
        assistant(None, ("c1", "t", "{}")),
        result("c1", "bad \udc80 byte"),
    ]

    path = write_session(tmp_path, events)

    assert [without_stamps(e) for e in load_session(path).events] == events


def test_session_files_are_private_and_no_temporary_file_is_left_behind(tmp_path: Path) -> None:
    folder = tmp_path / "sessions"

    path = write_session(folder, [user("secret plans")])

    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700
    assert sorted(p.name for p in folder.iterdir()) == [path.name]


def test_a_torn_last_line_is_ignored_with_a_note(tmp_path: Path) -> None:
    path = write_session(tmp_path, [user("one"), assistant("two")])
    with path.open("ab") as handle:
        handle.write(b'{"at": "2026-01-01T00:00:00.000+00:00", "type": "user", "cont')

    loaded = load_session(path)

    assert [without_stamps(e) for e in loaded.events] == [user("one"), assistant("two")]
    assert loaded.notes == [TORN_NOTE]


def test_a_garbage_line_in_the_middle_is_skipped_with_a_note_and_the_rest_loads(
    tmp_path: Path,
) -> None:
    path = write_session(tmp_path, [user("one")])
    with path.open("ab") as handle:
        handle.write(b"\x00\xff not json\n[1, 2]\n")
    writer = SessionWriter.append_to(path, load_session(path).header, 1)
    writer.record(event_from_json(assistant("two")))
    writer.close()

    loaded = load_session(path)

    assert [without_stamps(e) for e in loaded.events] == [user("one"), assistant("two")]
    assert loaded.notes == [
        "line 3 could not be read and was skipped",
        "line 4 is not an event and was skipped",
    ]


def test_a_writer_resumed_after_a_torn_line_keeps_later_events_readable(tmp_path: Path) -> None:
    path = write_session(tmp_path, [user("one"), assistant(None, ("c1", "t", "{}"))])
    with path.open("ab") as handle:
        handle.write(b'{"at": "2026-01-01T00:00:00.000+00:00", "type": "tool_res')
    loaded = load_session(path)
    count = rebuild(loaded.events).message_count

    writer = SessionWriter.append_to(path, loaded.header, count)
    writer.record(event_from_json(result("c1", "late")))
    writer.record(event_from_json(assistant("done")))
    writer.close()
    reloaded = load_session(path)

    assert [without_stamps(e) for e in reloaded.events] == [
        user("one"),
        assistant(None, ("c1", "t", "{}")),
        result("c1", "late"),
        assistant("done"),
    ]
    assert [e["n"] for e in reloaded.events] == [1, 2, 3, 4]
    assert reloaded.notes == ["line 4 could not be read and was skipped"]
    assert rebuild(reloaded.events).notes == []


def test_a_file_without_a_header_is_not_a_session(tmp_path: Path) -> None:
    path = tmp_path / "20260101-000000-abcdef.jsonl"
    path.write_text('{"type": "user", "content": "hi"}\n')

    with pytest.raises(SessionError) as raised:
        load_session(path)

    assert str(raised.value) == f"{path}: not a session file (its first line is not a header)"


def test_listing_a_thousand_sessions_reads_only_their_heads_and_tails(tmp_path: Path) -> None:
    middle = "m" * 48 * 1024  # each file is far bigger than the head and tail read
    expected = []
    for index in range(1000):
        project = "/p/one" if index % 2 else "/p/two"
        path = write_session(
            tmp_path,
            [
                user(f"title {index}\nsecond line"),
                assistant(None, ("c1", "read_file", "{}")),
                result("c1", middle),
                assistant(f"answer {index}"),
                usage(1, 1, None),
            ],
            project,
        )
        stamp = f"2026-01-01T00:{index // 60:02d}:{index % 60:02d}.000+00:00"
        _restamp_last_line(path, stamp)
        expected.append((path.stem, f"title {index}", 4, stamp, project))

    total = sum(path.stat().st_size for path in tmp_path.glob("*.jsonl"))
    read_before = bytes_read()
    started = time.process_time()  # CPU time: another worker loading the machine adds none
    listed = list_sessions(tmp_path)
    elapsed = time.process_time() - started
    read = bytes_read() - read_before
    only_one = list_sessions(tmp_path, project=Path("/p/one"))

    rows = [
        (s.header.id, s.title, s.message_count, s.last_activity, s.header.project) for s in listed
    ]
    assert rows == expected[::-1]
    assert [s.header.id for s in only_one] == [
        row[0] for row in expected[::-1] if row[4] == "/p/one"
    ]
    assert elapsed < 1.0, f"listing 1000 sessions took {elapsed:.2f} s of CPU"
    # About 20 KB of each 50 KB file: what is read is counted, as no clock can tell reading a
    # whole small file from reading its head and tail (it takes milliseconds either way).
    assert read < total / 2, f"listing read {read} bytes of {total}"


def _restamp_last_line(path: Path, stamp: str) -> None:
    lines = path.read_bytes().split(b"\n")
    last = json.loads(lines[-2])
    lines[-2] = json.dumps({**last, "at": stamp}).encode()
    path.write_bytes(b"\n".join(lines))


def test_a_summary_finds_title_and_count_beyond_a_long_first_and_last_line(
    tmp_path: Path,
) -> None:
    long_skill = snapshot_event("big", "b" * 40_000)
    long_question = "q" * 30_000 + "\nmore"
    long_answer = "a" * 50_000
    path = write_session(tmp_path, [long_skill, user(long_question), assistant(long_answer)])

    summary = summarize(path)

    last_at = load_session(path).events[-1]["at"]
    assert (summary.title, summary.message_count, summary.last_activity) == (
        "q" * 30_000,
        2,
        last_at,
    )


def test_a_session_with_a_blank_first_message_or_none_lists_without_a_title(
    tmp_path: Path,
) -> None:
    blank = write_session(tmp_path, [user("  \n "), assistant("?")])
    empty = write_session(tmp_path, [])

    summaries = {s.path: (s.title, s.message_count) for s in list_sessions(tmp_path)}

    assert summaries == {blank: ("", 2), empty: ("", 0)}


def test_listing_skips_files_that_are_not_sessions(tmp_path: Path) -> None:
    good = write_session(tmp_path, [user("hello")])
    (tmp_path / "20260101-000000-000000.jsonl").write_bytes(b"")
    (tmp_path / "20260101-000000-000001.jsonl").write_text("[]\n")

    assert [s.path for s in list_sessions(tmp_path)] == [good]


def test_sessions_are_found_by_id_or_unique_prefix_and_bad_ids_say_what_to_do(
    tmp_path: Path,
) -> None:
    for name in ("20260101-100000-aaaaaa", "20260101-100000-aaaabb", "20260102-090000-cccccc"):
        (tmp_path / f"{name}.jsonl").write_text("{}\n")

    assert find_session("20260102", tmp_path).stem == "20260102-090000-cccccc"
    assert find_session("20260101-100000-aaaaaa", tmp_path).stem == "20260101-100000-aaaaaa"
    with pytest.raises(SessionError) as unknown:
        find_session("2025", tmp_path)
    with pytest.raises(SessionError) as ambiguous:
        find_session("20260101-1", tmp_path)

    assert str(unknown.value) == (
        "no session with id '2025' (list them with: agent sessions list --all)"
    )
    assert str(ambiguous.value) == (
        "'20260101-1' matches 2 sessions (20260101-100000-aaaaaa, 20260101-100000-aaaabb); "
        "give more of the id"
    )


def test_a_resumed_writer_appends_to_the_same_private_file(tmp_path: Path) -> None:
    path = write_session(tmp_path, [user("one")])
    before = path.stat()

    writer = SessionWriter.append_to(path, load_session(path).header, 1)
    writer.record(event_from_json(assistant("two")))
    writer.close()

    after = path.stat()
    assert (after.st_ino, stat.S_IMODE(after.st_mode)) == (before.st_ino, 0o600)
    assert os.path.getsize(path) > before.st_size


def test_a_new_session_whose_id_is_taken_gets_another_and_leaves_the_first_alone(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import agent.session.store as store_module

    ids = iter(["20261130-120000-aaaaaa", "20261130-120000-aaaaaa", "20261130-120000-bbbbbb"])
    monkeypatch.setattr(store_module, "new_session_id", lambda: next(ids))
    first = SessionWriter.create(Path("/p"), MODEL, tmp_path)
    before = first.path.read_bytes()

    second = SessionWriter.create(Path("/p"), MODEL, tmp_path)

    assert (first.path.name, second.path.name) == (
        "20261130-120000-aaaaaa.jsonl",
        "20261130-120000-bbbbbb.jsonl",
    )
    assert first.path.read_bytes() == before
    assert sorted(p.name for p in tmp_path.iterdir()) == [first.path.name, second.path.name]
    first.close()
    second.close()


def test_a_one_shot_session_says_so_in_its_header_and_a_chats_header_is_as_before(
    tmp_path: Path,
) -> None:
    chat = SessionWriter.create(Path("/work/project"), MODEL, tmp_path)
    one_shot = SessionWriter.create(Path("/work/project"), MODEL, tmp_path, one_shot=True)
    for writer in (chat, one_shot):
        writer.record(event_from_json(user("hi")))
        writer.close()

    chat_header = json.loads(chat.path.read_text().splitlines()[0])
    one_shot_header = json.loads(one_shot.path.read_text().splitlines()[0])

    # A chat's header has exactly the fields files always had (older agents read both).
    assert sorted(chat_header) == [
        "app_version", "id", "model", "project", "started_at", "type", "version",
    ]  # fmt: skip
    assert one_shot_header == {
        **chat_header,
        "id": one_shot.header.id,
        "started_at": one_shot.header.started_at,
        "one_shot": True,
    }
    assert (summarize(chat.path).header.one_shot, summarize(one_shot.path).header.one_shot) == (
        False,
        True,
    )
    assert load_session(one_shot.path).header.one_shot is True


def test_only_a_true_one_shot_field_marks_a_session_and_listings_put_chats_first(
    tmp_path: Path,
) -> None:
    def write(name: str, extra: dict[str, Any], at: str) -> None:
        header = {
            "type": "header", "version": 1, "id": name, "started_at": at,
            "project": "/p", "model": MODEL, "app_version": "0", **extra,
        }  # fmt: skip
        event = {"at": at, "type": "user", "content": name, "n": 1}
        (tmp_path / f"{name}.jsonl").write_text(f"{json.dumps(header)}\n{json.dumps(event)}\n")

    write("20260101-000000-000001", {}, "2026-01-01T00:00:00.000+00:00")
    write("20260101-000000-000002", {"one_shot": True}, "2026-01-03T00:00:00.000+00:00")
    write("20260101-000000-000003", {"one_shot": "yes"}, "2026-01-02T00:00:00.000+00:00")
    write("20260101-000000-000004", {"one_shot": False}, "2026-01-04T00:00:00.000+00:00")

    from agent.session.store import chats_first

    listed = chats_first(list_sessions(tmp_path))

    assert [(s.title[-1], s.header.one_shot) for s in listed] == [
        ("4", False),
        ("3", False),
        ("1", False),
        ("2", True),
    ]
