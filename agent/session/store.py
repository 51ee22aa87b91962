"""One JSONL file per chat session in the data home's `sessions/` folder.

The first line is a header (id, start time, project, model, app version, and `"one_shot":
true` for a run of `agent -p`, absent from a chat's and from files older than it); every later line
is one event, written and flushed as it happens, so killing the process at any moment loses
at most the line being written. Files are created 0600: they hold the conversation.

Listing reads only each file's head (header, first user message) and tail (last activity,
message count), so a thousand sessions list quickly.
"""

from __future__ import annotations

import contextlib
import datetime
import json
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import IO, Any

from agent import __version__
from agent.errors import AgentError
from agent.home import data_home, ensure_private_dir
from agent.session.blobs import blob_folder, restore_images, store_images
from agent.session.events import MESSAGE_EVENTS, SessionEvent, UserEvent, event_from_json
from agent.text import plural

SESSION_VERSION = 1
_HEAD_BYTES = 16 * 1024
_TITLE_SEARCH_BYTES = 1024 * 1024  # how far into a file its first user message is sought
_TAIL_BYTES = 16 * 1024


class SessionError(AgentError):
    """A session cannot be found, read or written."""


def now() -> str:
    """An ISO-8601 UTC time stamp, to the millisecond."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


_ID_ATTEMPTS = 16


def new_session_id() -> str:
    """Sortable by start time, unique: 20261129-143501-3f9a2c."""
    stamp = datetime.datetime.now(datetime.UTC).strftime("%Y%m%d-%H%M%S")
    return f"{stamp}-{secrets.token_hex(3)}"


def sessions_dir() -> Path:
    return data_home() / "sessions"


@dataclass(frozen=True)
class SessionHeader:
    id: str
    started_at: str
    project: str
    model: str
    app_version: str
    one_shot: bool = False  # a run of `agent -p` (or piped stdin), not a chat

    def to_json(self) -> dict[str, Any]:
        data: dict[str, Any] = {
            "type": "header",
            "version": SESSION_VERSION,
            "id": self.id,
            "started_at": self.started_at,
            "project": self.project,
            "model": self.model,
            "app_version": self.app_version,
        }
        # Only when set: a chat's header stays exactly as before, and an older agent reading
        # a one-shot file ignores the field it does not know (the version is unchanged).
        if self.one_shot:
            data["one_shot"] = True
        return data


class SessionWriter:
    """Appends events to one session file, one flushed line each."""

    def __init__(self, path: Path, handle: IO[str], header: SessionHeader, count: int = 0) -> None:
        self.path = path
        self.header = header
        self._handle = handle
        self.message_count = count

    @classmethod
    def create(
        cls, project: Path, model: str, folder: Path | None = None, *, one_shot: bool = False
    ) -> SessionWriter:
        """A new session file with its header, under a new id (`one_shot`: of `agent -p`)."""
        folder = ensure_private_dir(folder or sessions_dir())
        # Ids are a time stamp and 3 random bytes: sessions started in the same second can
        # meet (1000 in a second do, now and then). Another id is as good, so take one.
        for _attempt in range(_ID_ATTEMPTS - 1):
            try:
                return cls._create_in(folder, project, model, one_shot)
            except FileExistsError:
                continue
        return cls._create_in(folder, project, model, one_shot)

    @classmethod
    def _create_in(cls, folder: Path, project: Path, model: str, one_shot: bool) -> SessionWriter:
        header = SessionHeader(
            new_session_id(), now(), str(project), model, __version__, one_shot=one_shot
        )
        path = folder / f"{header.id}.jsonl"
        # The header is written under a temporary name and the file appears complete with it:
        # a crash right after creating it must not leave a header-less session behind.
        temporary = folder / f".{header.id}.jsonl.new"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        writer = cls(path, os.fdopen(fd, "a", encoding="utf-8"), header)
        try:
            writer._write(header.to_json())
            _publish(temporary, path)
        except BaseException:
            writer.close()
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary)
            raise
        return writer

    @classmethod
    def append_to(cls, path: Path, header: SessionHeader, count: int) -> SessionWriter:
        """Continue an existing session file (after resume)."""
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        handle = os.fdopen(fd, "a", encoding="utf-8")
        if _ends_torn(path):
            handle.write("\n")  # a torn last line stays its own (ignored) line
        return cls(path, handle, header, count)

    def record(self, event: SessionEvent) -> int | None:
        """Write one event now; a message event gets (and returns) its number, `n`."""
        number = None
        data = store_images(event.to_json(), blob_folder(self.path))
        if isinstance(event, MESSAGE_EVENTS):
            self.message_count += 1
            number = self.message_count
            data["n"] = number
        self._write({"at": now(), **data})
        return number

    def _write(self, event: dict[str, Any]) -> None:
        line = json.dumps(event, ensure_ascii=False)
        try:
            line.encode("utf-8")
        except UnicodeEncodeError:
            # A lone surrogate (from a tool's output, say) cannot be written as UTF-8; as a
            # \udxxx escape it can, and it reads back as the same string.
            line = json.dumps(event, ensure_ascii=True)
        self._handle.write(line + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()


def _publish(temporary: Path, path: Path) -> None:
    """Give a new session file its name; unlike a rename, a link never replaces another."""
    try:
        os.link(temporary, path)
    except FileExistsError:
        raise
    except OSError:  # a file system without hard links: a rename is the next best thing
        os.rename(temporary, path)
        return
    os.unlink(temporary)


def _ends_torn(path: Path) -> bool:
    with path.open("rb") as handle:
        size = handle.seek(0, os.SEEK_END)
        if size == 0:
            return False
        handle.seek(size - 1)
        return handle.read(1) != b"\n"


@dataclass(frozen=True)
class LoadedSession:
    """A session file's header and events, with notes about anything skipped."""

    path: Path
    header: SessionHeader
    events: list[dict[str, Any]]
    notes: list[str]
    lines: list[int] = field(default_factory=list)  # each event's line number in the file


