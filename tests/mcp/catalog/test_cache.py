"""CatalogCache's policy on its own: what is listed, when, and what a notice starts."""

from __future__ import annotations

import anyio
import pytest

from agent.mcp.catalog.cache import CachedCatalog, CatalogCache
from agent.mcp.catalog.entries import CatalogKind, Listing

pytestmark = pytest.mark.anyio


class CountingLister:
    """Lists `("v1",)`, `("v2",)`, ... and counts its calls."""

    def __init__(self) -> None:
        self.calls = 0

    async def __call__(self, kind: CatalogKind) -> Listing[str]:
        self.calls += 1
        return Listing((f"v{self.calls}",))


async def test_a_list_is_listed_once_then_served_from_the_cache() -> None:
    cache, lister = CatalogCache(), CountingLister()
    first = await cache.get("s", "prompts", lister)
    second = await cache.get("s", "prompts", lister)
    assert first == second == Listing(("v1",))
    assert lister.calls == 1
    assert cache.snapshot("s") == CachedCatalog(prompts=Listing(("v1",)))


async def test_notices_for_a_list_never_listed_start_nothing() -> None:
    cache = CatalogCache()
    assert cache.changed("s", ("resources", "templates")) == []
    await cache.get("s", "prompts", CountingLister())
    assert cache.changed("s", ("resources",)) == []


async def test_notices_during_a_refresh_start_no_second_one() -> None:
    cache, lister = CatalogCache(), CountingLister()
    await cache.get("s", "prompts", lister)
    assert cache.changed("s", ("prompts",)) == ["prompts"]
    assert cache.changed("s", ("prompts",)) == []  # one is already under way
    cache.abandon("s", "prompts")  # its server went away before it ran
    assert cache.changed("s", ("prompts",)) == ["prompts"]  # so a later notice starts one


async def test_a_refresh_lists_again_and_tells_the_listeners() -> None:
    cache, lister = CatalogCache(), CountingLister()
    told: list[tuple[str, str]] = []
    cache.add_listener(lambda server, kind: told.append((server, kind)))
    await cache.get("s", "resources", lister)
    [kind] = cache.changed("s", ("resources",))
    with anyio.fail_after(5):
        await cache.refresh("s", kind, lister)
    assert cache.snapshot("s").resources == Listing(("v2",))
    assert told == [("s", "resources")]


async def test_a_reconnect_keeps_the_lists_stale_and_a_new_definition_drops_them() -> None:
    cache, lister = CatalogCache(), CountingLister()
    await cache.get("s", "prompts", lister)
    cache.reconnected("s", same=True)
    assert cache.snapshot("s").prompts == Listing(("v1",))  # still on offer for Tab
    assert await cache.get("s", "prompts", lister) == Listing(("v2",))  # but listed again
    cache.reconnected("s", same=False)
    assert cache.snapshot("s") == CachedCatalog()


async def test_a_failed_listing_is_remembered_for_a_short_time_and_a_success_forgets_it() -> None:
    from agent.mcp.catalog.cache import FAILURE_SECONDS

    now = [100.0]
    cache = CatalogCache(clock=lambda: now[0])
    cache.failed("s")
    assert cache.snapshot("s") == CachedCatalog(failed=True)
    now[0] += FAILURE_SECONDS - 1
    assert cache.snapshot("s").failed
    now[0] += 1
    assert cache.snapshot("s") == CachedCatalog()  # worth asking again
    cache.failed("s")
    await cache.get("s", "prompts", CountingLister())
    assert cache.snapshot("s") == CachedCatalog(prompts=Listing(("v1",)))


def test_a_server_that_offers_none_is_cached_as_an_empty_list_until_it_is_forgotten() -> None:
    cache = CatalogCache()
    cache.failed("s")
    assert cache.offers_none("s", "resources") == Listing(())
    assert cache.snapshot("s") == CachedCatalog(resources=Listing(()))
    cache.forget("s")
    assert cache.snapshot("s") == CachedCatalog()
