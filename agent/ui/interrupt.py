"""Ctrl-C that cancels one piece of work (a turn, a slash command) instead of the program.

Plain asyncio and anyio: one-shot mode uses it too and must not load prompt_toolkit.
"""

from __future__ import annotations

import asyncio
import signal
from collections.abc import Iterator
from contextlib import contextmanager

import anyio


def _ignore() -> None:
    """SIGINT between two pieces of work: the chat's prompt reads Ctrl-C as a key."""


@contextmanager
def ctrl_c_cancels(*, ignore_after: bool) -> Iterator[anyio.CancelScope]:
    """A cancel scope that Ctrl-C (SIGINT) cancels while the body runs.

    Afterwards SIGINT is ignored (`ignore_after`, the chat: its prompt takes Ctrl-C as a
    key) or back to Python's default. `scope.cancelled_caught` tells whether it came.
    """
    loop = asyncio.get_running_loop()
    with anyio.CancelScope() as scope:
        loop.add_signal_handler(signal.SIGINT, scope.cancel)
        try:
            yield scope
        finally:
            loop.remove_signal_handler(signal.SIGINT)
            if ignore_after:
                loop.add_signal_handler(signal.SIGINT, _ignore)
