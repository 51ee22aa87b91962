"""The web console's requests on one live connection, answered as MCP JSON (camelCase, as the
server sent it) instead of our own types: the console shows the protocol itself.

Every answer is redacted of the server's secrets on its JSON text before it leaves here, the
way `agent mcp send` redacts a hand-written message's answer.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal

import mcp_types as types

from agent.mcp.client.connection import Connection
from agent.mcp.client.era_client import EraClient

ListKind = Literal["tools", "resources", "resourceTemplates", "prompts"]
LIST_KINDS: tuple[ListKind, ...] = ("tools", "resources", "resourceTemplates", "prompts")
_CAPABILITY: dict[ListKind, str] = {
    "tools": "tools",
    "resources": "resources",
    "resourceTemplates": "resources",
    "prompts": "prompts",
}
_ITEMS_KEY: dict[ListKind, str] = {
    "tools": "tools",
    "resources": "resources",
    "resourceTemplates": "resourceTemplates",
    "prompts": "prompts",
}


def offers(connection: Connection, kind: ListKind) -> bool:
    """Whether the server declared the capability a list of `kind` needs."""
    info = connection.info
    return info is not None and _CAPABILITY[kind] in info.capabilities


def mcp_json(connection: Connection, value: Any) -> dict[str, Any]:
    """A result of the SDK as the protocol's JSON, redacted of the server's secrets."""
    dumped = value.model_dump(mode="json", by_alias=True, exclude_none=True)
    text = connection.redact(json.dumps(dumped, ensure_ascii=False))
    loaded: dict[str, Any] = json.loads(text)
    return loaded


async def list_page(
    connection: Connection, kind: ListKind, cursor: str | None, timeout: float
) -> tuple[list[Any], str | None]:
    """One page of a list: its items as MCP JSON and the cursor of the next page (or None)."""

    async def one_page(client: EraClient) -> Any:
        if kind == "tools":
            return await client.list_tools(cursor)
        if kind == "resources":
            return await client.list_resources(cursor)
        if kind == "resourceTemplates":
            return await client.list_resource_templates(cursor)
        return await client.list_prompts(cursor)

    result = await connection.send(one_page, f"listing {kind}", timeout)
    answer = mcp_json(connection, result)
    items = answer.get(_ITEMS_KEY[kind], [])
    next_cursor = answer.get("nextCursor")
    return list(items), next_cursor if isinstance(next_cursor, str) else None


async def read_resource(connection: Connection, uri: str, timeout: float) -> dict[str, Any]:
    """The resources/read result as MCP JSON."""
    result = await connection.send(
        lambda client: client.read_resource(uri), "reading a resource", timeout, may_ask=True
    )
    return mcp_json(connection, result)


async def get_prompt(
    connection: Connection, name: str, arguments: Mapping[str, str], timeout: float
) -> dict[str, Any]:
    """The prompts/get result as MCP JSON."""
    result = await connection.send(
        lambda client: client.get_prompt(name, dict(arguments)),
        "getting a prompt",
        timeout,
        may_ask=True,
    )
    return mcp_json(connection, result)


async def complete_prompt_argument(
    connection: Connection,
    prompt: str,
    argument: str,
    value: str,
    context: Mapping[str, str],
    timeout: float,
) -> dict[str, Any]:
    """completion/complete for one of a prompt's arguments, as MCP JSON ({"values": [...],
    "total"?, "hasMore"?}); no values at all, without asking, from a server that does not
    declare the completions capability."""
    info = connection.info
    if info is None or "completions" not in info.capabilities:
        return {"values": []}
    reference = types.PromptReference(type="ref/prompt", name=prompt)
    result = await connection.send(
        lambda client: client.complete(
            reference, {"name": argument, "value": value}, dict(context) or None
        ),
        "completing an argument",
        timeout,
    )
    answer = mcp_json(connection, result)
    completion = answer.get("completion")
    return completion if isinstance(completion, dict) else {"values": []}