def _header_from(data: object, path: Path) -> SessionHeader:
    if not isinstance(data, dict) or data.get("type") != "header":
        raise SessionError(f"{path}: not a session file (its first line is not a header)")
    if data.get("version") != SESSION_VERSION:
        raise SessionError(f"{path}: session version {data.get('version')!r} is not supported")
    # A file anyone could have written: each field a string, or every reader would trip on it.
    fields = ("id", "started_at", "project", "model", "app_version")
    wrong = next((key for key in fields if key in data and not isinstance(data[key], str)), None)
    if wrong is not None:
        raise SessionError(f"{path}: the header's {wrong!r} is not a string")
    try:
        return SessionHeader(
            data["id"],
            data["started_at"],
            data["project"],
            data["model"],
            data["app_version"],
            one_shot=data.get("one_shot") is True,
        )
    except KeyError as missing:
        raise SessionError(f"{path}: the header has no {missing}") from None


def load_session(path: Path) -> LoadedSession:
    """Every readable event; a torn last line (a crash mid-write) is ignored and noted."""
    try:
        raw = path.read_bytes()
    except OSError as error:
        raise SessionError(f"{path}: cannot read: {error.strerror}") from None
    lines = raw.split(b"\n")
    trailing_complete = raw.endswith(b"\n")
    if trailing_complete:
        lines = lines[:-1]
    notes: list[str] = []
    events: list[dict[str, Any]] = []
    event_lines: list[int] = []
    header: SessionHeader | None = None
    for number, line in enumerate(lines, start=1):
        last = number == len(lines)
        try:
            data = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
            # RecursionError: a line nested too deeply for the decoder; hostile, not ours.
            if last and not trailing_complete:
                notes.append(
                    "the last line was cut off (the app stopped mid-write); it was ignored"
                )
            else:
                notes.append(f"line {number} could not be read and was skipped")
            continue
        if header is None:
            header = _header_from(data, path)
            continue
        if isinstance(data, dict):
            events.append(restore_images(data, blob_folder(path), notes))
            event_lines.append(number)
        else:
            notes.append(f"line {number} is not an event and was skipped")
    if header is None:
        raise SessionError(f"{path}: empty or unreadable session file")
    return LoadedSession(path, header, events, notes, event_lines)


