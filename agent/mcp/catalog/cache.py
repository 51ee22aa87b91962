"""The in-memory cache of each running server's resources, templates and prompts.

Unlike tools (saved in the store because the person selects among them), these lists belong
to one run: they are read when first needed and kept until the server says they changed
(`notifications/resources/list_changed`, `.../prompts/list_changed`). A new connection to the
same server (a restart after a crash, an HTTP server's next chat request) keeps them on offer
but marks them stale; a stop, or a changed definition, drops them.

A server may send list_changed as often as it likes; refreshes do not follow it one for one.
At most one refresh per server and kind runs at a time, and it starts at most once a second:
the notifications that arrive meanwhile are all answered by the next listing. So a flood
costs one listing a second, and the last change is always picked up.

Tab completion asks on every key press, so "this server offers none" is cached like a list,
and a server that could not be listed (unreachable, too slow) is remembered for a short time
(FAILURE_SECONDS): completion then offers nothing from it instead of trying again.
"""

from __future__ import annotations

import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

import anyio

from agent.mcp.catalog.entries import (
    CatalogKind,
    Listing,
    PromptInfo,
    ResourceInfo,
    ResourceTemplateInfo,
)

# A refresh lists the whole catalogue again: a server may ask for that at most this often.
MIN_REFRESH_INTERVAL = 1.0  # seconds
# How long completion leaves a server alone after it could not be listed.
FAILURE_SECONDS = 30.0

Lister = Callable[[CatalogKind], Awaitable[Listing[Any]]]
Listener = Callable[[str, CatalogKind], None]


@dataclass(frozen=True)
class CachedCatalog:
    """What is cached for one server now; None where nothing was listed yet."""

    resources: Listing[ResourceInfo] | None = None
    templates: Listing[ResourceTemplateInfo] | None = None
    prompts: Listing[PromptInfo] | None = None
    failed: bool = False  # a listing failed less than FAILURE_SECONDS ago: do not ask now


@dataclass
class _Entry:
    lists: dict[CatalogKind, Listing[Any]] = field(default_factory=dict)
    stale: set[CatalogKind] = field(default_factory=set)
    refreshing: set[CatalogKind] = field(default_factory=set)
    again: set[CatalogKind] = field(default_factory=set)
    generation: int = 0  # bumped on a new connection: listings of the old one are dropped
    listed_at: dict[CatalogKind, float] = field(default_factory=dict)  # last refresh started


class CatalogCache:
    """Cached lists per server name, with bounded refreshes on list_changed."""

    def __init__(self, clock: Callable[[], float] = time.monotonic) -> None:
        self._entries: dict[str, _Entry] = {}
        self._failed_at: dict[str, float] = {}  # server -> when its last listing failed
        self._clock = clock  # time.monotonic: snapshot() is asked from a completer thread
        self._listeners: list[Listener] = []
        self.refreshes = 0  # lists fetched because of list_changed (tests bound floods by it)

    def snapshot(self, server: str) -> CachedCatalog:
        """What is cached for `server`, without waiting for anything."""
        failed_at = self._failed_at.get(server)
        failed = failed_at is not None and self._clock() - failed_at < FAILURE_SECONDS
        entry = self._entries.get(server)
        if entry is None:
            return CachedCatalog(failed=failed)
        return CachedCatalog(
            resources=entry.lists.get("resources"),
            templates=entry.lists.get("templates"),
            prompts=entry.lists.get("prompts"),
            failed=failed,
        )

    def offers_none(self, server: str, kind: CatalogKind) -> Listing[Any]:
        """The server declared no capability for `kind`: cache its empty list (until the next
        connection says otherwise) and return it."""
        empty: Listing[Any] = Listing(())
        entry = self._entries.setdefault(server, _Entry())
        entry.lists[kind] = empty
        entry.stale.discard(kind)
        self._failed_at.pop(server, None)
        return empty

    def failed(self, server: str) -> None:
        """Listing the server failed (or was given up on) just now."""
        self._failed_at[server] = self._clock()

    def add_listener(self, listener: Listener) -> None:
        """Call `listener(server, kind)` after a list the server changed was listed again."""
        self._listeners.append(listener)

    def reconnected(self, server: str, *, same: bool) -> None:
        """A new connection to the server: its lists are stale (the same definition) or
        gone (another one)."""
        entry = self._entries.get(server)
        if entry is None:
            return
        if not same:
            self.forget(server)
            return
        entry.generation += 1  # a refresh still running answers for the old connection
        entry.stale.update(entry.lists)

    def forget(self, server: str) -> None:
        """Drop the server's lists (its connection ended or was replaced)."""
        entry = self._entries.pop(server, None)
        self._failed_at.pop(server, None)  # a stop or a new definition: worth asking again
        if entry is not None:
            entry.generation += 1

    async def get(
        self, server: str, kind: CatalogKind, lister: Lister, *, refresh: bool = False
    ) -> Listing[Any]:
        """The cached list, listed first when missing, stale or `refresh` is asked."""
        entry = self._entries.setdefault(server, _Entry())
        cached = entry.lists.get(kind)
        if cached is not None and kind not in entry.stale and not refresh:
            return cached
        generation = entry.generation
        listing = await lister(kind)
        self._failed_at.pop(server, None)
        if self._entries.get(server) is entry and entry.generation == generation:
            entry.lists[kind] = listing
            entry.stale.discard(kind)
        return listing

    def changed(self, server: str, kinds: tuple[CatalogKind, ...]) -> list[CatalogKind]:
        """The server changed `kinds`: mark them stale; return those to refresh now (listed
        before and not already being refreshed)."""
        entry = self._entries.get(server)
        if entry is None:
            return []
        start: list[CatalogKind] = []
        for kind in kinds:
            if kind not in entry.lists:
                continue  # never listed: the first use lists it anyway
            entry.stale.add(kind)
            if kind in entry.refreshing:
                entry.again.add(kind)
            else:
                entry.refreshing.add(kind)
                start.append(kind)
        return start

    def abandon(self, server: str, kind: CatalogKind) -> None:
        """A refresh `changed` asked for will not run (the server is gone): the list stays
        stale, and a later notice may start a refresh again."""
        entry = self._entries.get(server)
        if entry is not None:
            entry.refreshing.discard(kind)
            entry.again.discard(kind)

    async def refresh(self, server: str, kind: CatalogKind, lister: Lister) -> None:
        """List `kind` again, and again while notifications keep coming, at most once every
        MIN_REFRESH_INTERVAL seconds. A failure keeps the old list (stale); the caller logs it."""
        entry = self._entries.get(server)
        if entry is None:
            return
        try:
            while True:
                wait = entry.listed_at.get(kind, -MIN_REFRESH_INTERVAL) + MIN_REFRESH_INTERVAL
                if wait > anyio.current_time():
                    await anyio.sleep(wait - anyio.current_time())
                entry.again.discard(kind)  # this listing covers every notice until now
                entry.listed_at[kind] = anyio.current_time()
                self.refreshes += 1
                await self.get(server, kind, lister, refresh=True)
                for listener in self._listeners:
                    listener(server, kind)
                if kind not in entry.again or self._entries.get(server) is not entry:
                    return
        finally:
            entry.refreshing.discard(kind)
            entry.again.discard(kind)
