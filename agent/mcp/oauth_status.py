"""Which remote servers need a login, from the token file alone (no network, no mcp import)."""

from __future__ import annotations

from agent.errors import TokenStoreError
from agent.mcp.definitions import HttpDefinition, ServerDefinition
from agent.mcp.store import McpConfig
from agent.mcp.token_store import TokenStore


def needs_login(definition: ServerDefinition, tokens: TokenStore | None = None) -> bool:
    """True for a remote server whose stored login ran out or was refused."""
    if not isinstance(definition, HttpDefinition) or definition.has_authorization_header():
        return False
    try:
        status = (tokens or TokenStore()).status(definition.name, definition.url)
    except TokenStoreError:
        return False  # the connection reports the damaged file with what to do
    return status.state == "needs login"


def servers_needing_login(config: McpConfig) -> list[str]:
    """Enabled remote servers that need `agent mcp login NAME` before they can be used."""
    tokens = TokenStore()
    return [
        d.name
        for d in config.definitions
        if config.state(d.name).enabled and needs_login(d, tokens)
    ]
