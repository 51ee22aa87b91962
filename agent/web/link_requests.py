"""New one-time links on request: each line typed in the console's terminal asks for one.

The page's key lives only in the open page (agent/web/guard.py says why), so a reloaded page or
a second tab has none and needs a new link. Reading the terminal is the one way to ask for a
link that nothing else on the computer can use: a request from the browser would come with the
very cookie that other local servers are handed.
"""

from __future__ import annotations

import os
import select
import threading
import time
from collections.abc import Callable

POLL_SECONDS = 1.0  # how often a console in a shell's background looks whether it is back


def watch_for_link_requests(on_request: Callable[[], None], fd: int) -> None:
    """Call `on_request` (on a daemon thread) for each line read from `fd` until its end."""

    def read() -> None:
        while True:
            try:
                ready, _, _ = select.select([fd], [], [], POLL_SECONDS)
                if not ready:
                    continue
                if not _in_foreground(fd):
                    # A background job's terminal input is the shell's; and reading it would
                    # have the kernel stop the whole console (SIGTTIN), page and servers.
                    time.sleep(POLL_SECONDS)
                    continue
                # os.read, not sys.stdin: a daemon thread blocked inside the buffered reader
                # would hold its lock when the interpreter shuts down.
                chunk = os.read(fd, 4096)
            except OSError:
                return
            if not chunk:
                return  # end of input (a pipe closed, /dev/null): no more requests
            for _ in range(chunk.count(b"\n")):
                on_request()

    threading.Thread(target=read, name="console-link-requests", daemon=True).start()


def _in_foreground(fd: int) -> bool:
    """Whether reading `fd` is ours: a pipe or file always is, a terminal when our process
    group is its foreground one."""
    if not os.isatty(fd):
        return True
    try:
        return os.tcgetpgrp(fd) == os.getpgrp()
    except OSError:  # a terminal that is not our controlling one has no job control for us
        return True
