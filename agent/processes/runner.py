"""Running one command tool call: no shell, empty stdin, capped output, a bounded time.

The program starts in a new session, so it and everything it starts share one process group
that is ours to end: when the call is over (done, timed out or cancelled) the whole group is
killed. A descendant that left the group (setsid, a daemon) is out of our reach; if it keeps
the program's output open, we stop reading a short grace after the program exits instead of
waiting for it, keep the program's real exit code, and say so in the result.

The group is killed before the program (its leader) is reaped: until then its pid cannot be
reused, so the kill can never reach an unrelated group. That is why the program is started
with subprocess.Popen and watched through a pidfd, not through asyncio's child watcher, which
reaps on its own. stdout and stderr are read at once, each kept up to 1 MiB; the rest is read
and dropped, so a program that writes without end never blocks on a full pipe.

A new session also means no signal to the agent reaches the program. SIGTERM and SIGHUP are
handled (groups.py); SIGKILL runs no handler, so on Linux the program asks the kernel to
kill it when the agent dies (parent_death.py). Only the program itself: what it started in its
group is ended by nobody then.
"""

from __future__ import annotations

import contextlib
import os
import subprocess
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import IO

import anyio

from agent.processes.groups import forget, kill_group, register
from agent.processes.parent_death import die_with_parent

OUTPUT_CAP_BYTES = 1024 * 1024
# After the program exits, how long its output may still arrive (from a descendant that is
# finishing) before reading stops.
EXIT_GRACE_SECONDS = 0.5
_CHUNK = 65536
_POLL_SECONDS = 0.05  # without pidfd (not Linux): how often to look whether the program exited


@dataclass(frozen=True)
class CommandOutcome:
    """What a run produced: exit code (None when it was killed for time), text, and flags.

    `output_held` is True when something the program started still held its stdout or
    stderr open after the program exited (reading stopped there)."""

    exit_code: int | None
    stdout: str
    stderr: str
    truncated: bool
    timed_out: bool = False
    output_held: bool = False
    stdout_dropped: int = 0  # bytes read past the cap and dropped
    stderr_dropped: int = 0


class _Capture:
    """Bytes kept up to a cap; the rest counted and dropped."""

    def __init__(self, cap: int) -> None:
        self.cap = cap
        self.data = bytearray()
        self.dropped = 0
        self.ended = anyio.Event()

    async def drain(self, pipe: IO[bytes] | None) -> None:
        if pipe is None:
            self.ended.set()
            return
        descriptor = pipe.fileno()
        os.set_blocking(descriptor, False)
        while True:
            await anyio.wait_readable(descriptor)
            try:
                chunk = os.read(descriptor, _CHUNK)
            except BlockingIOError:
                continue
            if not chunk:
                self.ended.set()
                return
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
    pass_fds: Sequence[int] = (),
) -> CommandOutcome:
    """Run `argv` (argv[0] an absolute path) and collect what it printed, within `timeout`."""
    stdout, stderr = _Capture(cap), _Capture(cap)
    process = subprocess.Popen(  # not asyncio's: see the module docstring
        list(argv),
        stdin=subprocess.DEVNULL,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=cwd,
        env=dict(env),
        start_new_session=True,
        preexec_fn=die_with_parent(),
        pass_fds=tuple(pass_fds),  # e.g. the sandbox's seccomp filter, read by bwrap
    )
    register(process.pid)
    try:
        with anyio.move_on_after(timeout) as scope:
            async with anyio.create_task_group() as group:
                group.start_soon(stdout.drain, process.stdout)
                group.start_soon(stderr.drain, process.stderr)
                await _exited(process.pid)
                with anyio.move_on_after(EXIT_GRACE_SECONDS):
                    await stdout.ended.wait()
                    await stderr.ended.wait()
                group.cancel_scope.cancel()
    finally:
        # Whatever happened (done, timed out, cancelled), the group dies while its leader is
        # still unreaped, then the leader is reaped.
        kill_group(process.pid)
        forget(process.pid)
        with anyio.CancelScope(shield=True):
            await _exited(process.pid)
            process.wait()  # it has exited: this only reaps
            for pipe in (process.stdout, process.stderr):
                if pipe is not None:
                    pipe.close()
    timed_out = scope.cancelled_caught
    return CommandOutcome(
        exit_code=None if timed_out else process.returncode,
        stdout=stdout.text(),
        stderr=stderr.text(),
        truncated=bool(stdout.dropped or stderr.dropped),
        timed_out=timed_out,
        output_held=not timed_out and not (stdout.ended.is_set() and stderr.ended.is_set()),
        stdout_dropped=stdout.dropped,
        stderr_dropped=stderr.dropped,
    )


async def _exited(pid: int) -> None:
    """Return once process `pid` (our child) has exited, without reaping it."""
    descriptor = _pidfd(pid)
    if descriptor is not None:
        try:
            await anyio.wait_readable(descriptor)  # readable once the process exits
        finally:
            os.close(descriptor)
        return
    while not _has_exited(pid):
        await anyio.sleep(_POLL_SECONDS)


def _pidfd(pid: int) -> int | None:
    """A pidfd for `pid`, or None where there are none (not Linux, a kernel before 5.3)."""
    try:
        return os.pidfd_open(pid)
    except (AttributeError, OSError):
        return None


def _has_exited(pid: int) -> bool:
    with contextlib.suppress(ChildProcessError):
        found = os.waitid(os.P_PID, pid, os.WEXITED | os.WNOHANG | os.WNOWAIT)
        return found is not None
    return True
