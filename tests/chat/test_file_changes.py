"""The file changes of a session: kept beside the session file (0600), undone last first only
while the file is what the change left, and still undoable after a resume."""

from __future__ import annotations

import json
import stat
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.chat.file_changes import FileChangeLog
from agent.messages import Message
from agent.session.blobs import blob_folder
from agent.session.events import message_event
from agent.session.history import rebuild
from agent.session.recorder import SessionRecorder
from agent.session.store import load_session
from agent.tools.base import PreviewedTool
from agent.tools.builtin import BuiltinToolset


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    root.mkdir()
    (root / "app.py").write_text("print('one')\n")
    return root


@pytest.fixture
def recorders() -> Iterator[list[SessionRecorder]]:
    """Every session recorder a test opens, closed at its end."""
    opened: list[SessionRecorder] = []
    yield opened
    for recorder in opened:
        recorder.close()


def chat_files(
    project: Path, recorders: list[SessionRecorder]
) -> tuple[FileChangeLog, dict[str, PreviewedTool]]:
    recorder = SessionRecorder(project, "fake-model")
    recorders.append(recorder)
    recorder.record(message_event(Message("user", "change things")))  # the session file
    log = FileChangeLog(project, recorder, [])
    found = BuiltinToolset(project, private=[], journal=log).tools()
    return log, {t.spec.name: t for t in found if isinstance(t, PreviewedTool)}


def approved(tool: PreviewedTool, **arguments: Any) -> None:
    """Preview (what the person saw), then run, as the chat does after a yes."""
    tool.preview(arguments)
    result = anyio.run(tool.run, arguments)
    assert not result.is_error, result.text


