"""Finding and reading instruction files: AGENTS.md (else CLAUDE.md, else GEMINI.md) in the
project root and each directory down to the working directory, and the person's own
`~/.agents/AGENTS.md`.

A project's files are someone else's: each is read once, at start, as data. Only a regular file
is read (a FIFO or device would block or never end), at most MAX_READ_BYTES of it; a link is
followed only when it resolves inside the project (the person's own file may link anywhere),
and never into agent's own folders (trust records, sessions, settings). What was read is what
is fingerprinted for trust and what reaches the model: a file changed after it was read is not
seen until the next start, where it is asked about again.
"""

from __future__ import annotations

import hashlib
import os
from collections.abc import Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Literal

from agent.tools.reading import UnreadableFileError, open_regular

INSTRUCTION_NAMES = ("AGENTS.md", "CLAUDE.md", "GEMINI.md")  # per directory, the first found
USER_FILE = Path(".agents") / "AGENTS.md"
MAX_READ_BYTES = 1024 * 1024  # the budget setting may not exceed this
Scope = Literal["user", "project"]


@dataclass(frozen=True)
class InstructionFile:
    """One instruction file as read: `data` holds at most MAX_READ_BYTES of it."""

    path: Path
    label: str  # how the person and the model see it: "./AGENTS.md", "~/.agents/AGENTS.md"
    scope: Scope
    data: bytes
    size: int  # the whole file's size in bytes

    @property
    def sha256(self) -> str:
        """sha256 of what was read (what may reach the model)."""
        return hashlib.sha256(self.data).hexdigest()

    @property
    def text(self) -> str:
        """The content as text (bytes that are not UTF-8 become U+FFFD)."""
        return self.data.decode("utf-8", errors="replace")


@dataclass(frozen=True)
class InstructionFiles:
    """The person's own file (if any), the project's files outermost first, and the files
    that were found but not read, with why."""

    user: tuple[InstructionFile, ...] = ()
    project: tuple[InstructionFile, ...] = ()
    skipped: tuple[str, ...] = field(default_factory=tuple)


def find_instruction_files(
    project: Path,
    cwd: Path,
    *,
    home: Path | None = None,
    private: Sequence[Path] | None = None,
) -> InstructionFiles:
    """The instruction files for a chat in `cwd` of `project` (both resolved here)."""
    if private is None:
        from agent.home import own_folders

        private = own_folders()
    root = project.resolve()
    skipped: list[str] = []
    user: list[InstructionFile] = []
    user_path = (Path.home() if home is None else home) / USER_FILE
    found = _read_one(user_path, "~/" + USER_FILE.as_posix(), "user", None, private, skipped)
    if found is not None:
        user.append(found)
    project_files: list[InstructionFile] = []
    for folder in _folders(root, cwd.resolve()):
        for name in INSTRUCTION_NAMES:
            path = folder / name
            if not _exists(path):
                continue
            relative = path.relative_to(root).as_posix()
            found = _read_one(path, f"./{relative}", "project", root, private, skipped)
            if found is not None and found.path.resolve() not in {f.path.resolve() for f in user}:
                project_files.append(found)
            break  # this folder's file is the first name found, read or not
    return InstructionFiles(tuple(user), tuple(project_files), tuple(skipped))


def _folders(root: Path, cwd: Path) -> list[Path]:
    """The root, then each folder down to `cwd` (only the root when cwd is not inside it)."""
    if cwd != root and root not in cwd.parents:
        return [root]
    parts = cwd.relative_to(root).parts
    return [root.joinpath(*parts[:depth]) for depth in range(len(parts) + 1)]


def _exists(path: Path) -> bool:
    try:
        os.lstat(path)
    except OSError:
        return False
    return True


def _within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def _read_one(
    path: Path,
    label: str,
    scope: Scope,
    bounds: Path | None,
    private: Sequence[Path],
    skipped: list[str],
) -> InstructionFile | None:
    """The file read safely, or None (with a line in `skipped` when it exists but was not)."""
    if not _exists(path):
        return None
    try:
        real = path.resolve(strict=True)
    except (OSError, RuntimeError):  # a dangling link or a link loop
        skipped.append(f"{path}: a link that leads nowhere; not read")
        return None
    if bounds is not None and not _within(real, bounds):
        skipped.append(f"{path}: a link that leads outside the project ({real}); not read")
        return None
    if any(_within(real, folder) for folder in private):
        skipped.append(f"{path}: leads into agent's own settings and data folder; not read")
        return None
    try:
        with open_regular(real) as handle:
            size = os.fstat(handle.fileno()).st_size
            data = handle.read(MAX_READ_BYTES)
    except UnreadableFileError as error:
        skipped.append(f"{path}: {error}; not read")
        return None
    except OSError as error:
        skipped.append(f"{path}: cannot be read ({error.strerror or error}); not read")
        return None
    return InstructionFile(path, label, scope, data, max(size, len(data)))
