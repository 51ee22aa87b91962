"""mcp-servers.backup.json: the MCP configuration as it was before its last change.

Every change of the definitions (import, add, remove, edit, restore) first keeps the store
as it is, byte for byte, so `agent mcp restore` can put it back. It holds what the store holds
(literal env values and headers included), so it is written like the store: 0600, all or
nothing. Restore reads only this one file, by a fixed name beside the store, and never through
a link: whatever was put in its place is refused, not followed.
"""

from __future__ import annotations

import errno
import os
import stat
from pathlib import Path

from agent.errors import StoreError
from agent.home import atomic_write
from agent.text import sanitize_line

_MAX_BYTES = 64 * 1024 * 1024  # far over any real configuration; a bound on what is read


def backup_path(store: Path) -> Path:
    """mcp-servers.backup.json beside mcp-servers.json."""
    return store.with_name(store.stem + ".backup" + store.suffix)


def keep_backup(store: Path, absent: bytes) -> None:
    """Keep the store's present bytes as its backup; `absent` (an empty store, which restores
    to no server configured) when there is no store yet.

    The caller holds the store's lock, so no save can come between this and its own.
    """
    try:
        current = store.read_bytes()
    except FileNotFoundError:
        current = absent
    except OSError as error:
        raise StoreError(f"{store}: cannot read: {error.strerror}; nothing saved") from error
    path = backup_path(store)
    try:
        atomic_write(path, current, mode=0o600)
    except OSError as error:  # a folder in its place, a full disk: said, and nothing saved
        raise StoreError(
            f"{sanitize_line(str(path))}: cannot keep the backup there ({error.strerror}); "
            "nothing saved. Move it away, and run the command again"
        ) from None


def read_backup(store: Path) -> bytes:
    """The backup's bytes, read through a descriptor opened without following a link."""
    path = backup_path(store)
    shown = sanitize_line(str(path))
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NOFOLLOW | os.O_NONBLOCK | os.O_CLOEXEC)
    except FileNotFoundError:
        raise StoreError(
            "there is no backup of the MCP configuration to restore: one is kept at every "
            "change (import, add, remove, edit)"
        ) from None
    except OSError as error:
        if error.errno == errno.ELOOP:
            raise _not_regular(shown) from None
        raise StoreError(f"{shown}: cannot read: {error.strerror}; nothing restored") from None
    try:
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            raise _not_regular(shown)
        with os.fdopen(fd, "rb", closefd=False) as handle:
            data = handle.read(_MAX_BYTES + 1)
    finally:
        os.close(fd)
    if len(data) > _MAX_BYTES:
        raise StoreError(f"{shown}: larger than any MCP configuration; nothing restored")
    return data


def _not_regular(shown: str) -> StoreError:
    return StoreError(
        f"{shown}: not a regular file (a link or something else was put in the backup's "
        "place); nothing restored"
    )
