"""Reading a text file for the model, bounded: regular files only, by lines, within a byte cap.

Shared by read_file and read_skill_resource. A FIFO or a device would block the open or
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

from agent.tools.credential_files import CREDENTIAL_REFUSAL, PRIVATE_KEY_REFUSAL, holds_private_key

READ_LIMIT_BYTES = 256 * 1024
_SNIFF_BYTES = 64 * 1024  # a NUL in here: a binary file
_SKIP_CHUNK = 64 * 1024  # lines before the offset are read in pieces this size, not kept


class UnreadableFileError(Exception):
    """The file is not a regular file, cannot be opened, or is binary; the text says which."""


def open_regular(path: Path | str, dir_fd: int | None = None) -> BinaryIO:
    """Open `path` (in the folder `dir_fd` if given) for reading if it is a regular file;
    never blocks on a FIFO or device."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | os.O_NOFOLLOW
    try:
        fd = os.open(path, flags, dir_fd=dir_fd)
    except OSError as error:
        raise UnreadableFileError(f"cannot be opened ({error.strerror or error})") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise UnreadableFileError("is not a regular file (a pipe, socket or device)")
        os.set_blocking(fd, True)
        return os.fdopen(fd, "rb")
    except BaseException:
        os.close(fd)
        raise


@dataclass(frozen=True)
class TextPart:
    """Lines of a file: the text, and where to go on when the byte cap cut it."""

    text: str
    lines_before: int  # lines that exist before the part (at most the offset asked for)
    next_offset: int | None = None  # set when cut by the byte cap


def read_lines(
    path: Path, offset: int = 0, limit: int | None = None, cap: int = READ_LIMIT_BYTES
) -> TextPart:
    """Lines offset..offset+limit of a UTF-8 text file, at most `cap` bytes of them.

    The file is streamed: lines before the offset are counted, not kept, so any offset of
    any size of file can be read. A first line longer than the cap is shown cut, and the
    next offset goes past it.
    """
    with open_regular(path) as handle:
        head = handle.read(_SNIFF_BYTES)
        if b"\0" in head:
            raise UnreadableFileError("is a binary file")
        if holds_private_key(head):  # a key under a name no credential rule knows
            raise UnreadableFileError(f"{PRIVATE_KEY_REFUSAL}, {CREDENTIAL_REFUSAL}")
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
    if b"\0" in out:
        raise UnreadableFileError("is a binary file")
    return TextPart(out.decode("utf-8", errors="replace"), before, next_offset)


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
