"""`/mcp` in the chat: server status, enable, disable, trust, restart, tools, edit.

The chat's own runtime does the work, so a server started here is the one the conversation
uses, and a disabled or edited-away server stops at once.
"""

from __future__ import annotations

import functools
import shlex
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import anyio.from_thread
import anyio.to_thread

from agent.chat.state import ChatSession
from agent.errors import AgentError
from agent.mcp.config.command_definitions import CommandsDefinition
from agent.mcp.config.definitions import (
    LOCAL_DEFINITIONS,
    HttpDefinition,
    StdioDefinition,
    display_url,
    fingerprint,
)
from agent.text import error_lines, plural, sanitize, sanitize_line
from agent.ui.dialogs.frame import single_key
from agent.ui.style import styled

if TYPE_CHECKING:
    from agent.mcp.config.variables import Expander
    from agent.mcp.runtime import McpRuntime

USAGE = (
    "usage: /mcp [status | enable NAME | disable NAME | trust NAME | restart NAME | "
    "tools NAME | defer NAME on|off|auto | login NAME | logout NAME | edit]"
)


async def _runtime(chat: ChatSession) -> McpRuntime:
    """The chat's runtime, waiting for it when the chat has just started (Ctrl-C stops)."""
    host = chat.host
    if host is None:
        raise AgentError("this chat has no MCP runtime")
    if host.runtime is None:
        await host.ready.wait()
    if host.runtime is None:
        raise AgentError("the MCP runtime could not start; see the messages above")
    return host.runtime


def _say(text: str) -> None:
    print(sanitize(text))


def _warn(text: str) -> None:
    print(sanitize(text), file=sys.stderr)


def _edit_again() -> bool:
    """Asked from the editor's thread, with the chat's own one-key dialog on the loop."""
    keys = {"y": "y", "n": "n"}
    return anyio.from_thread.run(single_key, "Edit again? [y] yes  [n] no ", keys) == "y"


async def run_mcp(chat: ChatSession, argument: str) -> None:
    """Dispatch one /mcp subcommand."""
    words = shlex.split(argument) if argument else []
    action, names = (words[0], words[1:]) if words else ("status", [])
    if action == "status":
        await _status(chat)
    elif action == "edit":
        await _edit(chat)
    elif action == "defer" and len(names) == 2:
        await _defer(chat, names[0], names[1])
    elif action in _ACTIONS and len(names) == 1:
        await _ACTIONS[action](chat, names[0])
    else:
        raise AgentError(USAGE)


async def _status(chat: ChatSession) -> None:
    runtime = await _runtime(chat)
    config = runtime.store.load()
    if not config.definitions:
        _say("No MCP servers configured (agent mcp import FILE).")
        return
    for definition in config.definitions:
        state = config.state(definition.name)
        status = runtime.status(definition.name)
        if not state.enabled:
            shown = "disabled"
        elif isinstance(definition, LOCAL_DEFINITIONS) and not runtime.is_trusted(definition):
            shown = "untrusted"
        elif not isinstance(definition, LOCAL_DEFINITIONS) and status.state == "stopped":
            shown = "on demand"
        else:
            shown = status.state
        started = ""
        if status.started_at is not None:
            local = status.started_at.astimezone().strftime("%H:%M:%S")
            started = f" since {local}"
        tools = f"{len(state.enabled_tools)}/{plural(len(state.cached_tools or ()), 'tool')}"
        if state.defer != "auto":
            tools += ", deferred" if state.defer == "on" else ", never deferred"
        if isinstance(definition, StdioDefinition):
            target = shlex.join([definition.command, *definition.args])
        elif isinstance(definition, CommandsDefinition):
            target = definition.target()
        else:
            target = display_url(definition.url)
        name = sanitize_line(definition.name)
        auth = (
            f", auth: {_auth(definition, runtime.trust_gate.launch_trust.expander)}"
            if isinstance(definition, HttpDefinition)
            else ""
        )
        _say(f"  {name}: {shown}{started}, {tools}{auth}  {sanitize_line(target)}")
        if status.last_error:
            print(styled(f"      {error_lines(status.last_error)[0]}", "red"))


async def _enable(chat: ChatSession, name: str) -> None:
    runtime = await _runtime(chat)
    definition = runtime.store.load().find(name)
    state = await runtime.tools_state(definition.name)
    runtime.store.update_state(
        definition.name, fingerprint(definition), lambda s: replace(s, enabled=True)
    )
    if isinstance(definition, LOCAL_DEFINITIONS):
        await runtime.connection(definition.name, ask_trust=True)
    _say(
        f"Enabled {definition.name}: {plural(len(state.enabled_tools), 'tool')} "
        f"{'joins' if len(state.enabled_tools) == 1 else 'join'} the next request."
    )


async def _disable(chat: ChatSession, name: str) -> None:
    runtime = await _runtime(chat)
    definition = runtime.store.load().find(name)
    runtime.store.update_state(
        definition.name, fingerprint(definition), lambda s: replace(s, enabled=False)
    )
    await runtime.stop_removed()
    _say(f"Disabled {definition.name}; its tools leave the next request.")


