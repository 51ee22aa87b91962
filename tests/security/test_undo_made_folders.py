"""/undo takes away the folders a write made, and nothing else.

Attack: write_file created made/deep/plan.md, making `made` and `made/deep`. Afterwards (by
the person, a pull, an approved command, or in the moment between the file's removal and the
folders') a folder of that path becomes a link to a folder outside the project that holds an
empty folder of the same name. Undo removing folders by path would then remove the outside
one. Folders are removed by name in their parent's descriptor, reached down from the project
without following a link, and rmdir never follows one: the link stays, the outside stays, and
the undo says which folder stayed and why. A forged count in a session file reaches only the
folders of the change's own path below the project, and only empty ones.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.chat import file_changes
from agent.chat.file_changes import FileChangeLog
from agent.messages import Message
from agent.session.events import message_event
from agent.session.recorder import SessionRecorder
from agent.tools.base import PreviewedTool
from agent.tools.builtin import BuiltinToolset
from agent.tools.file_writing import Target, remove_made_folders


@pytest.fixture
def places(tmp_path: Path) -> tuple[Path, Path]:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    (outside / "deep").mkdir(parents=True)  # empty: what rmdir through the link would take
    return project, outside


@pytest.fixture
def log(places: tuple[Path, Path]) -> Iterator[FileChangeLog]:
    project, _outside = places
    recorder = SessionRecorder(project, "fake-model")
    recorder.record(message_event(Message("user", "write it")))
    yield FileChangeLog(project, recorder, [])
    recorder.close()


def write(log: FileChangeLog, path: str) -> None:
    tools = BuiltinToolset(log.project, private=[], journal=log).tools()
    tool = next(t for t in tools if isinstance(t, PreviewedTool) and t.spec.name == "write_file")
    arguments: dict[str, Any] = {"path": path, "content": "# Plan\n"}
    tool.preview(arguments)
    assert not anyio.run(tool.run, arguments).is_error


def swap_for_link(folder: Path, to: Path) -> None:
    """`folder` moved aside and made a link to `to`."""
    folder.rename(folder.with_name(folder.name + "-moved"))
    folder.symlink_to(to, target_is_directory=True)


def test_a_folder_made_a_link_between_the_file_and_its_folders_removes_nothing_outside(
    places: tuple[Path, Path], log: FileChangeLog, monkeypatch: pytest.MonkeyPatch
) -> None:
    project, outside = places
    write(log, "made/deep/plan.md")
    real_remove = file_changes.remove_file

    def remove_then_swap(*args: Any) -> None:  # the race: right after the file went
        real_remove(*args)
        swap_for_link(project / "made", outside)

    monkeypatch.setattr(file_changes, "remove_file", remove_then_swap)
    outcome = log.undo()

    assert outcome.lines == [
        "Undid change 1 (write_file created made/deep/plan.md): deleted made/deep/plan.md, "
        "which it created (made/deep is kept: made is now a link)."
    ]
    assert (outside / "deep").is_dir()
    assert (project / "made").is_symlink()
    assert (project / "made-moved" / "deep").is_dir()  # the real ones, not reached: kept


def test_the_made_folder_itself_made_a_link_is_not_followed(
    places: tuple[Path, Path], log: FileChangeLog
) -> None:
    project, outside = places
    write(log, "made/deep/plan.md")
    (project / "made" / "deep" / "plan.md").unlink()
    swap_for_link(project / "made" / "deep", outside / "deep")

    removed, kept = remove_made_folders(Target(project, ("made", "deep", "plan.md")), 2)

    assert (removed, kept) == ([], "made/deep is kept: it is a link now")
    assert (outside / "deep").is_dir()
    assert (project / "made" / "deep").is_symlink()


def test_a_forged_count_reaches_only_empty_folders_of_the_path_below_the_project(
    places: tuple[Path, Path],
) -> None:
    project, _outside = places
    (project / "a" / "b").mkdir(parents=True)
    (project / "a" / "other.txt").write_text("kept\n")

    removed, kept = remove_made_folders(Target(project, ("a", "b", "gone.md")), 10**6)

    assert (removed, kept) == (["a/b"], "a is kept: it holds other files")
    assert (project / "a" / "other.txt").is_file()
    assert project.is_dir() and os.listdir(project) == ["a"]