@dataclass(frozen=True)
class SessionSummary:
    """One row of `agent sessions list`."""

    path: Path
    header: SessionHeader
    title: str
    message_count: int
    last_activity: str


def summarize(path: Path) -> SessionSummary:
    """Header, title and last activity from the file's head and tail only."""
    with path.open("rb") as handle:
        header = _header_from(_json_or_none(handle.readline(_HEAD_BYTES)), path)
        title = _title(handle)
        size = handle.seek(0, os.SEEK_END)
        last, count = _last_activity_and_count(handle, size)
    return SessionSummary(path, header, title, count, last or header.started_at)


def _title(handle: IO[bytes]) -> str:
    """The first line of the first user message, read from just after the header.

    Lines are read whole: a first message (or a skill activated before it) longer than a
    fixed head still gives the title, at the cost of a longer read for this one file.
    """
    budget = _TITLE_SEARCH_BYTES
    while budget > 0:
        line = handle.readline(budget)
        budget -= len(line)
        if not line.endswith(b"\n"):
            return ""  # the end of the file, or a line longer than the whole budget
        data = _json_or_none(line)
        if isinstance(data, dict) and isinstance(event := _event_or_none(data), UserEvent):
            text = event.content.strip()
            return text.splitlines()[0] if text else ""
    return ""


def _last_activity_and_count(handle: IO[bytes], size: int) -> tuple[str | None, int]:
    """The last event's time and the last message number, from the smallest tail holding them.

    A small tail usually suffices; when the last lines are longer (a big tool result), it
    grows until they are whole.
    """
    window = _TAIL_BYTES
    last: str | None = None
    count: int | None = None
    while True:
        start = max(0, size - window)
        handle.seek(start)
        lines = handle.read(size - start).split(b"\n")
        if start > 0:
            lines = lines[1:]  # it may begin mid-line
        for line in reversed(lines):
            data = _json_or_none(line)
            if not isinstance(data, dict) or data.get("type") == "header":
                continue
            if last is None and "at" in data:
                last = str(data["at"])
            if count is None and isinstance(data.get("n"), int):
                count = data["n"]
            if last is not None and count is not None:
                return last, count
        if start == 0:
            return last, count or 0
        window *= 4


def _event_or_none(data: dict[str, Any]) -> SessionEvent | None:
    try:
        return event_from_json(data)
    except ValueError:
        return None


def _json_or_none(line: bytes) -> Any:
    try:
        return json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError):
        return None


def session_files(folder: Path | None = None) -> Iterator[Path]:
    folder = folder or sessions_dir()
    if not folder.is_dir():
        return iter(())
    return iter(sorted(folder.glob("*.jsonl")))


def list_sessions(folder: Path | None = None, project: Path | None = None) -> list[SessionSummary]:
    """Sessions newest first (by last activity), optionally of one project only."""
    summaries = []
    for path in session_files(folder):
        try:
            summary = summarize(path)
        except (SessionError, OSError):  # not a session, or deleted meanwhile
            continue
        if project is None or summary.header.project == str(project):
            summaries.append(summary)
    return sorted(summaries, key=lambda s: s.last_activity, reverse=True)


def chats_first(summaries: list[SessionSummary]) -> list[SessionSummary]:
    """Chats before one-shot runs (`agent -p`), each newest first as given: a person looking
    for a conversation to continue finds it above a screenful of one-line questions."""
    return sorted(summaries, key=lambda s: s.header.one_shot)  # stable: keeps the order


def find_session(prefix: str, folder: Path | None = None) -> Path:
    """The session whose id is `prefix` or starts with it; ambiguity is an error."""
    matches = [p for p in session_files(folder) if p.stem.startswith(prefix)]
    exact = [p for p in matches if p.stem == prefix]
    if exact:
        return exact[0]
    if not matches:
        raise SessionError(
            f"no session with id {prefix!r} (list them with: agent sessions list --all)"
        )
    if len(matches) > 1:
        shown = ", ".join(p.stem for p in matches[:5])
        raise SessionError(
            f"{prefix!r} matches {plural(len(matches), 'session')} ({shown}); give more of the id"
        )
    return matches[0]