async def _trust(chat: ChatSession, name: str) -> None:
    runtime = await _runtime(chat)
    config = runtime.store.load()
    definition = config.find(name)
    if not isinstance(definition, LOCAL_DEFINITIONS):
        _say(f"{definition.name} runs nothing on this computer; there is nothing to trust.")
        return
    if runtime.is_trusted(definition, fresh=True):
        _say(f"{definition.name} is already trusted.")
        return
    await runtime.start(definition.name, ask_trust=True)
    state = runtime.store.load().state(definition.name)
    if state.enabled:  # started, and its tools are offered from the next request on
        _say(
            f"Trusted {definition.name}; its {plural(len(state.enabled_tools), 'tool')} join "
            "the next request."
        )
        return
    tools = state.cached_tools or ()
    _say(
        f"Trusted {definition.name}; {plural(len(tools), 'tool')}. It is disabled: "
        f"/mcp enable {definition.name} offers them."
    )


async def _restart(chat: ChatSession, name: str) -> None:
    runtime = await _runtime(chat)
    definition = runtime.store.load().find(name)
    await runtime.restart(definition.name)
    state = await runtime.discover(definition.name)
    _say(f"{definition.name} restarted; {plural(len(state.cached_tools or ()), 'tool')}.")


async def _tools(chat: ChatSession, name: str) -> None:
    runtime = await _runtime(chat)
    definition = runtime.store.load().find(name)
    state = await runtime.tools_state(definition.name)
    selected = set(state.enabled_tools)
    new = set(runtime.take_new_tools(definition.name))  # marked new here, once
    for tool in state.cached_tools or ():
        mark = "✓" if tool.name in selected else " "
        summary = (tool.description or "").strip().split("\n")[0][:70]
        tag = " (new)" if tool.name in new else ""
        _say(f"  {mark} {sanitize_line(tool.name)}{tag}  {sanitize_line(summary)}")
    _say(f"Select with: agent mcp tools {definition.name} --enable/--disable TOOL")


_DEFER_SAID = {
    "on": "its tools wait behind search_tools in every request",
    "off": "its tools are always sent whole, never deferred",
    "auto": "its tools are deferred when the MCP tools would crowd the model's window",
}


async def _defer(chat: ChatSession, name: str, mode: str) -> None:
    """/mcp defer NAME on|off|auto: whether a server's tools wait behind the tool search."""
    from agent.mcp.store import DEFER_MODES

    if mode not in DEFER_MODES:
        raise AgentError(f"/mcp defer {name} {mode}: the mode is on, off or auto")
    runtime = await _runtime(chat)
    definition = runtime.store.load().find(name)
    runtime.store.update_state(
        definition.name, fingerprint(definition), lambda s: replace(s, defer=mode)
    )
    _say(f"{definition.name}: {_DEFER_SAID[mode]} (from the next request).")


async def _edit(chat: ChatSession) -> None:
    from agent.mcp.editing import edit_document

    runtime = await _runtime(chat)
    # The editor owns the terminal meanwhile; the servers keep being served by the loop.
    await anyio.to_thread.run_sync(
        functools.partial(
            edit_document, runtime.store, say=_say, warn=_warn, edit_again=_edit_again
        )
    )
    stopped = await runtime.stop_removed()
    if stopped:
        _say(f"Stopped servers no longer enabled as they were: {', '.join(stopped)}")


def _auth(definition: HttpDefinition, expander: Expander) -> str:
    from agent.mcp.oauth.token_key import describe_auth
    from agent.mcp.oauth.token_store import TokenStore

    return describe_auth(definition, TokenStore(), expander)


async def _login(chat: ChatSession, name: str) -> None:
    from agent.ui.slash.mcp_login import login_in_chat

    runtime = await _runtime(chat)
    await login_in_chat(runtime, name, _say)


async def _logout(chat: ChatSession, name: str) -> None:
    from agent.mcp.config.launch import HttpLaunch, expand_definition
    from agent.mcp.oauth.revoke import logout
    from agent.mcp.oauth.token_store import TokenStore

    runtime = await _runtime(chat)
    definition = runtime.store.load().find(name)
    if not isinstance(definition, HttpDefinition):
        raise AgentError(f"{definition.name} is a local (stdio) server; it has no OAuth login")
    try:
        launch = expand_definition(definition, runtime.trust_gate.launch_trust.expander)
    except AgentError:  # the client secret's variable is unset: revoke as a public client
        launch = None
    assert launch is None or isinstance(launch, HttpLaunch)
    _say(await logout(definition, launch, TokenStore()))
    await runtime.stop(definition.name)


_ACTIONS = {
    "enable": _enable,
    "disable": _disable,
    "trust": _trust,
    "restart": _restart,
    "tools": _tools,
    "login": _login,
    "logout": _logout,
}


def mcp_completions(chat: ChatSession) -> Sequence[str]:
    """Server names, for completing `/mcp ACTION NAME`."""
    host = chat.host
    if host is None or host.runtime is None:
        return []
    return [d.name for d in host.runtime.store.load().definitions]
