"""/export [md|json] [PATH]: this session written to a file, and where it went.

Without a path the file goes to the data home's exports/ folder, named by the session. A path
the person gives is theirs to choose, but the file holds the whole conversation (tool results,
pasted keys), so it is written 0600, all or nothing, and never through a symbolic link: a link
at that name (or a folder) is refused, and the final rename replaces a name, so a link swapped
in meanwhile is replaced rather than written through.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from agent.chat.state import ChatSession
from agent.errors import AgentError
from agent.home import atomic_write, data_home, ensure_private_dir
from agent.text import sanitize_line

FORMATS = ("md", "json")
USAGE = "usage: /export [md|json] [PATH] (PATH ending in .json: JSON)"


def export_target(argument: str, session_id: str) -> tuple[str, Path]:
    """The format and file `/export ARGUMENT` means; AgentError for a misuse."""
    words = argument.split(maxsplit=1)
    fmt: str | None = None
    if words and words[0] in FORMATS:
        fmt, words = words[0], words[1:]
    if not words:
        fmt = fmt or "md"
        return fmt, data_home() / "exports" / f"{session_id}.{fmt}"
    path = Path(words[0].strip()).expanduser()
    if fmt is None:
        fmt = "json" if path.suffix.lower() == ".json" else "md"
    return fmt, path.absolute()


def check_writable(path: Path) -> None:
    """AgentError naming the path and what to do when the export cannot go there."""
    shown = sanitize_line(str(path))
    try:
        found = os.lstat(path)
    except FileNotFoundError:
        found = None
    except OSError as error:
        raise AgentError(f"cannot write {shown}: {error.strerror}; choose another path") from None
    if found is not None and stat.S_ISLNK(found.st_mode):
        raise AgentError(
            f"not writing {shown}: it is a symbolic link, and an export never writes through "
            "one; give the file's own path or another name"
        )
    if found is not None and not stat.S_ISREG(found.st_mode):
        raise AgentError(f"cannot write {shown}: it is not a regular file; choose a file's path")
    if not path.parent.is_dir():
        raise AgentError(
            f"cannot write {shown}: the folder {sanitize_line(str(path.parent))} does not exist; "
            "create it first or choose another path"
        )
    if not os.access(path.parent, os.W_OK | os.X_OK):
        raise AgentError(
            f"cannot write {shown}: the folder {sanitize_line(str(path.parent))} is not "
            "writable; choose another path"
        )


def export_session(chat: ChatSession, argument: str) -> str:
    """Write the session as /export ARGUMENT asks; the line saying where it went."""
    from agent.session.export import export_json, export_markdown
    from agent.session.store import load_session

    path = chat.recorder.path
    if path is None:
        return "Nothing to export yet: this chat has no messages."
    fmt, target = export_target(argument, path.stem)
    if target.parent == data_home() / "exports":
        ensure_private_dir(target.parent)  # ours, made on the first export
    check_writable(target)
    loaded = load_session(path)
    text = export_markdown(loaded) if fmt == "md" else export_json(loaded)
    try:
        atomic_write(target, text.encode("utf-8"), 0o600)
    except OSError as error:
        raise AgentError(
            f"cannot write {sanitize_line(str(target))}: {error.strerror or error}; "
            "choose another path"
        ) from None
    kind = "Markdown" if fmt == "md" else "JSON"
    return f"Exported this session ({kind}) to {sanitize_line(str(target))} (readable by you only)."
