"""Ctrl-C and SIGTERM for `agent mcp console`: the first stops it gracefully, a second at once.

The graceful stop ends the page's connections and then every server it started, each by the
MCP spec's bounded steps (about 4 s for a server that ignores them). A person who asks again
does not want to wait for that, nor for a bridge stuck on a request: the second signal kills
the process groups of every server and command program still running and exits on the spot.
The handlers stay for the whole run, runtime shutdown included (uvicorn's own would be gone
by then), and run only the standard library: they may run at any moment.
"""

from __future__ import annotations

import os
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType

from agent.processes import groups as process_groups

STOPPING = "Stopping the console and the servers it started (Ctrl-C again to stop at once).\n"
STOPPED_AT_ONCE = "Console stopped at once: its servers were killed.\n"
_HANDLED = (signal.SIGINT, signal.SIGTERM)


class StopSignals:
    """What a stop signal does: ask once (`on_stop`), force the second time."""

    def __init__(self, cleanup: Callable[[], None]) -> None:
        self.cleanup = cleanup  # must be quick: it runs right before the forced exit
        self.asked = False
        self.on_stop: Callable[[], None] | None = None  # set once the bridge serves

    def handle(self, signum: int, _frame: FrameType | None) -> None:
        """The signal handler."""
        if self.asked:
            self.force(signum)
        self.asked = True
        _say(STOPPING)
        if self.on_stop is not None:
            self.on_stop()

    def force(self, signum: int) -> None:
        """Kill every server and program group still listed, clean up, exit now."""
        process_groups.kill_servers()
        process_groups.kill_all()
        try:
            self.cleanup()
        finally:
            _say(STOPPED_AT_ONCE)
            os._exit(128 + signum)

    @contextmanager
    def installed(self) -> Iterator[StopSignals]:
        """Handle SIGINT and SIGTERM while inside (only the main thread can)."""
        if threading.current_thread() is not threading.main_thread():
            yield self
            return
        original = {signum: signal.signal(signum, self.handle) for signum in _HANDLED}
        try:
            yield self
        finally:
            for signum, handler in original.items():
                signal.signal(signum, handler)


def _say(text: str) -> None:
    # os.write, not print: the handler may interrupt a print to stderr in progress.
    os.write(2, text.encode())
