"""One MCP server's log file: private, capped, rotated once.

A server can print without end; its log must not fill the disk. At the cap the file
becomes `<name>.log.1` (replacing an older one) and a fresh file starts. The folder is
0700 and each file 0600: the log holds what servers say, which is nobody else's business.
Callers write text that is already redacted: nothing reaches the file unredacted.
"""

from __future__ import annotations

import contextlib
import os
from pathlib import Path

MAX_LOG_BYTES = 4 * 1024 * 1024


class ServerLog:
    """Appends whole lines to `path`, rotating it when the next write would pass the cap."""

    def __init__(self, path: Path, max_bytes: int = MAX_LOG_BYTES) -> None:
        self.path = path
        self._max_bytes = max_bytes
        path.parent.mkdir(parents=True, exist_ok=True, mode=0o700)
        os.chmod(path.parent, 0o700)  # an older or hand-made folder may be wider
        self._fd: int | None = None
        self._size = 0
        self._open()

    @property
    def closed(self) -> bool:
        """True once close() was called."""
        return self._fd is None

    def write(self, text: str) -> None:
        """Append `text` (whole lines, already redacted); a closed log ignores it."""
        if self._fd is None:
            return
        data = text.encode("utf-8", errors="replace")
        if self._size and self._size + len(data) > self._max_bytes:
            self._rotate()
        if len(data) > self._max_bytes:  # one write never makes a file bigger than the cap
            data = data[: self._max_bytes - 16] + b" [cut]\n"
        self._write_all(data)

    def close(self) -> None:
        """Close the file; later writes are ignored (a connection may still be winding down)."""
        fd, self._fd = self._fd, None
        if fd is not None:
            os.close(fd)

    def _open(self) -> None:
        fd = os.open(self.path, os.O_WRONLY | os.O_APPEND | os.O_CREAT, 0o600)
        os.fchmod(fd, 0o600)
        self._fd = fd
        self._size = os.fstat(fd).st_size

    def _rotate(self) -> None:
        self.close()
        with contextlib.suppress(FileNotFoundError):  # someone removed it meanwhile
            os.replace(self.path, self.path.with_name(self.path.name + ".1"))
        self._open()

    def _write_all(self, data: bytes) -> None:
        assert self._fd is not None
        view = memoryview(data)
        while view:
            written = os.write(self._fd, view)
            view = view[written:]
        self._size += len(data)
