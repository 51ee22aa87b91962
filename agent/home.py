"""Where files live (agent's own folders among them), and the two safe ways to change them:
atomic writes and file locks.

Config home holds settings.yaml, mcp-servers.json and trust records; data home holds sessions
and server logs. `AGENT_HOME` overrides both (tests always set it); otherwise they are the
platform's user config and data directories for `agent`.
"""

from __future__ import annotations

import contextlib
import fcntl
import os
import tempfile
from collections.abc import Iterator
from pathlib import Path

APP_NAME = "agent"


def _home_override() -> Path | None:
    value = os.environ.get("AGENT_HOME")
    return Path(value).expanduser() if value else None


def config_home() -> Path:
    """Directory for settings, the MCP store and trust records."""
    override = _home_override()
    if override is not None:
        return override
    import platformdirs  # only needed when AGENT_HOME is unset

    return Path(platformdirs.user_config_dir(APP_NAME))


MCP_STORE_FILE_NAME = "mcp-servers.json"


def mcp_store_path() -> Path:
    """mcp-servers.json in the config home: the MCP servers and their state."""
    return config_home() / MCP_STORE_FILE_NAME


def data_home() -> Path:
    """Directory for sessions, prompt history and server logs."""
    override = _home_override()
    if override is not None:
        return override
    import platformdirs

    return Path(platformdirs.user_data_dir(APP_NAME))


def own_folders() -> tuple[Path, ...]:
    """agent's own folders, resolved: the config and data homes, and the platform's config,
    data and cache folders for agent (also when AGENT_HOME points elsewhere)."""
    import platformdirs

    folders = {
        config_home(),
        data_home(),
        Path(platformdirs.user_config_dir(APP_NAME)),
        Path(platformdirs.user_data_dir(APP_NAME)),
        Path(platformdirs.user_cache_dir(APP_NAME)),
    }
    return tuple(sorted({folder.expanduser().resolve() for folder in folders}))


def ensure_private_dir(path: Path) -> Path:
    """Create `path` (and parents) if missing; a new leaf directory is 0700."""
    path.mkdir(parents=True, exist_ok=True, mode=0o700)
    return path


def atomic_write(path: Path, data: bytes, mode: int = 0o600) -> None:
    """Replace `path` with `data` all or nothing: temp file in the same folder, fsync, rename.

    A reader sees either the old bytes or the new ones, never a mix, even if we die mid-write.
    """
    ensure_private_dir(path.parent)
    fd, tmp_name = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=path.parent)
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as handle:
            handle.write(data)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(tmp_name, path)
    except BaseException:
        with contextlib.suppress(FileNotFoundError):
            os.unlink(tmp_name)
        raise
    _fsync_directory(path.parent)


def _fsync_directory(directory: Path) -> None:
    # The rename is durable only once the directory entry is on disk.
    fd = os.open(directory, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


@contextlib.contextmanager
def file_lock(path: Path) -> Iterator[None]:
    """Hold an exclusive cross-process lock on `<path>.lock` for a read-modify-write of `path`.

    The lock file is separate from the data file because atomic_write replaces the data
    file's inode, which would silently drop a lock held on it.
    """
    ensure_private_dir(path.parent)
    lock_path = path.with_name(path.name + ".lock")
    fd = os.open(lock_path, os.O_RDWR | os.O_CREAT, 0o600)
    try:
        fcntl.flock(fd, fcntl.LOCK_EX)
        yield
    finally:
        fcntl.flock(fd, fcntl.LOCK_UN)
        os.close(fd)
