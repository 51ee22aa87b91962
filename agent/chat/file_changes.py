"""The file changes of one chat's session, for /undo and /changes.

The file tools hand every change they make here (the ChangeJournal of agent.tools.file_tools).
The content before and after is kept beside the session file like its images (the session's
blob folder, files 0600) and the change is recorded as a `file_change` event, so a resumed
session can still undo. When nothing can be kept beside the session (it could not be saved),
the contents stay in memory: undo still works until the chat ends, and the model is told.

/undo restores the last change not yet undone (again to go further back), only while the file
holds exactly what the change wrote: a file changed since is left alone, and the person is
shown what changed. A file the change created is deleted, under the same condition, and the
folders its write made are taken away again while empty (file_writing.remove_made_folders). The file
is reached by the path recorded, walked down without following links (file_writing.recorded):
a folder on the way that became a link since is refused, named, never followed elsewhere.
"""

from __future__ import annotations

import datetime
import hashlib
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.session.blobs import blob_folder, load_content, store_content
from agent.session.events import FileChangeEvent, UndoEvent
from agent.session.recorder import SessionRecorder
from agent.session.store import now
from agent.text import plural
from agent.tools.file_diff import capped, diff_lines
from agent.tools.file_tools import FileChange
from agent.tools.file_writing import (
    FileRefusedError,
    LinkInTheWayError,
    current_state,
    recorded,
    remove_file,
    remove_made_folders,
    replace_file,
)

UNDO_DIFF_LINES = 20  # of what changed since, when /undo refuses
_STATE_LIMIT = 64 * 1024 * 1024  # a file grown past this since is "changed" without a read


@dataclass
class Change:
    """One change of this session, as /changes lists it."""

    event: FileChangeEvent
    at: str | None
    undone: bool = False
    elsewhere: str | None = None  # the project it was made in, when not this chat's


@dataclass(frozen=True)
class UndoOutcome:
    """What /undo did, in lines for the person; `done` False: nothing was changed."""

    done: bool
    lines: list[str]


