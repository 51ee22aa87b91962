"""Reading a text file for the model, bounded: regular files only, by lines, within a byte cap.

Shared by read_file and read_skill_resource. A file holding a private key is refused whole,
whatever part was asked for (agent.tools.credential_files: lines 2..N of a key are the key).
A FIFO or a device would block the open or
the read forever (or never end), so the file is opened without blocking and must be a regular
file; the final path component may not be a symlink (the caller resolved it already, so one
appearing now is a swap between the check and the open).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass
from pathlib import Path
from typing import BinaryIO

from agent.tools.credential_files import KEY_SCAN_BYTES, file_holds_private_key
from agent.tools.credential_links import CredentialLinks

READ_LIMIT_BYTES = 256 * 1024
_SNIFF_BYTES = 64 * 1024  # a NUL in here: a binary file
_SKIP_CHUNK = 64 * 1024  # lines before the offset are read in pieces this size, not kept


class UnreadableFileError(Exception):
    """The file is not a regular file, cannot be opened, or is binary; the text says which."""


class HoldsPrivateKeyError(UnreadableFileError):
    """The file holds a private key: none of it is shown."""


class LinkedCredentialError(UnreadableFileError):
    """The file is a hard link to a credential file elsewhere (agent.tools.credential_links):
    none of it is shown."""

    def __init__(self, linked_to: str) -> None:
        super().__init__(f"is a hard link to {linked_to}")
        self.linked_to = linked_to


def open_regular(path: Path | str, dir_fd: int | None = None) -> BinaryIO:
    """Open `path` (in the folder `dir_fd` if given) for reading if it is a regular file;
    never blocks on a FIFO or device."""
    fd, _ = _regular_fd(path, dir_fd)
    try:
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


def _regular_fd(path: Path | str, dir_fd: int | None) -> tuple[int, os.stat_result]:
    """A descriptor of `path` and its status if it is a regular file, opened without blocking
    (a FIFO or device must not hold us) and never through a link; UnreadableFileError else."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except OSError as error:
        raise UnreadableFileError(f"cannot be opened ({error.strerror or error})") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise UnreadableFileError("is not a regular file (a pipe, socket or device)")
    except BaseException:
        os.close(fd)
        raise
    return fd, status


def read_regular(name: str, dir_fd: int, limit: int, links: CredentialLinks | None = None) -> bytes:
    """At most `limit` bytes from the start of `name` in the folder `dir_fd`, if it is a
    regular file (never blocks on a FIFO or device, never through a link) and no hard link to
    a credential file (`links`): open_regular's checks without its buffered file object, for a
    search that reads thousands of files."""
    fd, status = _regular_fd(name, dir_fd)
    try:
        _refuse_linked(status, links)
        # O_NONBLOCK means nothing to a regular file. One read takes it all (a short read of a
        # regular file is its end); more only if it grew since fstat.
        asked = min(status.st_size + 1, limit)
        data = os.read(fd, asked)
        if len(data) < asked or asked == limit:
            return data
        pieces = [data]
        while pieces[-1] and asked < limit:
            pieces.append(os.read(fd, min(_SKIP_CHUNK, limit - asked)))
            asked += len(pieces[-1])
        return b"".join(pieces)
    finally:
        os.close(fd)


@dataclass(frozen=True)
class TextPart:
    """Lines of a file: the text, and where to go on when the byte cap cut it."""

    text: str
    lines_before: int  # lines that exist before the part (at most the offset asked for)
    next_offset: int | None = None  # set when cut by the byte cap


def read_lines(
    path: Path,
    offset: int = 0,
    limit: int | None = None,
    cap: int = READ_LIMIT_BYTES,
    links: CredentialLinks | None = None,
) -> TextPart:
    """Lines offset..offset+limit of a UTF-8 text file, at most `cap` bytes of them; none of
    a hard link to a credential file (`links`).

    The file is streamed: lines before the offset are counted, not kept, so any offset of
    any size of file can be read. A first line longer than the cap is shown cut, and the
    next offset goes past it.
    """
    with open_regular(path) as handle:
        _refuse_linked(os.fstat(handle.fileno()), links)
        if b"\0" in handle.read(_SNIFF_BYTES):
            raise UnreadableFileError("is a binary file")
        handle.seek(0)
        before = _skip_lines(handle, offset)
        out = bytearray()
        shown = 0
        next_offset = None
        while limit is None or shown < limit:
            room = cap - len(out)
            piece = handle.readline(room + 1)
            if not piece:
                break
            if len(piece) > room:
                if shown == 0:
                    out += piece[:room]
                    shown = 1
                next_offset = offset + shown
                break
            out += piece
            shown += 1
        # Everything before the part and in it (a key's BEGIN line may lie before the offset),
        # and the whole of any file of a reasonable size, so a file is refused from any offset.
        if file_holds_private_key(handle, max(handle.tell(), KEY_SCAN_BYTES)):
            raise HoldsPrivateKeyError("holds a private key")
    if b"\0" in out:
        raise UnreadableFileError("is a binary file")
    return TextPart(out.decode("utf-8", errors="replace"), before, next_offset)


def _refuse_linked(status: os.stat_result, links: CredentialLinks | None) -> None:
    """LinkedCredentialError when the open file is a hard link to a credential file: judged
    by the descriptor read, so a file swapped since the path was checked is judged too."""
    linked_to = None if links is None else links.linked_to(status)
    if linked_to is not None:
        raise LinkedCredentialError(linked_to)


def _skip_lines(handle: BinaryIO, count: int) -> int:
    """Read past `count` lines (fewer at the end of the file); returns how many there were."""
    skipped = 0
    partial = False  # inside a line longer than one piece
    while skipped < count:
        piece = handle.readline(_SKIP_CHUNK)
        if not piece:
            return skipped + partial  # a last line without a newline is a line too
        partial = not piece.endswith(b"\n")
        skipped += not partial
    return skipped
