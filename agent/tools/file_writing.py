"""Changing one file of the project safely: where it is, what it holds now, and replacing (or
removing) it all or nothing, never through a link.

`locate` applies read_file's fence (agent.tools.containment) and refuses version control's
own folders. Every later step walks down from the project's folder one real folder at a time
(O_NOFOLLOW, by folder descriptor), so a folder or the file swapped for a link after the check
(a race with the person's approval) makes the step fail instead of writing elsewhere. New
content goes to a temporary file in the same folder, is synced, then renamed over the old one
(os.replace): a reader sees the old bytes or the new, never a mix. The file keeps its
permissions (without set-id bits); a new file gets 0644. /undo reaches a changed file again by
the path recorded (`recorded`), and what a fenced command left where git runs it later is taken
away (`remove_entry`, later_run_files.py), through the same walk.
"""

from __future__ import annotations

import contextlib
import errno
import hashlib
import os
import secrets
import shutil
import stat
from collections.abc import Iterator, Sequence
from dataclasses import dataclass, field
from pathlib import Path, PurePosixPath

from agent.text import plural
from agent.tools.containment import inside_project
from agent.tools.folder_descent import is_link_or_file, open_below

WRITE_LIMIT_BYTES = 10 * 1024 * 1024  # what write_file writes and edit_file edits, at most
NEW_FILE_MODE = 0o644
NEW_FOLDER_MODE = 0o755
# Version control's own folders: hooks and config there run programs on the next commit.
VCS_FOLDERS = frozenset({".git", ".hg", ".svn"})


class FileRefusedError(Exception):
    """The change cannot be made as asked; the text says why, for the model and the person."""


class FileChangedError(FileRefusedError):
    """The file is not what the approval showed any more (someone changed it meanwhile)."""


class LinkInTheWayError(FileRefusedError):
    """A folder on the way to the file, or the file itself, is a link (or not a folder) now."""

    def __init__(self, message: str, where: str, link: bool) -> None:
        super().__init__(message)
        self.where = where  # that folder or file, relative to the project
        self.link = link  # False: something else than a folder stands there

    @property
    def now(self) -> str:
        """What stands there now, in words: "docs is now a link"."""
        return f"{self.where} is now a link" if self.link else f"{self.where} is not a folder now"


@dataclass(frozen=True)
class Target:
    """A file of the project, by its real path: the folders below the project, then its name."""

    project: Path
    parts: tuple[str, ...]

    @property
    def shown(self) -> str:
        """The path relative to the project, as the person reads it."""
        return "/".join(self.parts)

    @property
    def path(self) -> Path:
        return self.project.joinpath(*self.parts)


@dataclass(frozen=True)
class FileState:
    """What a file holds now (content None: there is no file), and its permissions."""

    content: bytes | None
    mode: int = NEW_FILE_MODE
    # The file's status when read (a hard link to a credential file is refused by it).
    status: os.stat_result | None = field(default=None, compare=False, repr=False)

    @property
    def exists(self) -> bool:
        return self.content is not None

    @property
    def sha256(self) -> str | None:
        return None if self.content is None else hashlib.sha256(self.content).hexdigest()


def locate(project: Path, relative: str, private: Sequence[Path]) -> Target:
    """The file `relative` names, resolved; FileRefusedError when it is not one to change."""
    root = project.resolve()
    try:
        path = inside_project(root, relative, private, verb="change")
    except ValueError as error:
        raise FileRefusedError(str(error)) from None
    parts = path.relative_to(root).parts
    if not parts:
        raise FileRefusedError(f"{relative!r} is the project directory itself, not a file")
    folder = next((p for p in parts if p.casefold() in VCS_FOLDERS), None)
    if folder is not None:
        raise FileRefusedError(
            f"{relative!r} is inside {folder}, version control's own folder, which the file "
            "tools never change (its hooks and config run programs)"
        )
    return Target(root, parts)


