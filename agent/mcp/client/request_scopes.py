"""Which chat requests hold which remote (HTTP) connections.

A remote server connects once per request and disconnects when the request ends. Requests
run side by side (a turn, a background prompt listing, a Tab lookup), so their scopes may
overlap without nesting, and one may reuse the connection another opened. Each scope
therefore has its own list (found through a ContextVar, so a task sees only its own scope),
and a connection is closed only when the last scope that used it has ended.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from contextvars import ContextVar
from typing import Generic, TypeVar

C = TypeVar("C")


class RequestScopes(Generic[C]):
    """The scopes of one runtime: who holds each connection, counted."""

    def __init__(self) -> None:
        # One variable per runtime: a scope of one runtime never collects another's connections.
        self._current: ContextVar[list[C] | None] = ContextVar(
            f"mcp_request_scope_{id(self)}", default=None
        )
        self._holders: dict[C, int] = {}

    @contextmanager
    def entered(self) -> Iterator[list[C]]:
        """Make a new scope the current one of this task; yields the connections it used."""
        used: list[C] = []
        token = self._current.set(used)
        try:
            yield used
        finally:
            self._current.reset(token)

    def hold(self, connection: C) -> None:
        """The current scope (if any) uses `connection`: it stays open until that scope ends."""
        used = self._current.get()
        if used is None or connection in used:
            return
        used.append(connection)
        self._holders[connection] = self._holders.get(connection, 0) + 1

    def release(self, connection: C) -> None:
        """One scope that used `connection` has ended."""
        left = self._holders.get(connection, 0) - 1
        if left > 0:
            self._holders[connection] = left
        else:
            self._holders.pop(connection, None)

    def held(self, connection: C) -> bool:
        """Whether a scope still running uses `connection` (then it must stay open)."""
        return connection in self._holders