def test_each_change_is_recorded_with_its_contents_kept_beside_the_session_0600(
    project: Path, agent_home: Path, recorders: list[SessionRecorder]
) -> None:
    log, tools = chat_files(project, recorders)
    approved(tools["edit_file"], path="app.py", old_text="one", new_text="two")
    approved(tools["write_file"], path="new.txt", content="fresh\n")
    session = log.recorder.path
    assert session is not None
    events = [json.loads(line) for line in session.read_text().splitlines()[1:]]
    changes = [e for e in events if e["type"] == "file_change"]
    assert [(c["number"], c["path"], c["tool"], c["action"]) for c in changes] == [
        (1, "app.py", "edit_file", "edited"),
        (2, "new.txt", "write_file", "created"),
    ]
    assert changes[1]["before"] is None  # "did not exist"
    folder = blob_folder(session)
    assert (folder / changes[0]["before"]).read_bytes() == b"print('one')\n"
    assert (folder / changes[0]["after"]).read_bytes() == b"print('two')\n"
    for kept in folder.iterdir():
        assert stat.S_IMODE(kept.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


def test_undo_goes_back_one_change_at_a_time_and_a_created_file_is_deleted(
    project: Path, agent_home: Path, recorders: list[SessionRecorder]
) -> None:
    log, tools = chat_files(project, recorders)
    approved(tools["edit_file"], path="app.py", old_text="one", new_text="two")
    approved(tools["edit_file"], path="app.py", old_text="two", new_text="three")
    approved(tools["write_file"], path="docs/new.md", content="# New\n")

    first = log.undo()
    assert first.done
    assert first.lines == [
        "Undid change 3 (write_file created docs/new.md): deleted docs/new.md, which it created, "
        "and the folder its write made: docs."
    ]
    assert not (project / "docs").exists()
    assert log.undo().lines == [
        "Undid change 2 (edit_file edited app.py): app.py holds what it held before."
    ]
    assert (project / "app.py").read_text() == "print('two')\n"
    assert log.undo().done
    assert (project / "app.py").read_text() == "print('one')\n"
    assert log.undo().lines == ["Nothing to undo: no file changes left in this session."]
    assert [change.undone for change in log.changes] == [True, True, True]


def test_undo_refuses_a_file_changed_since_and_shows_what_changed(
    project: Path, agent_home: Path, recorders: list[SessionRecorder]
) -> None:
    log, tools = chat_files(project, recorders)
    approved(tools["edit_file"], path="app.py", old_text="one", new_text="two")
    (project / "app.py").write_text("print('two')\nprint('mine')\n")
    outcome = log.undo()
    assert not outcome.done
    assert outcome.lines[:2] == [
        "Cannot undo change 1 (edit_file edited app.py): app.py changed since (it holds 27 "
        "bytes; the change left 13 bytes)",
        "Nothing was changed. Undo the later changes to it first, or fix it by hand.",
    ]
    assert "  +print('mine')" in outcome.lines
    assert (project / "app.py").read_text() == "print('two')\nprint('mine')\n"
    assert log.changes[0].undone is False


def test_a_created_file_changed_since_is_not_deleted(
    project: Path, agent_home: Path, recorders: list[SessionRecorder]
) -> None:
    log, tools = chat_files(project, recorders)
    approved(tools["write_file"], path="new.txt", content="model's\n")
    (project / "new.txt").write_text("model's\nand mine\n")
    assert not log.undo().done
    assert (project / "new.txt").read_text() == "model's\nand mine\n"


def test_a_resumed_session_can_still_undo_and_remembers_what_was_undone(
    project: Path, agent_home: Path, recorders: list[SessionRecorder]
) -> None:
    log, tools = chat_files(project, recorders)
    approved(tools["write_file"], path="app.py", content="print('rewritten')\n")
    approved(tools["write_file"], path="other.txt", content="x\n")
    assert log.undo().done  # other.txt
    session = log.recorder.path
    assert session is not None
    log.recorder.close()

    loaded = load_session(session)
    rebuilt = rebuild(loaded.events)
    resumed = FileChangeLog(project, SessionRecorder(project, "fake-model"), [])
    recorders.append(resumed.recorder)
    resumed.recorder.continue_file(loaded, rebuilt.message_count)
    resumed.restore(rebuilt.file_changes, rebuilt.undone, loaded.header.project)
    assert [(c.event.path, c.undone) for c in resumed.changes] == [
        ("app.py", False),
        ("other.txt", True),
    ]
    assert resumed.undo().done
    assert (project / "app.py").read_text() == "print('one')\n"
    assert resumed.undo(2).lines == ["Change 2 is undone already."]


def test_a_kept_content_altered_on_disk_is_not_restored(
    project: Path, agent_home: Path, recorders: list[SessionRecorder]
) -> None:
    log, tools = chat_files(project, recorders)
    approved(tools["write_file"], path="app.py", content="print('rewritten')\n")
    session = log.recorder.path
    assert session is not None
    before = log.changes[0].event.before
    assert before is not None
    (blob_folder(session) / before).write_text("import os; os.system('evil')\n")
    outcome = log.undo()
    assert outcome.lines == [
        "Cannot undo change 1 (write_file overwrote app.py): the content before was not kept "
        "(or was altered)."
    ]
    assert (project / "app.py").read_text() == "print('rewritten')\n"


def test_undo_refuses_a_file_that_is_now_a_link_and_a_folder_that_is_now_a_file(
    project: Path, recorders: list[SessionRecorder]
) -> None:
    log, tools = chat_files(project, recorders)
    approved(tools["write_file"], path="made.txt", content="new\n")
    approved(tools["write_file"], path="sub/inner.txt", content="inner\n")
    # made.txt becomes a link to a file holding the same: undo would delete that file.
    (project / "made.txt").rename(project / "other.txt")
    (project / "made.txt").symlink_to("other.txt")
    # sub becomes a plain file: nothing to walk through.
    (project / "sub" / "inner.txt").unlink()
    (project / "sub").rmdir()
    (project / "sub").write_text("a file now\n")

    second = log.undo()
    first = log.undo(1)

    assert second.lines == [
        "Cannot undo change 2 (write_file created sub/inner.txt): sub is not a folder now; "
        "nothing was undone."
    ]
    assert first.lines == [
        "Cannot undo change 1 (write_file created made.txt): made.txt is now a link; "
        "nothing was undone."
    ]
    assert not first.done and not second.done
    assert (project / "other.txt").read_text() == "new\n"
    assert (project / "sub").read_text() == "a file now\n"


def test_undo_keeps_a_made_folder_that_holds_other_files_and_one_there_before(
    project: Path, agent_home: Path, recorders: list[SessionRecorder]
) -> None:
    (project / "src").mkdir()
    log, tools = chat_files(project, recorders)
    approved(tools["write_file"], path="src/pkg/deep/mod.py", content="x = 1\n")
    (project / "src" / "pkg" / "keep.txt").write_text("the person's\n")

    outcome = log.undo()

    assert outcome.lines == [
        "Undid change 1 (write_file created src/pkg/deep/mod.py): deleted src/pkg/deep/mod.py, "
        "which it created, and the folder its write made: src/pkg/deep "
        "(src/pkg is kept: it holds other files)."
    ]
    assert sorted(p.name for p in (project / "src" / "pkg").iterdir()) == ["keep.txt"]
    assert (project / "src").is_dir()


def test_a_resumed_session_still_takes_away_the_folders_a_write_made(
    project: Path, agent_home: Path, recorders: list[SessionRecorder]
) -> None:
    log, tools = chat_files(project, recorders)
    approved(tools["write_file"], path="made/here/new.txt", content="new\n")
    path = log.recorder.path
    assert path is not None
    loaded = load_session(path)
    again, _tools = chat_files(project, recorders)
    rebuilt = rebuild(loaded.events, loaded.header.model)
    again.restore(rebuilt.file_changes, rebuilt.undone, loaded.header.project)

    assert again.undo().done
    assert not (project / "made").exists()