def recorded(project: Path, relative: str, private: Sequence[Path]) -> Target:
    """The file a change was made to, by the very path recorded (for /undo): walked down from
    the project without following a link (LinkInTheWayError names the one in the way: a
    folder swapped for a link since would turn the undo onto another file), then fenced as
    `locate` fences a new change."""
    written = PurePosixPath(relative)
    if written.is_absolute() or not written.parts or ".." in written.parts:
        locate(project, relative, private)  # says why, for one outside the project
        raise FileRefusedError(f"{relative!r} is not a path from the project down")
    target = Target(project.resolve(), written.parts)
    with _folder(target, create=False) as folder:
        if folder is not None and _is_link(folder, target.parts[-1]):
            shown = target.shown
            raise LinkInTheWayError(f"{shown} is a link (now)", shown, link=True)
    if locate(project, relative, private).parts != target.parts:
        raise FileRefusedError(f"{relative!r} resolves to another file now")
    return target


def _is_link(folder: int, name: str) -> bool:
    try:
        return stat.S_ISLNK(os.stat(name, dir_fd=folder, follow_symlinks=False).st_mode)
    except FileNotFoundError:
        return False


def current_state(target: Target, limit: int = WRITE_LIMIT_BYTES) -> FileState:
    """What the file holds now; FileRefusedError for a link, a folder, a device, a big file."""
    with _folder(target, create=False) as folder:
        if folder is None:
            return FileState(None)
        return _state_at(folder, target, limit)


def replace_file(target: Target, content: bytes, expected: FileState) -> int:
    """Give the file `content`, if it still holds what `expected` says (FileChangedError
    otherwise); missing folders on the way are made. Returns how many it made: the deepest
    folders of the path, which /undo may take away again (`remove_made_folders`)."""
    name = target.parts[-1]
    made: list[str] = []
    with _folder(target, create=True, made=made) as folder:
        assert folder is not None
        if _state_at(folder, target, None).content != expected.content:
            raise FileChangedError(f"{target.shown} changed since you approved; nothing written")
        mode = (expected.mode if expected.exists else NEW_FILE_MODE) & 0o777
        temporary = f".{name}.{secrets.token_hex(4)}.agent-new"
        fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_NOFOLLOW, 0o600,
                     dir_fd=folder)  # fmt: skip
        try:
            with os.fdopen(fd, "wb") as handle:
                handle.write(content)
                handle.flush()
                os.fchmod(handle.fileno(), mode)
                os.fsync(handle.fileno())
            # A rename replaces the name in this folder, whatever it is now: never a link's target.
            os.replace(temporary, name, src_dir_fd=folder, dst_dir_fd=folder)
        except BaseException:
            with contextlib.suppress(FileNotFoundError):
                os.unlink(temporary, dir_fd=folder)
            raise
        os.fsync(folder)
    return len(made)


def remove_file(target: Target, expected: FileState) -> None:
    """Delete the file if it still holds what `expected` says (FileChangedError otherwise)."""
    with _folder(target, create=False) as folder:
        if folder is None or _state_at(folder, target, None).content != expected.content:
            raise FileChangedError(f"{target.shown} changed since; not deleted")
        os.unlink(target.parts[-1], dir_fd=folder)
        os.fsync(folder)


def remove_entry(target: Target) -> bool:
    """Remove what stands at the target's name now, a file, a link or a folder with all it
    holds, reached without following a link (LinkInTheWayError); False: nothing stands there."""
    name = target.parts[-1]
    with _folder(target, create=False) as folder:
        if folder is None:
            return False
        try:
            info = os.stat(name, dir_fd=folder, follow_symlinks=False)
        except FileNotFoundError:
            return False
        if stat.S_ISDIR(info.st_mode):
            shutil.rmtree(name, dir_fd=folder)  # by descriptors: never leaves the folder
        else:
            os.unlink(name, dir_fd=folder)
        return True


def restore_link(target: Target, link: str) -> None:
    """Make the target's name the link `link` again (its folders made where missing)."""
    with _folder(target, create=True) as folder:
        assert folder is not None
        os.symlink(link, target.parts[-1], dir_fd=folder)


