"""`agent sessions list|show|export|delete`: saved chats, without starting one.

Nothing here loads the model or MCP code. Everything printed from a session is sanitized:
it holds what the model, tools and skills wrote.
"""

from __future__ import annotations

import contextlib
import datetime
import os
import shutil
import sys
import termios
import unicodedata
from pathlib import Path

from agent.commands.output import say, table, warn
from agent.errors import AgentError
from agent.home import atomic_write
from agent.session.blobs import delete_images
from agent.session.export import export_json, export_markdown
from agent.session.store import (
    LoadedSession,
    SessionError,
    SessionSummary,
    chats_first,
    find_session,
    list_sessions,
    load_session,
    summarize,
)
from agent.text import sanitize_line

# The title is the column that tells sessions apart: the project and model columns make room
# for it whole, down to a floor each. A project gives up its start (…/work/app: a path's end
# names it); a model its provider prefixes, then its end (claude-3.5-sonnet-…: a model's name
# starts with what it is).
_MIN_TITLE_CELLS = 20  # below this on a very narrow terminal the line wraps instead
_SHRINKABLE_FLOOR = {"PROJECT": 16, "MODEL": 12}
ONE_SHOT_MARK = "[-p] "  # an `agent -p` run's title begins with it


def list_command(project: Path, every_project: bool) -> int:
    """Chats newest first, then one-shot runs (marked): id, last activity, messages, model,
    (project,) title cut at the terminal's width."""
    summaries = chats_first(list_sessions(project=None if every_project else project))
    if not summaries:
        if every_project:
            say("No saved sessions yet.")
        else:
            say(f"No saved sessions for {sanitize_line(str(project))}.")
            say("See every project's with: agent sessions list --all")
        return 0
    headers = ["ID", "LAST ACTIVITY", "MESSAGES", "MODEL"]
    if every_project:
        headers.append("PROJECT")
    rows = []
    for summary in summaries:
        row = [
            summary.header.id,
            local_time(summary.last_activity),
            str(summary.message_count),
            summary.header.model,
        ]
        if every_project:
            row.append(_home_relative(summary.header.project))
        rows.append(row)
    titles = [list_title(summary) for summary in summaries]
    wanted = max(len(title) for title in titles)  # room for the titles whole, if there is
    columns = shutil.get_terminal_size().columns
    for name in ("PROJECT", "MODEL"):
        if name in headers:
            _shorten(headers, rows, headers.index(name), columns - wanted)
    # The title takes what the terminal has left; it is the column worth cutting.
    room = max(_MIN_TITLE_CELLS, columns - _used(headers, rows))
    titled = [[*row, _cut(title, room)] for row, title in zip(rows, titles, strict=True)]
    say(table([*headers, "TITLE"], titled))
    return 0


def list_title(summary: SessionSummary) -> str:
    """The title as listings show it: printable, and marked when it is an `agent -p` run."""
    title = _printable(summary.title) or "(no messages)"
    return ONE_SHOT_MARK + title if summary.header.one_shot else title


def _used(headers: list[str], rows: list[list[str]]) -> int:
    """The width of the columns before the title, with the gap before it."""
    return max(len(line) for line in table(headers, rows).split("\n")) + len("  ")


def _shorten(headers: list[str], rows: list[list[str]], index: int, columns: int) -> None:
    """Shorten column `index` so the columns before the title fit in `columns`, down to the
    column's floor: a project from the left (…/work/app), a model by `short_model`."""
    short = _used(headers, rows) - columns  # cells the title lacks
    if short <= 0:
        return
    widest = max(len(row[index]) for row in rows)
    width = max(_SHRINKABLE_FLOOR[headers[index]], len(headers[index]), widest - short)
    for row in rows:
        if headers[index] == "MODEL":
            row[index] = short_model(row[index], width)
        elif len(row[index]) > width:
            row[index] = "…" + row[index][len(row[index]) - width + 1 :]


def short_model(model: str, width: int) -> str:
    """A model's name within `width` characters, its start kept: the provider prefixes go
    first (openrouter/anthropic/claude-3.5-sonnet → claude-3.5-sonnet), then its end, marked
    with … (claude-3.5-…)."""
    while len(model) > width and "/" in model.rstrip("/"):
        model = model.split("/", 1)[1]
    return model if len(model) <= width else model[: max(1, width - 1)] + "…"


