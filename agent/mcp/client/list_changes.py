"""List changes from a modern (2026-07-28) server: one `subscriptions/listen` stream, kept open.

The modern era has no `list_changed` notifications on a session; a client that wants them opens
a listen stream and gets typed events on it. Each event feeds the hook a legacy server's
notification feeds. A stream can end (the server restarts it, a proxy cuts it): we listen again
after a backoff, and a server that keeps closing it at once is given up on after a few tries in
a time window, said once in the server's log, so it can never make us spin.
"""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import anyio
import mcp_types as types
from mcp.client.subscriptions import ListenNotSupportedError, SubscriptionLost
from mcp.shared.exceptions import MCPError
from mcp.shared.subscriptions import (
    PromptsListChanged,
    ResourcesListChanged,
    ServerEvent,
    ToolsListChanged,
)

from agent.mcp.catalog.entries import CatalogKind
from agent.mcp.client.era_client import EraClient

FIRST_BACKOFF_SECONDS = 0.5
MAX_BACKOFF_SECONDS = 30.0
MAX_LISTENS_PER_WINDOW = 5  # streams opened within WINDOW_SECONDS before we give up
WINDOW_SECONDS = 60.0
LONG_LIVED_SECONDS = 30.0  # a stream that lasted this long resets the backoff


@dataclass(frozen=True)
class ListenHooks:
    """Where the events go, and how long the server gets to acknowledge a listen."""

    on_tools_changed: Callable[[], None]
    on_catalog_changed: Callable[[CatalogKind], None]
    note: Callable[[str], None]  # a line in the server's log
    ack_timeout: float


def wants_listen(capabilities: types.ServerCapabilities) -> tuple[bool, bool, bool]:
    """Which lists (tools, prompts, resources) the server says can change."""
    return (
        bool(capabilities.tools and capabilities.tools.list_changed),
        bool(capabilities.prompts and capabilities.prompts.list_changed),
        bool(capabilities.resources and capabilities.resources.list_changed),
    )


async def listen_for_changes(client: EraClient, hooks: ListenHooks) -> None:
    """Listen until cancelled, reconnecting within the bound; returns when it gives up."""
    tools, prompts, resources = wants_listen(client.server_capabilities)
    if not (tools or prompts or resources):
        return
    opened: list[float] = []
    backoff = FIRST_BACKOFF_SECONDS
    while True:
        now = anyio.current_time()
        opened = [at for at in opened if now - at < WINDOW_SECONDS] + [now]
        if len(opened) > MAX_LISTENS_PER_WINDOW:
            hooks.note(
                f"stopped listening for list changes: the stream ended {MAX_LISTENS_PER_WINDOW} "
                f"times within {WINDOW_SECONDS:g} s (lists are fetched again when asked)"
            )
            return
        reason = await _listen_once(client, hooks, (tools, prompts, resources), len(opened) > 1)
        if reason is None:  # the server does not serve listen at all
            return
        lived = anyio.current_time() - now
        backoff = FIRST_BACKOFF_SECONDS if lived >= LONG_LIVED_SECONDS else backoff
        hooks.note(f"the list-change stream ended ({reason}); listening again in {backoff:g} s")
        await anyio.sleep(backoff)
        backoff = min(backoff * 2, MAX_BACKOFF_SECONDS)


async def _listen_once(
    client: EraClient, hooks: ListenHooks, kinds: tuple[bool, bool, bool], again: bool
) -> str | None:
    """One stream, until it ends: why it ended, or None when listening cannot work. `again`:
    changes made while nobody listened are lost, so the lists are fetched once it is open
    (the spec's "re-listen and refetch")."""
    tools, prompts, resources = kinds
    with anyio.CancelScope(deadline=anyio.current_time() + hooks.ack_timeout) as scope:
        try:
            async with client.listen(
                tools_list_changed=tools,
                prompts_list_changed=prompts,
                resources_list_changed=resources,
            ) as subscription:
                scope.deadline = math.inf
                if again:
                    for missed, wanted in zip(_EVERY_KIND, kinds, strict=True):
                        _deliver(missed if wanted else None, hooks)
                async for event in subscription:
                    _deliver(event, hooks)
            return "closed by the server"
        except ListenNotSupportedError:
            return None
        except MCPError as error:
            if error.code == types.METHOD_NOT_FOUND:
                hooks.note("the server does not serve subscriptions/listen; no list changes")
                return None
            return f"error {error.code}"
        except SubscriptionLost:
            return "dropped"
        except (ValueError, RuntimeError) as error:  # an event or answer the SDK refused
            return f"refused: {type(error).__name__}"
    return f"not acknowledged within {hooks.ack_timeout:g} s"


_EVERY_KIND: tuple[ServerEvent, ...] = (
    ToolsListChanged(),
    PromptsListChanged(),
    ResourcesListChanged(),
)


def _deliver(event: ServerEvent | None, hooks: ListenHooks) -> None:
    if isinstance(event, ToolsListChanged):
        hooks.on_tools_changed()
    elif isinstance(event, PromptsListChanged):
        hooks.on_catalog_changed("prompts")
    elif isinstance(event, ResourcesListChanged):
        hooks.on_catalog_changed("resources")
