"""`/mcp login NAME` in the chat: the browser flow, a spinner while waiting, then the tools join.

Ctrl-C cancels (the chat runs slash commands so that it does). No URL is read from the
prompt here: the chat owns the terminal, so the loopback callback is the way back.
"""

from __future__ import annotations

import sys
from collections.abc import Callable
from typing import TYPE_CHECKING

from agent.errors import AgentError
from agent.mcp.config.definitions import HttpDefinition
from agent.text import plural
from agent.ui.spinner import Spinner

if TYPE_CHECKING:
    from agent.mcp.runtime import McpRuntime


async def login_in_chat(runtime: McpRuntime, name: str, say: Callable[[str], None]) -> None:
    """Log in to `name`, then reconnect it so its tools join the next request."""
    from agent.mcp.config.launch import HttpLaunch, expand_definition
    from agent.mcp.oauth.login import LoginIO, login
    from agent.mcp.oauth.token_store import TokenStore

    definition = runtime.store.load().find(name)
    if not isinstance(definition, HttpDefinition):
        raise AgentError(f"{definition.name} is a local (stdio) server; it has no OAuth login")
    launch = expand_definition(definition, runtime.trust_gate.launch_trust.expander)
    assert isinstance(launch, HttpLaunch)
    spinner = Spinner(sys.stdout) if sys.stdout.isatty() else None

    def show(text: str) -> None:
        if spinner is not None:
            spinner.hide()
        say(text)
        if spinner is not None and text.startswith("Waiting"):
            spinner.show("waiting for the login in your browser (Ctrl-C cancels)")

    tokens = TokenStore()
    try:
        await login(launch, tokens, LoginIO(say=show, open_browser=True, read_paste=False))
    finally:
        if spinner is not None:
            spinner.hide()
    await runtime.stop(definition.name)  # the next use connects with the new token
    state = await runtime.discover(definition.name)
    status = tokens.status(launch.server, launch.url).describe()
    config = runtime.store.load()
    joined = "" if not config.state(definition.name).enabled else " (they join the next request)"
    say(
        f"Logged in to {definition.name}: {status}; "
        f"{len(state.enabled_tools)} of {plural(len(state.cached_tools or ()), 'tool')} "
        f"selected{joined}."
    )