def remove_made_folders(target: Target, count: int) -> tuple[list[str], str | None]:
    """Take away the `count` deepest folders on the way to the target (those its write made,
    `replace_file`'s count), deepest first, each only while empty: a folder that holds
    anything, is a link now or cannot be reached without following one stays, and so do the
    folders above it. Each is removed by name in its parent's descriptor, reached as every
    step here is (never through a link; rmdir does not follow a link either), so nothing
    outside the project, and no folder above the file's, can be touched. Returns the folders
    removed and, when one stayed, why."""
    folders = len(target.parts) - 1
    removed: list[str] = []
    for depth in range(folders - 1, folders - 1 - max(0, min(count, folders)), -1):
        shown = "/".join(target.parts[: depth + 1])
        kept = _remove_folder(Target(target.project, target.parts[: depth + 1]), shown)
        if kept is not None:
            return removed, kept
        removed.append(shown)
    return removed, None


def _remove_folder(folder: Target, shown: str) -> str | None:
    """rmdir of the folder `folder` names, in its parent reached without links; None when it
    is gone (or was already), else why it stays."""
    try:
        with _folder(folder, create=False) as parent:
            if parent is not None:
                try:
                    os.rmdir(folder.parts[-1], dir_fd=parent)
                except FileNotFoundError:
                    pass
                except OSError as error:
                    if error.errno in (errno.ENOTEMPTY, errno.EEXIST):
                        return f"{shown} is kept: it holds other files"
                    if _is_link(parent, folder.parts[-1]):
                        return f"{shown} is kept: it is a link now"
                    return f"{shown} is kept: {error.strerror or error}"
    except LinkInTheWayError as error:
        return f"{shown} is kept: {error.now}"
    return None


@contextlib.contextmanager
def _folder(target: Target, create: bool, made: list[str] | None = None) -> Iterator[int | None]:
    """A descriptor of the file's folder reached without following any link (None: a folder
    on the way is missing and `create` is False); `made` gets each folder this made."""
    fd = os.open(target.project, os.O_RDONLY | os.O_DIRECTORY)
    try:
        for depth in range(len(target.parts) - 1):
            below = _open_folder(fd, depth, target, create, made)
            os.close(fd)
            fd = below
            if fd < 0:
                break
        yield None if fd < 0 else fd
    finally:
        if fd >= 0:
            os.close(fd)


def _open_folder(
    parent: int, depth: int, target: Target, create: bool, made: list[str] | None = None
) -> int:
    """The folder `target.parts[depth]` in `parent` (-1: missing and not to be made); a
    folder this makes is added to `made` (one somebody else made meanwhile is not)."""
    name = target.parts[depth]
    for _attempt in range(2):
        try:
            return open_below(parent, name)
        except FileNotFoundError:
            if not create:
                return -1
            with contextlib.suppress(FileExistsError):
                os.mkdir(name, NEW_FOLDER_MODE, dir_fd=parent)
                if made is not None:
                    made.append("/".join(target.parts[: depth + 1]))
        except OSError as error:
            if is_link_or_file(error):
                raise LinkInTheWayError(
                    f"{target.shown}: the folder {name!r} on the way is a link or not a folder "
                    "(now); nothing is changed through a link",
                    "/".join(target.parts[: depth + 1]),
                    link=_is_link(parent, name),
                ) from None
            raise
    raise FileRefusedError(f"{target.shown}: the folder {name!r} could not be made")


def _state_at(folder: int, target: Target, limit: int | None) -> FileState:
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW
    try:
        fd = os.open(target.parts[-1], flags, dir_fd=folder)
    except FileNotFoundError:
        return FileState(None)
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise LinkInTheWayError(
                f"{target.shown} is a link (now); nothing is changed through a link",
                target.shown,
                link=True,
            ) from None
        raise FileRefusedError(f"{target.shown} cannot be opened ({error.strerror})") from None
    try:
        info = os.fstat(fd)
        if stat.S_ISDIR(info.st_mode):
            raise FileRefusedError(f"{target.shown} is a folder, not a file")
        if not stat.S_ISREG(info.st_mode):
            raise FileRefusedError(
                f"{target.shown} is not a regular file (a pipe, socket or device)"
            )
        if limit is not None and info.st_size > limit:
            raise FileRefusedError(
                f"{target.shown} is {plural(info.st_size, 'byte')}, over the file tools' "
                f"limit of {plural(limit, 'byte')}"
            )
        os.set_blocking(fd, True)
        with os.fdopen(os.dup(fd), "rb") as handle:
            return FileState(handle.read(), stat.S_IMODE(info.st_mode), info)
    finally:
        os.close(fd)
