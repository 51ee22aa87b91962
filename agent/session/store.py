"""One JSONL file per chat session in the data home's `sessions/` folder.

The first line is a header (id, start time, project, model, app version); every later line
is one event, written and flushed as it happens, so killing the process at any moment loses
at most the line being written. Files are created 0600: they hold the conversation.

Listing reads only each file's head (header, first user message) and tail (last activity,
message count), so a thousand sessions list quickly.
"""

from __future__ import annotations

import datetime
import json
import os
import secrets
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import IO, Any

from agent import __version__
from agent.errors import AgentError
from agent.home import data_home, ensure_private_dir

SESSION_VERSION = 1
_HEAD_BYTES = 16 * 1024
_TAIL_BYTES = 16 * 1024


class SessionError(AgentError):
    """A session cannot be found, read or written."""


def now() -> str:
    """An ISO-8601 UTC time stamp, to the millisecond."""
    return datetime.datetime.now(datetime.UTC).isoformat(timespec="milliseconds")


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

    def to_json(self) -> dict[str, Any]:
        return {
            "type": "header",
            "version": SESSION_VERSION,
            "id": self.id,
            "started_at": self.started_at,
            "project": self.project,
            "model": self.model,
            "app_version": self.app_version,
        }


class SessionWriter:
    """Appends events to one session file, one flushed line each."""

    def __init__(self, path: Path, handle: IO[str], header: SessionHeader, count: int = 0) -> None:
        self.path = path
        self.header = header
        self._handle = handle
        self.message_count = count

    @classmethod
    def create(cls, project: Path, model: str, folder: Path | None = None) -> SessionWriter:
        folder = ensure_private_dir(folder or sessions_dir())
        header = SessionHeader(new_session_id(), now(), str(project), model, __version__)
        path = folder / f"{header.id}.jsonl"
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_APPEND, 0o600)
        writer = cls(path, os.fdopen(fd, "a", encoding="utf-8"), header)
        writer._write(header.to_json())
        return writer

    @classmethod
    def append_to(cls, path: Path, header: SessionHeader, count: int) -> SessionWriter:
        """Continue an existing session file (after resume)."""
        fd = os.open(path, os.O_WRONLY | os.O_APPEND)
        handle = os.fdopen(fd, "a", encoding="utf-8")
        if _ends_torn(path):
            handle.write("\n")  # a torn last line stays its own (ignored) line
        return cls(path, handle, header, count)

    def record(self, event: dict[str, Any]) -> None:
        """Write one event now. Message events carry the running message count."""
        if event.get("type") in ("user", "assistant", "tool_result"):
            self.message_count += 1
            event = {**event, "n": self.message_count}
        self._write({"at": now(), **event})

    def _write(self, event: dict[str, Any]) -> None:
        self._handle.write(json.dumps(event, ensure_ascii=False) + "\n")
        self._handle.flush()

    def close(self) -> None:
        self._handle.close()


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


def _header_from(data: object, path: Path) -> SessionHeader:
    if not isinstance(data, dict) or data.get("type") != "header":
        raise SessionError(f"{path}: not a session file (its first line is not a header)")
    if data.get("version") != SESSION_VERSION:
        raise SessionError(f"{path}: session version {data.get('version')!r} is not supported")
    try:
        return SessionHeader(
            data["id"], data["started_at"], data["project"], data["model"], data["app_version"]
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
    header: SessionHeader | None = None
    for number, line in enumerate(lines, start=1):
        last = number == len(lines)
        try:
            data = json.loads(line.decode("utf-8"))
        except (UnicodeDecodeError, json.JSONDecodeError):
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
            events.append(data)
    if header is None:
        raise SessionError(f"{path}: empty or unreadable session file")
    return LoadedSession(path, header, events, notes)


@dataclass(frozen=True)
class SessionSummary:
    """One row of `agent sessions list`."""

    path: Path
    header: SessionHeader
    title: str
    message_count: int
    last_activity: str


def _head_and_tail(path: Path) -> tuple[list[bytes], list[bytes]]:
    with path.open("rb") as handle:
        head = handle.read(_HEAD_BYTES)
        size = handle.seek(0, os.SEEK_END)
        handle.seek(max(0, size - _TAIL_BYTES))
        tail = handle.read()
    return head.split(b"\n"), tail.split(b"\n")


def summarize(path: Path) -> SessionSummary:
    """Header, title and last activity from the file's head and tail only."""
    head, tail = _head_and_tail(path)
    header = _header_from(_json_or_none(head[0]), path)
    title = ""
    for line in head[1:]:
        data = _json_or_none(line)
        if isinstance(data, dict) and data.get("type") == "user":
            title = (
                str(data.get("content") or "").strip().splitlines()[0]
                if data.get("content")
                else ""
            )
            break
    count, last = 0, header.started_at
    for line in reversed(tail):
        data = _json_or_none(line)
        if isinstance(data, dict) and "at" in data:
            last = str(data["at"])
            break
    for line in reversed(tail):
        data = _json_or_none(line)
        if isinstance(data, dict) and "n" in data:
            count = int(data["n"])
            break
    return SessionSummary(path, header, title, count, last)


def _json_or_none(line: bytes) -> Any:
    try:
        return json.loads(line.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError):
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
        except SessionError:
            continue
        if project is None or summary.header.project == str(project):
            summaries.append(summary)
    return sorted(summaries, key=lambda s: s.last_activity, reverse=True)


def find_session(prefix: str, folder: Path | None = None) -> Path:
    """The session whose id is `prefix` or starts with it; ambiguity is an error."""
    matches = [p for p in session_files(folder) if p.stem.startswith(prefix)]
    exact = [p for p in matches if p.stem == prefix]
    if exact:
        return exact[0]
    if not matches:
        raise SessionError(f"no session with id {prefix!r} (list them with: agent sessions list)")
    if len(matches) > 1:
        shown = ", ".join(p.stem for p in matches[:5])
        raise SessionError(
            f"{prefix!r} matches {len(matches)} sessions ({shown}); give more of the id"
        )
    return matches[0]
