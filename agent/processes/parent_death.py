"""Children that the kernel kills when the agent dies, however it dies.

Command tool programs and stdio MCP servers run in sessions of their own (so they and what
they start can be ended as one group), which also means no signal to the agent's terminal
reaches them. SIGTERM and SIGHUP are handled (agent.processes.groups); SIGKILL (the OOM
killer, a person whose agent would not stop) runs no handler, so on Linux each child asks the
kernel, between fork and exec, to be killed when its parent dies (PR_SET_PDEATHSIG). Only
the child itself: what it started in its group is ended by nobody then.
"""

from __future__ import annotations

import ctypes
import os
import signal
import subprocess
import sys
from collections.abc import Callable, Sequence

import anyio.abc

_PR_SET_PDEATHSIG = 1  # <linux/prctl.h>


def die_with_parent() -> Callable[[], None] | None:
    """What the child runs between fork and exec so the kernel kills it when we die (Linux).

    The signal follows the thread that forked: the event loop's, which lives as long as the
    agent. If we died before the request took effect, the child has another parent by then:
    it exits instead of running unwatched.
    """
    if sys.platform != "linux":
        return None
    prctl = ctypes.CDLL(None, use_errno=True).prctl  # looked up now: the child must not load
    parent = os.getpid()

    def in_child() -> None:
        prctl(_PR_SET_PDEATHSIG, signal.SIGKILL)
        if os.getppid() != parent:
            os._exit(1)

    return in_child


async def open_piped_process(
    argv: Sequence[str], *, env: dict[str, str], cwd: str
) -> anyio.abc.Process:
    """anyio.open_process with three pipes and a new session, the child dying with us.

    anyio.open_process takes no preexec_fn; its event-loop backend passes extra keywords on
    to subprocess.Popen, so it is called directly: the Process it returns is anyio's own,
    which the SDK's graceful stop (mcp.client.stdio) knows how to end.
    """
    from anyio._core._eventloop import get_async_backend

    return await get_async_backend().open_process(
        list(argv),
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=env,
        cwd=cwd,
        start_new_session=True,
        preexec_fn=die_with_parent(),
    )
