"""Races on `@path` mentions: a hostile repository swaps what a checked path leads to between
the fence's check and the read. Real files and links; the swap is made at the moment the
check has just passed (the attacker's best timing), then the real reader runs.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from pathlib import Path

import pytest

from agent.chat import file_attachments
from agent.chat.file_attachments import read_file_mentions
from agent.messages import TextPart

SECRET = "s3cret-value-never-sent"


def _swap_after_check(monkeypatch: pytest.MonkeyPatch, swap: Callable[[], None]) -> None:
    checked = file_attachments.checked_path

    def checked_then_swapped(project: Path, path: str, private: Sequence[Path]) -> Path:
        resolved = checked(project, path, private)
        swap()
        return resolved

    monkeypatch.setattr(file_attachments, "checked_path", checked_then_swapped)


def test_a_folder_swapped_for_a_link_after_the_check_leaks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    (project / "docs").mkdir(parents=True)
    (project / "docs" / "notes.txt").write_text("harmless\n")
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "notes.txt").write_text(SECRET)

    def swap() -> None:
        (project / "docs").rename(project / "docs.old")
        os.symlink(outside, project / "docs")

    _swap_after_check(monkeypatch, swap)
    found = read_file_mentions("see @docs/notes.txt", project, (), 100_000, ())
    sent = "\n".join(part.text for part in found.parts if isinstance(part, TextPart))
    assert SECRET not in sent
    assert found.parts == [] and found.attached == []
    assert len(found.refused) == 1 and "\n" not in found.refused[0]
    assert "@docs/notes.txt was not attached" in found.refused[0]


def test_a_file_swapped_for_a_link_after_the_check_leaks_nothing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("harmless\n")
    (tmp_path / "secret.txt").write_text(SECRET)

    def swap() -> None:
        (project / "notes.txt").unlink()
        os.symlink(tmp_path / "secret.txt", project / "notes.txt")

    _swap_after_check(monkeypatch, swap)
    found = read_file_mentions("@notes.txt", project, (), 100_000, ())
    assert found.parts == [] and len(found.refused) == 1


def test_a_resumed_session_names_an_attached_file_escaped(tmp_path: Path) -> None:
    """Resuming shows `attached @path` for a file mention (not "an attachment"), and a hostile
    name's escapes stay escaped on screen."""
    from agent.session.events import UserEvent
    from agent.session.replay import replayed_turns
    from agent.ui.slash.replay import replay_text

    project = tmp_path / "project"
    project.mkdir()
    name = "evil\x1b[2J\u202e.txt"
    (project / name).write_text("hello\n")
    found = read_file_mentions(f"@{name} and more", project, (), 100_000, ())
    assert found.attached, found.refused
    event = UserEvent(f"@{name} and more", tuple(found.parts)).to_json()
    turns = replayed_turns([event])
    assert turns[0].attachments == [f"@{name}"]
    shown = replay_text(turns, "s1")
    assert "attached @evil\\x1b[2J\\u202e.txt" in shown
    assert "\x1b[2J" not in shown and "\u202e" not in shown
