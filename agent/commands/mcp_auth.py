"""`agent mcp login NAME [--no-browser]` and `agent mcp logout NAME`: OAuth by hand.

Login is the only command that opens a browser. Logout forgets the tokens and the client
registration, revoking them first (RFC 7009) where the authorization server offers it.
"""

from __future__ import annotations

import os
from pathlib import Path

import anyio

from agent.commands.output import say
from agent.errors import AgentError
from agent.mcp.config.definitions import HttpDefinition
from agent.mcp.config.launch import HttpLaunch, expand_definition
from agent.mcp.config.variables import Expander
from agent.mcp.oauth.token_store import TokenStore
from agent.mcp.store import McpStore
from agent.project import find_project_dir


def _launch(store: McpStore, name: str) -> HttpLaunch:
    definition = store.load().find(name)
    if not isinstance(definition, HttpDefinition):
        raise AgentError(
            f"{definition.name} is a local (stdio) server; OAuth login is for remote servers"
        )
    expander = Expander(
        environ=dict(os.environ),
        user_home=str(Path.home()),
        workspace_folder=str(find_project_dir()),
    )
    launch = expand_definition(definition, expander)
    assert isinstance(launch, HttpLaunch)
    return launch


def login_command(store: McpStore, name: str, no_browser: bool) -> int:
    """Log in to a remote server now: browser (or pasted URL), or client credentials."""
    from agent.mcp.oauth.login import LoginIO, login

    launch = _launch(store, name)
    tokens = TokenStore()
    io = LoginIO(say=say, open_browser=not no_browser, read_paste=True)
    anyio.run(lambda: login(launch, tokens, io))
    status = tokens.status(launch.server, launch.url)
    say(f"Logged in to {launch.server}: {status.describe()}.")
    return 0


def logout_command(store: McpStore, name: str) -> int:
    """Forget a server's tokens and registration, revoking them where the server offers it."""
    from agent.mcp.oauth.revoke import logout

    definition = store.load().find(name)
    if not isinstance(definition, HttpDefinition):
        raise AgentError(f"{definition.name} is a local (stdio) server; it has no OAuth login")
    try:
        launch: HttpLaunch | None = _launch(store, name)
    except AgentError:  # e.g. the client secret's variable is unset: revoke as a public client
        launch = None
    say(anyio.run(lambda: logout(definition, launch, TokenStore())))
    return 0
