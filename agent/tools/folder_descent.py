"""Going down from a folder one real folder at a time, by descriptor, never through a link.

Shared by the file tools' writes (file_writing.py, down from the project) and a skill's pinned
folder (pinned_folder.py, down from the folder that was trusted): a folder on the way that is,
or was swapped for, a link makes the step fail (O_NOFOLLOW) instead of leading elsewhere.
"""

from __future__ import annotations

import contextlib
import errno
import os
from collections.abc import Iterator, Sequence

FOLDER_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW


def open_below(parent: int, name: str) -> int:
    """A descriptor of the folder `name` in the folder `parent`, never through a link; OSError
    as os.open raises it (`is_link_or_file` tells a link or a file on the way)."""
    return os.open(name, FOLDER_FLAGS, dir_fd=parent)


def is_link_or_file(error: OSError) -> bool:
    """Whether open_below failed because the name is a link or not a folder."""
    return error.errno in (errno.ELOOP, errno.ENOTDIR)


@contextlib.contextmanager
def folder_below(root: int, parts: Sequence[str]) -> Iterator[int]:
    """A descriptor of the folder `parts` below `root` (root itself for no parts; the caller
    keeps root open), each step by open_below; closed on leaving. OSError as open_below."""
    fd = os.dup(root)
    try:
        for name in parts:
            below = open_below(fd, name)
            os.close(fd)
            fd = below
        yield fd
    finally:
        os.close(fd)
