"""The chat's own notices (an MCP server ready, failed, not trusted), held while a chooser is
open: a line printed above a list the person is choosing from would push the list up and
split it from its question, so the notice waits until the chooser closes and is printed then.

The notices come from the MCP host's task on the chat's loop (and may come from a thread):
the queue is guarded by a lock, and what a held notice waits for is the end of `held()`.
"""

from __future__ import annotations

import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager

_lock = threading.Lock()
_holders = 0
_waiting: list[tuple[Callable[[str], None], str]] = []


def deliver(text: str, show: Callable[[str], None]) -> None:
    """`show(text)` now, or once the chooser that holds notices closes."""
    with _lock:
        if _holders:
            _waiting.append((show, text))
            return
    show(text)


@contextmanager
def held() -> Iterator[None]:
    """Notices wait while the body runs (a chooser is on screen), then come out in order."""
    global _holders
    with _lock:
        _holders += 1
    try:
        yield
    finally:
        with _lock:
            _holders -= 1
            due = list(_waiting) if _holders == 0 else []
            if _holders == 0:
                _waiting.clear()
        for show, text in due:
            show(text)