class FileChangeLog:
    """Every change the file tools made in this session, and the way back."""

    def __init__(self, project: Path, recorder: SessionRecorder, private: Sequence[Path]) -> None:
        self.project = project.resolve()
        self.recorder = recorder
        self.private = tuple(private)
        self.changes: list[Change] = []
        self._in_memory: dict[str, bytes] = {}  # contents that could not be kept on disk

    # -- the journal the tools write to -----------------------------------------------------

    def record(self, change: FileChange) -> str | None:
        """Keep the change and its contents; a note when undo must rely on memory."""
        problems: list[str] = []
        before = None if change.before is None else self._keep(change.before, problems)
        after = self._keep(change.after, problems)
        number = len(self.changes) + 1
        event = FileChangeEvent(
            number, change.path, change.tool, change.action, before, after, change.folders_made
        )
        self.recorder.record(event)
        self.changes.append(Change(event, now()))
        if problems:
            return f"the content before could not be saved beside the session ({problems[0]})"
        return None

    def _keep(self, data: bytes, problems: list[str]) -> str:
        folder = self._folder()
        if folder is not None:
            try:
                return store_content(folder, data)
            except OSError as error:
                problems.append(error.strerror or str(error))
        else:
            problems.append("there is no session file")
        digest = hashlib.sha256(data).hexdigest()
        self._in_memory[digest] = data
        return digest

    def _folder(self) -> Path | None:
        path = self.recorder.path
        return None if path is None else blob_folder(path)

    def _content(self, digest: str) -> bytes | None:
        if digest in self._in_memory:
            return self._in_memory[digest]
        folder = self._folder()
        return None if folder is None else load_content(folder, digest)

    # -- sessions ---------------------------------------------------------------------------

    def reset(self) -> None:
        """A new session: no changes to undo."""
        self.changes = []
        self._in_memory = {}

    def restore(
        self, recorded: list[tuple[str | None, FileChangeEvent]], undone: set[int], project: str
    ) -> None:
        """The changes of a resumed session (made in `project`)."""
        elsewhere = None if Path(project).resolve() == self.project else project
        self.reset()
        self.changes = [
            Change(event, at, event.number in undone, elsewhere) for at, event in recorded
        ]

    # -- undo -------------------------------------------------------------------------------

    def undo(self, number: int | None = None) -> UndoOutcome:
        """Take back change `number` (None: the last one not undone yet)."""
        change = self._chosen(number)
        if isinstance(change, str):
            return UndoOutcome(False, [change])
        event = change.event
        about = f"change {event.number} ({event.tool} {event.action} {event.path})"
        if change.elsewhere is not None:
            return UndoOutcome(False, [f"Cannot undo {about}: it was made in {change.elsewhere}."])
        try:
            target = recorded(self.project, event.path, self.private)
            state = current_state(target, _STATE_LIMIT)
        except LinkInTheWayError as error:
            return UndoOutcome(False, [f"Cannot undo {about}: {error.now}; nothing was undone."])
        except (FileRefusedError, OSError) as error:
            return UndoOutcome(False, [f"Cannot undo {about}: {error}"])
        if state.sha256 != event.after:
            return UndoOutcome(False, self._changed_since(about, event, state.content))
        before = None if event.before is None else self._content(event.before)
        if event.before is not None and before is None:
            return UndoOutcome(
                False, [f"Cannot undo {about}: the content before was not kept (or was altered)."]
            )
        try:
            if before is None:
                remove_file(target, state)
            else:
                replace_file(target, before, state)
        except LinkInTheWayError as error:  # swapped in since the look above
            return UndoOutcome(False, [f"Cannot undo {about}: {error.now}; nothing was undone."])
        except (FileRefusedError, OSError) as error:
            return UndoOutcome(False, [f"Cannot undo {about}: {error}"])
        change.undone = True
        self.recorder.record(UndoEvent(event.number, event.path))
        if before is None:
            folders = _folders_said(*remove_made_folders(target, event.folders_made))
            return UndoOutcome(
                True, [f"Undid {about}: deleted {event.path}, which it created{folders}."]
            )
        return UndoOutcome(True, [f"Undid {about}: {event.path} holds what it held before."])

    def _chosen(self, number: int | None) -> Change | str:
        """The change to undo, or why there is none."""
        if number is None:
            left = [change for change in self.changes if not change.undone]
            return left[-1] if left else "Nothing to undo: no file changes left in this session."
        if not 1 <= number <= len(self.changes):
            return f"There is no change {number}: /changes lists this session's changes."
        change = self.changes[number - 1]
        return f"Change {number} is undone already." if change.undone else change

    def _changed_since(self, about: str, event: FileChangeEvent, now: bytes | None) -> list[str]:
        """Why undo refuses: the file is not what the change left; what changed, shortly."""
        after = self._content(event.after)
        state = "it no longer exists" if now is None else f"it holds {plural(len(now), 'byte')}"
        lines = [
            f"Cannot undo {about}: {event.path} changed since ({state}"
            + (f"; the change left {plural(len(after), 'byte')})" if after is not None else ")"),
            "Nothing was changed. Undo the later changes to it first, or fix it by hand.",
        ]
        texts = [_text(after), _text(now)]
        if texts[0] is not None and texts[1] is not None:
            diff = diff_lines(event.path, texts[0], texts[1])
            lines.append("What changed since (from what the change left to what is there now):")
            lines.extend("  " + line for line in capped(diff, UNDO_DIFF_LINES))
        return lines


def _folders_said(removed: list[str], kept: str | None) -> str:
    """The end of the undo's line: the folders taken away with the file, and the one that
    stayed (with those above it) and why."""
    said = ""
    if removed:
        noun = "folder its write made" if len(removed) == 1 else "folders its write made"
        said = f", and the {noun}: {', '.join(removed)}"
    return f"{said} ({kept})" if kept is not None else said


def _text(data: bytes | None) -> str | None:
    if data is None:
        return None
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError:
        return None


def when(at: str | None) -> str:
    """A change's time in local time: the time of day, with the date when not today."""
    if at is None:
        return "?"
    try:
        moment = datetime.datetime.fromisoformat(at).astimezone()
    except ValueError:
        return "?"
    today = datetime.datetime.now().astimezone().date()
    return moment.strftime("%H:%M:%S" if moment.date() == today else "%Y-%m-%d %H:%M")
