"""What trusting a skill binds: SKILL.md and every other file in its folder.

The instructions of a skill point at its scripts and references (`run scripts/run.sh`), so a
changed, added or removed file there is a different skill and must be asked about again. Each
file counts by its relative name and the sha256 of its content; a symlink by the text of its
target, never followed (one pointing out of the folder, at /dev/zero say, is not the skill's
content and must not be read). A FIFO or device counts by name only: opening it could block.

Bounded like the catalog: at most MAX_FILES entries and MAX_BYTES of content are hashed at
each start, and no folder deeper than MAX_DEPTH levels is entered (see folder_walk.py); a
folder that cannot be listed counts the same. A folder over the cap is fingerprinted as "over
the cap" after what was hashed, so it never matches a fingerprint of a folder within it;
changes past the cap go unnoticed, and the trust dialog says so.
"""

from __future__ import annotations

import contextlib
import hashlib
import os
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.skills.folder_walk import MAX_DEPTH, FolderWalk
from agent.skills.model import Skill
from agent.tools.folder_descent import folder_below
from agent.tools.pinned_folder import MovedFolderError, opened
from agent.tools.reading import UnreadableFileError, open_regular

MAX_FILES = 1000
MAX_BYTES = 32 * 1024 * 1024
SKILL_FILE = "SKILL.md"
_CHUNK = 1024 * 1024


@dataclass(frozen=True)
class SkillDigest:
    """A skill's fingerprint, and whether its folder was too big to hash whole."""

    sha256: str
    over_cap: bool = False
    # (relative name, short digest of the entry, size in bytes) of SKILL.md and each entry
    # hashed: kept with a decision so a later change can be said file by file.
    files: tuple[tuple[str, str, int], ...] = ()


def skill_digest(skill: Skill) -> SkillDigest:
    """sha256 over SKILL.md as parsed and every other entry of the skill's folder, bounded:
    the folder as pinned when it was found (the one whose SKILL.md was read, and whose files
    are read and run later), walked by descriptor; never whatever its name leads to by now."""
    try:
        with _root(skill) as root:
            return _digest(skill, root)
    except (MovedFolderError, OSError) as error:
        why = f"the folder found is not at its path any more ({error})"
        digest = hashlib.sha256(f"{SKILL_FILE}\0{skill.content_sha256}\n{why}\n".encode())
        return SkillDigest(digest.hexdigest(), True, ((SKILL_FILE, skill.content_sha256[:16], 0),))


@contextlib.contextmanager
def _root(skill: Skill) -> Iterator[int]:
    if skill.folder is not None:
        with opened(skill.folder) as root:
            yield root
        return
    fd = os.open(skill.directory, os.O_RDONLY | os.O_DIRECTORY)
    try:
        yield fd
    finally:
        os.close(fd)


def _digest(skill: Skill, root: int) -> SkillDigest:
    digest = hashlib.sha256(f"{SKILL_FILE}\0{skill.content_sha256}\n".encode())
    files = [(SKILL_FILE, skill.content_sha256[:16], _size(root, (SKILL_FILE,)))]
    budget = _Budget()
    entries, incomplete = _entries(skill.directory, root)
    for relative, parts in entries:
        if not budget.take_file():
            break
        line = _entry_line(relative, root, parts, budget).encode("utf-8", "surrogateescape")
        digest.update(line)
        files.append((relative, hashlib.sha256(line).hexdigest()[:16], _size(root, parts)))
        if budget.exhausted:
            break
    if incomplete and not budget.exhausted:
        budget.exhausted = True  # what lies deeper or unlisted is not hashed: over the cap too
        digest.update(f"deeper than {MAX_DEPTH} folders, or a folder not listed\n".encode())
    if budget.exhausted:
        digest.update(f"over the cap of {MAX_FILES} files or {MAX_BYTES} bytes\n".encode())
    return SkillDigest(digest.hexdigest(), budget.exhausted, tuple(files))


def _size(root: int, parts: tuple[str, ...]) -> int:
    try:
        with folder_below(root, parts[:-1]) as folder:
            return os.stat(parts[-1], dir_fd=folder, follow_symlinks=False).st_size
    except OSError:
        return 0


def fingerprint(digests: Sequence[tuple[str, str]]) -> str:
    """sha256 over (name, skill digest) pairs, independent of order."""
    digest = hashlib.sha256()
    for name, value in sorted(digests):
        digest.update(f"{name}\0{value}\n".encode())
    return digest.hexdigest()


class _Budget:
    def __init__(self) -> None:
        self.files = MAX_FILES
        self.bytes = MAX_BYTES
        self.exhausted = False

    def take_file(self) -> bool:
        if self.files == 0:
            self.exhausted = True
            return False
        self.files -= 1
        return True


def _entries(path: Path, root: int) -> tuple[list[tuple[str, tuple[str, ...]]], bool]:
    """Every entry under the folder `root` (shown as `path`) but the top SKILL.md, sorted,
    without following links, and whether the walk left something out (too deep, or a folder
    it could not list).

    Stops listing once more than MAX_FILES are found: the caller stops there anyway.
    """
    found: list[tuple[str, tuple[str, ...]]] = []
    walk = FolderWalk(path, root_fd=root)
    for folder in walk:
        for name in sorted([*folder.files, *folder.dir_links]):
            parts = (*folder.relative, name)
            relative = "/".join(parts)
            if relative != SKILL_FILE:
                found.append((relative, parts))
        if len(found) > MAX_FILES:
            break
    found.sort()
    return found, walk.incomplete


def _entry_line(relative: str, root: int, parts: tuple[str, ...], budget: _Budget) -> str:
    try:
        with folder_below(root, parts[:-1]) as folder:
            return _line_at(relative, folder, parts[-1], budget)
    except OSError:
        return f"gone\0{relative}\n"  # removed (or its folder made a link) while we looked


def _line_at(relative: str, folder: int, name: str, budget: _Budget) -> str:
    try:
        mode = os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode
    except OSError:
        return f"gone\0{relative}\n"  # removed while we looked
    if stat.S_ISLNK(mode):
        try:
            return f"link\0{relative}\0{os.readlink(name, dir_fd=folder)}\n"
        except OSError:
            return f"link\0{relative}\0?\n"
    if not stat.S_ISREG(mode):
        return f"special\0{relative}\0{stat.S_IFMT(mode)}\n"
    return f"file\0{relative}\0{_content_sha256(name, folder, budget)}\n"


def _content_sha256(name: str, folder: int, budget: _Budget) -> str:
    digest = hashlib.sha256()
    try:
        with open_regular(name, dir_fd=folder) as handle:
            while chunk := handle.read(min(_CHUNK, budget.bytes + 1)):
                if len(chunk) > budget.bytes:
                    budget.exhausted = True
                    return "over the cap"
                budget.bytes -= len(chunk)
                digest.update(chunk)
    except (UnreadableFileError, OSError) as error:
        return f"unreadable ({error})"
    return digest.hexdigest()
