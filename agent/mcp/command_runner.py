"""Running one command tool call: no shell, empty stdin, capped output, a bounded time.

The program starts in a new session, so it and everything it starts share one process group
that is ours to end: on timeout (or when the call is cancelled) the whole group is killed,
grandchildren included. stdout and stderr are read at once, each kept up to 1 MiB; the rest
is read and dropped, so a program that writes without end never blocks on a full pipe.
"""

from __future__ import annotations

import contextlib
import os
import signal
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass

import anyio
import anyio.abc

OUTPUT_CAP_BYTES = 1024 * 1024
_CHUNK = 65536


@dataclass(frozen=True)
class CommandOutcome:
    """What a run produced: exit code (None when it was killed for time), text, and flags."""

    exit_code: int | None
    stdout: str
    stderr: str
    truncated: bool
    timed_out: bool = False


class _Capture:
    """Bytes kept up to a cap; the rest counted and dropped."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.dropped = 0

    async def drain(self, stream: anyio.abc.ByteReceiveStream | None) -> None:
        if stream is None:
            return
        async for chunk in stream:
            room = self.cap - len(self.data)
            self.data += chunk[:room]
            self.dropped += max(0, len(chunk) - room)

    def text(self) -> str:
        return self.data.decode("utf-8", errors="replace")


async def run_command(
    argv: Sequence[str],
    *,
    cwd: str,
    env: Mapping[str, str],
    timeout: float,
    cap: int = OUTPUT_CAP_BYTES,
) -> CommandOutcome:
    """Run `argv` (argv[0] an absolute path) and collect what it printed, within `timeout`."""
    stdout, stderr = _Capture(cap), _Capture(cap)
    process = await anyio.open_process(
        list(argv),
        stdin=subprocess.DEVNULL,
        cwd=cwd,
        env=dict(env),
        start_new_session=True,
    )
    timed_out = False
    try:
        with anyio.move_on_after(timeout) as scope:
            async with anyio.create_task_group() as group:
                group.start_soon(stdout.drain, process.stdout)
                group.start_soon(stderr.drain, process.stderr)
            await process.wait()
        timed_out = scope.cancelled_caught
    finally:
        # Whatever happened (done, timed out, cancelled), nothing of the call outlives it:
        # a grandchild that kept the pipes open, or one left in the background.
        _kill_group(process.pid)
        with anyio.CancelScope(shield=True):
            await process.wait()
            await process.aclose()
    truncated = bool(stdout.dropped or stderr.dropped)
    exit_code = None if timed_out else process.returncode
    return CommandOutcome(exit_code, stdout.text(), stderr.text(), truncated, timed_out)


def _kill_group(pgid: int) -> None:
    with contextlib.suppress(ProcessLookupError, PermissionError):  # the group is gone
        os.killpg(pgid, signal.SIGKILL)
