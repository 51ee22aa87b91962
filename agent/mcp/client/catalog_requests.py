"""The requests behind resources, templates, prompts and completion, on one live connection.

Lists follow pagination, but a server decides how many pages there are: a cap on pages and
items (and a cursor that comes back) ends the listing with what we have and a note saying so,
instead of a hang or an unbounded cache.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Mapping
from functools import partial
from typing import Any, TypeVar

import mcp_types as types

from agent.mcp.catalog.contents import PromptResult, ResourcePart
from agent.mcp.catalog.convert import (
    MAX_ID_CHARS,
    prompt_info,
    prompt_result,
    resource_info,
    resource_parts,
    template_info,
)
from agent.mcp.catalog.entries import (
    CompletionRef,
    Listing,
    PromptInfo,
    ResourceInfo,
    ResourceTemplateInfo,
)
from agent.mcp.client.connection import Connection
from agent.mcp.client.era_client import EraClient
from agent.text import plural

T = TypeVar("T")
Item = TypeVar("Item")

MAX_PAGES = 50
MAX_ITEMS = 5_000
MAX_COMPLETIONS = 100  # the protocol's own cap on one completion answer
MAX_COMPLETION_CHARS = 1_000

PageCall = Callable[[EraClient, str | None], Awaitable[Any]]


async def list_resources(connection: Connection) -> Listing[ResourceInfo]:
    """Every resource, following pagination (capped)."""
    return await _pages(
        connection,
        lambda client, cursor: client.list_resources(cursor),
        lambda result: [resource_info(item, connection.redact) for item in result.resources],
        "listing resources",
    )


async def list_templates(connection: Connection) -> Listing[ResourceTemplateInfo]:
    """Every resource template, following pagination (capped)."""
    return await _pages(
        connection,
        lambda client, cursor: client.list_resource_templates(cursor),
        lambda result: [
            template_info(item, connection.redact) for item in result.resource_templates
        ],
        "listing resource templates",
    )


async def list_prompts(connection: Connection) -> Listing[PromptInfo]:
    """Every prompt, following pagination (capped)."""
    return await _pages(
        connection,
        lambda client, cursor: client.list_prompts(cursor),
        lambda result: [prompt_info(item, connection.redact) for item in result.prompts],
        "listing prompts",
    )


async def read_resource(
    connection: Connection, uri: str, timeout: float, *, may_ask: bool = False
) -> tuple[ResourcePart, ...]:
    """The resource's contents, within `timeout` seconds. `may_ask`: the person started the
    read or approved it, so the server's forms meanwhile are shown (Connection.send)."""
    result: types.ReadResourceResult = await connection.send(
        lambda client: client.read_resource(uri), "reading a resource", timeout, may_ask=may_ask
    )
    return resource_parts(result, connection.name, connection.redact)


async def get_prompt(
    connection: Connection, name: str, arguments: Mapping[str, str], timeout: float
) -> PromptResult:
    """The prompt's messages for `arguments`, within `timeout` seconds."""
    result: types.GetPromptResult = await connection.send(
        lambda client: client.get_prompt(name, dict(arguments)),
        "getting a prompt",
        timeout,
        may_ask=True,
    )
    return prompt_result(result, connection.name, connection.redact)


async def complete(
    connection: Connection,
    ref: CompletionRef,
    argument: str,
    value: str,
    context: Mapping[str, str] | None = None,
) -> tuple[str, ...]:
    """Values the server suggests for `argument` starting from `value`; () without the
    completions capability. Values with line breaks or control characters are dropped: they
    would go into the person's input line."""
    info = connection.info
    if info is None or "completions" not in info.capabilities:
        return ()
    reference: types.ResourceTemplateReference | types.PromptReference
    if ref.kind == "prompt":
        reference = types.PromptReference(type="ref/prompt", name=ref.name)
    else:
        reference = types.ResourceTemplateReference(type="ref/resource", uri=ref.name)
    result: types.CompleteResult = await connection.send(
        lambda client: client.complete(
            reference, {"name": argument, "value": value}, dict(context) if context else None
        ),
        "completing an argument",
    )
    values = result.completion.values[:MAX_COMPLETIONS]
    return tuple(dict.fromkeys(v for v in values if _fits_input_line(v)))


def _page(call: PageCall, cursor: str | None, client: EraClient) -> Awaitable[Any]:
    return call(client, cursor)


def _fits_input_line(value: str) -> bool:
    return len(value) <= MAX_COMPLETION_CHARS and value.isprintable()


async def _pages(
    connection: Connection,
    call: PageCall,
    convert: Callable[[Any], list[Item | None]],
    what: str,
) -> Listing[Item]:
    # Each page is converted as it comes, so only what we keep of it stays in memory.
    items: list[Item] = []
    left_out = 0
    seen: set[str] = set()
    cursor: str | None = None
    note: str | None = f"{what} stopped after {MAX_PAGES} pages (the server kept paging)"
    for page in range(MAX_PAGES):
        result = await connection.send(partial(_page, call, cursor), what)
        converted = convert(result)
        kept = [item for item in converted if item is not None]
        left_out += len(converted) - len(kept)
        items.extend(kept)
        cursor = result.next_cursor
        if not cursor:
            note = None
            break
        if len(items) >= MAX_ITEMS:
            items = items[:MAX_ITEMS]
            note = f"{what} stopped at {MAX_ITEMS} entries (the server has more)"
            break
        if cursor in seen:
            note = f"{what} stopped after {plural(page + 1, 'page')} (the server repeated a cursor)"
            break
        seen.add(cursor)
    if left_out:
        skipped = (
            f"{plural(left_out, 'entry', 'entries')} left out (a URI or name over "
            f"{MAX_ID_CHARS} characters)"
        )
        note = f"{note}; {skipped}" if note else skipped
    return Listing(tuple(items), note)
