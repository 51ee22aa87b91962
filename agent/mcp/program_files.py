"""The content of a program file, as trust records it: a program replaced after a yes (a
`git pull` rewriting `./tool.sh`) asks again, though its path is the same.

Only the program file itself is covered: a script an interpreter reads from its arguments
(`python server.py`) is not. Regular files up to MAX_HASHED_BYTES are hashed (SHA-256); a
larger one is recorded by size and modification time, so any rewrite still shows.
"""

from __future__ import annotations

import hashlib
import os
import stat
from functools import lru_cache

MAX_HASHED_BYTES = 256 * 1024 * 1024
_CHUNK = 1024 * 1024


def program_digest(path: str | None) -> str | None:
    """A digest of the file at `path` ("sha256:..."), or None when there is no such file."""
    if path is None:
        return None
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    if info.st_size > MAX_HASHED_BYTES:
        return f"size:{info.st_size}:mtime:{info.st_mtime_ns}"
    # One hash per file version per process: `agent mcp list` judges every server.
    return _digest(path, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


@lru_cache(maxsize=256)
def _digest(path: str, _inode: int, _size: int, _mtime: int, _ctime: int) -> str | None:
    hasher = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                hasher.update(chunk)
    except OSError:
        return None
    return "sha256:" + hasher.hexdigest()
