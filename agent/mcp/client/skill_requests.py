"""The Skills extension's listing (SEP-2640, `skills/list`) on one live connection.

Only the listing is requested here: a skill's files are ordinary resources, read with
resources/read when the skill is activated (never before). The entries are returned as the
server's JSON, masked of its secrets like every answer (client/connection.py), and checked by
`agent/skills/served.py`, which knows what a skill is; this module knows only the wire.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any, ClassVar

import mcp_types as types

from agent.mcp.client.connection import SKILLS_EXTENSION, Connection
from agent.mcp.client.era_client import EraClient

LIST_METHOD = "skills/list"
MAX_PAGES = 20
MAX_ENTRIES = 1_000


class _RawResult(types.Result):
    """A result whose fields we read ourselves: the SDK has no model for `skills/list`."""

    model_config: ClassVar[Any] = {**types.Result.model_config, "extra": "allow"}


def offers_skills(capabilities: dict[str, Any]) -> bool:
    """Whether a server's capabilities declare the Skills extension."""
    extensions = capabilities.get("extensions")
    return isinstance(extensions, dict) and SKILLS_EXTENSION in extensions


def _page_call(
    params: dict[str, Any] | None,
) -> Callable[[EraClient], Awaitable[_RawResult]]:
    request = types.Request[dict[str, Any] | None, str](method=LIST_METHOD, params=params)
    return lambda client: client.session.send_request(request, _RawResult)


async def list_skills(connection: Connection, timeout: float) -> tuple[list[Any], str | None]:
    """Every `skills/list` entry (following pages, capped), and a note when the cap cut it."""
    entries: list[Any] = []
    cursor: str | None = None
    seen: set[str] = set()
    for _page in range(MAX_PAGES):
        params: dict[str, Any] | None = {"cursor": cursor} if cursor else None
        result = await connection.send(_page_call(params), "listing skills", timeout)
        extra = result.model_extra or {}
        page = extra.get("skills")
        if not isinstance(page, list):
            return entries, "its skills/list answer has no skills list"
        entries.extend(page)
        if len(entries) >= MAX_ENTRIES:
            return entries[:MAX_ENTRIES], f"only the first {MAX_ENTRIES} skills are used"
        cursor = extra.get("nextCursor")
        if not isinstance(cursor, str) or not cursor:
            return entries, None
        if cursor in seen:
            return entries, "its skills/list sent a cursor it had sent before; listing ended"
        seen.add(cursor)
    return entries, f"its skills/list has more than {MAX_PAGES} pages; the rest are not used"
