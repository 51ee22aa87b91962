"""The one key a remote server's OAuth tokens are stored under: its URL with `${VAR}` expanded.

A connection uses the expanded URL, so the status (`agent mcp list`, /mcp), logout, login,
the runtime and the clean-up after a save must all key on it too: a URL that expands the
same keeps its tokens. When a variable is unset the key is unknown (None), and callers say so
rather than guess.
"""

from __future__ import annotations

import os
from pathlib import Path

from agent.errors import ExpansionError, TokenStoreError
from agent.mcp.config.definitions import HttpDefinition
from agent.mcp.config.variables import Expander, referenced_variables
from agent.mcp.oauth.token_store import TokenStore


def default_expander() -> Expander:
    """The expander a console command uses: this environment, home and project directory."""
    from agent.project import find_project_dir

    return Expander(
        environ=dict(os.environ),
        user_home=str(Path.home()),
        workspace_folder=str(find_project_dir()),
    )


def token_key(definition: HttpDefinition, expander: Expander | None = None) -> str | None:
    """The URL this server's tokens are stored under; None when a variable in it is unset."""
    try:
        return (expander or default_expander()).expand(definition.url, f"{definition.name} url")
    except ExpansionError:
        return None


def describe_auth(
    definition: HttpDefinition, tokens: TokenStore, expander: Expander | None = None
) -> str:
    """The auth column of `agent mcp list` and /mcp for one remote server."""
    if definition.has_authorization_header():
        return "header"
    key = token_key(definition, expander)
    if key is None:
        unset = [
            name
            for name in referenced_variables(definition.url)
            if name not in (expander or default_expander()).environ
        ]
        return f"unknown ({', '.join(unset) or 'a variable'} not set)"
    try:
        return tokens.status(definition.name, key).describe()
    except TokenStoreError:
        return "unknown (the token file is damaged; see agent mcp list)"