def show_command(session_id: str) -> int:
    """The session as Markdown on stdout; anything skipped while loading on stderr."""
    loaded = _load(session_id)
    sys.stdout.write(_markdown(loaded))
    return 0


def export_command(session_id: str, fmt: str, output: str | None) -> int:
    """The session as Markdown or JSON, to stdout or to a private file."""
    loaded = _load(session_id)
    text = _markdown(loaded) if fmt == "md" else export_json(loaded)
    if output is None or output == "-":
        sys.stdout.write(text)
        return 0
    target = Path(output).expanduser()
    try:
        atomic_write(target, text.encode("utf-8"), 0o600)
    except OSError as error:
        raise AgentError(
            f"cannot write {sanitize_line(str(target))}: {error.strerror or error}; "
            "choose another file with -o"
        ) from None
    say(f"Exported session {loaded.header.id} to {sanitize_line(str(target))} ({fmt}).")
    return 0


def delete_command(session_id: str, yes: bool) -> int:
    """Delete one session file, after a y/N question on a terminal (or --yes)."""
    path = find_session(session_id)
    name = path.stem
    if not yes:
        if not sys.stdin.isatty():
            raise AgentError(
                f"not deleting session {name}: there is no terminal to confirm it; add --yes "
                "to delete without asking"
            )
        _describe(path)
        if not _ask_yes(f"Delete session {name}? [y/N] "):
            say("Nothing deleted.")
            return 1
    try:
        path.unlink()
        delete_images(path)
    except FileNotFoundError:
        raise AgentError(f"session {name} was already deleted") from None
    except OSError as error:
        raise AgentError(f"cannot delete {path}: {error.strerror or error}") from None
    say(f"Deleted session {name}.")
    return 0


def _load(session_id: str) -> LoadedSession:
    loaded = load_session(find_session(session_id))
    for note in loaded.notes:
        warn(f"note: {sanitize_line(loaded.header.id)}: {sanitize_line(note)}")
    return loaded


def _markdown(loaded: LoadedSession) -> str:
    skipped: list[str] = []
    text = export_markdown(loaded, skipped)
    for note in skipped:
        warn(f"note: {loaded.header.id}: {note}")
    return text


def _describe(path: Path) -> None:
    try:
        summary = summarize(path)
    except (SessionError, OSError) as error:
        say(f"Session:       {path.stem} (unreadable: {sanitize_line(str(error))})")
        return
    say(f"Session:       {summary.header.id}")
    say(f"Title:         {_printable(summary.title) or '(no messages)'}")
    say(f"Project:       {sanitize_line(summary.header.project)}")
    say(f"Messages:      {summary.message_count}")
    say(f"Last activity: {local_time(summary.last_activity)}")


def _ask_yes(question: str) -> bool:
    # Only a line typed after the question answers it (agent.commands.terminal does the same).
    with contextlib.suppress(OSError, termios.error, ValueError):
        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    try:
        answer = input(question)
    except EOFError:
        say()
        return False
    return answer.strip().lower() in ("y", "yes")


def local_time(stamp: str) -> str:
    """An ISO time stamp as short local time, e.g. 2026-11-29 15:35 (as saved if unreadable)."""
    try:
        moment = datetime.datetime.fromisoformat(stamp)
    except ValueError:
        return stamp
    if moment.tzinfo is None:
        moment = moment.replace(tzinfo=datetime.UTC)
    return moment.astimezone().strftime("%Y-%m-%d %H:%M")


def _home_relative(path: str) -> str:
    home = os.path.expanduser("~")
    if home not in ("", "/") and (path == home or path.startswith(home + os.sep)):
        return "~" + path[len(home) :]
    return path


def _printable(text: str) -> str:
    # A lone surrogate (saved from a tool's or a terminal's bad bytes) cannot be printed.
    return sanitize_line(text).encode("utf-8", "replace").decode("utf-8")


def _cut(text: str, width: int) -> str:
    """`text` within `width` terminal cells, ending in … when cut (as agent/ui/fit.py does in
    the chat, without loading prompt_toolkit for a listing)."""
    if sum(_cells(char) for char in text) <= width:
        return text
    kept, used = [], 1  # the ellipsis' cell
    for char in text:
        used += _cells(char)
        if used > width:
            break
        kept.append(char)
    return "".join(kept) + "…"


def _cells(char: str) -> int:
    # Wide (CJK, most emoji) characters take two cells, combining marks none.
    if unicodedata.combining(char):
        return 0
    return 2 if unicodedata.east_asian_width(char) in ("W", "F") else 1
