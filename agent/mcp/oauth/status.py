"""Which remote servers need a login, from the token file alone (no network, no mcp import)."""

from __future__ import annotations

from collections.abc import Iterable

from agent.errors import NeedsLoginError, TokenStoreError
from agent.mcp.config.definitions import HttpDefinition, ServerDefinition
from agent.mcp.config.launch import HttpLaunch
from agent.mcp.oauth.token_key import token_key
from agent.mcp.oauth.token_store import TokenStore


def needs_login(definition: ServerDefinition, tokens: TokenStore | None = None) -> bool:
    """True for a remote server whose stored login ran out or was refused."""
    if not isinstance(definition, HttpDefinition) or definition.has_authorization_header():
        return False
    try:
        key = token_key(definition)
        if key is None:
            return False  # a variable is unset: starting it reports that, with what to do
        status = (tokens or TokenStore()).status(definition.name, key)
    except TokenStoreError:
        return False  # the connection reports the damaged file with what to do
    return status.state == "needs login"


def servers_needing_login(definitions: Iterable[ServerDefinition]) -> list[str]:
    """The remote servers among these that need `agent mcp login NAME` before they can be used."""
    tokens = TokenStore()
    return [d.name for d in definitions if needs_login(d, tokens)]


def login_needed(launch: HttpLaunch) -> NeedsLoginError | None:
    """The error to show when the token file says this server needs a login now."""
    if not launch.uses_oauth():
        return None
    try:
        record = TokenStore().get(launch.server, launch.url)
    except TokenStoreError:
        return None
    if record is None or not record.needs_login:
        return None
    reason = f"it asks for more access: {record.scope}" if record.scope else ""
    return NeedsLoginError(launch.server, reason)


def more_access_wanted(launch: HttpLaunch) -> str | None:
    """The scope a server asked for on top of a working login (a step-up), if it did."""
    if not launch.uses_oauth():
        return None
    try:
        record = TokenStore().get(launch.server, launch.url)
    except TokenStoreError:
        return None
    if record is None or record.needs_login or record.access_token() is None:
        return None
    return record.scope
