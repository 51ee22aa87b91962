"""`agent mcp enable|disable NAME... / --all`: several servers at once, one trust question.

Enabling discovers a server's tools first (starting it) when none are cached. The local
servers not trusted here are asked about together, before anything starts: one question shows
each one's exact launch, as `agent mcp trust` does, and a yes admits exactly the launches
shown (each is expanded again at its start and compared: `TrustGate.admit`'s `approved`).
Trust is asked only of a person at a terminal, through `terminal.py` (which empties what was
typed before the question); from a pipe the command refuses and says how to do it.
"""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from dataclasses import replace
from typing import TYPE_CHECKING

import anyio

from agent.commands.mcp_config import find_all
from agent.commands.mcp_console import run_with_runtime
from agent.commands.output import say, warn
from agent.errors import AgentError, NotTrustedError
from agent.mcp.cache_redaction import masked_state
from agent.mcp.config.definitions import LOCAL_DEFINITIONS, ServerDefinition, fingerprint
from agent.mcp.oauth.token_key import default_expander
from agent.mcp.store import McpConfig, McpStore
from agent.mcp.trust.launches import TrustedLaunch
from agent.mcp.trust.question import TrustRequest
from agent.text import noun_for, plural, sanitize_line
from agent.tools.schema_limits import withheld_reason

if TYPE_CHECKING:
    from agent.mcp.runtime import McpRuntime


def _chosen(
    config: McpConfig, names: Sequence[str], every: bool, outcome: str
) -> list[ServerDefinition]:
    if every and names:
        raise AgentError("give server names or --all, not both")
    if every:
        return list(config.definitions)
    if not names:
        raise AgentError("name the servers (agent mcp list shows them), or give --all")
    return find_all(config, names, outcome)


def disable_command(store: McpStore, names: Sequence[str], every: bool) -> int:
    """Disable servers: their tools leave every request; their state is kept."""
    config = store.load()
    targets = _chosen(config, names, every, "nothing disabled")
    if not targets:
        say("No MCP servers configured.")
        return 0
    expected = {d.name: fingerprint(d) for d in targets}
    store.update_states(expected, lambda state: replace(state, enabled=False))
    say(f"Disabled {', '.join(expected)}.")
    return 0


def enable_command(store: McpStore, names: Sequence[str], every: bool) -> int:
    """Enable servers, trusting the local ones not trusted here after one question."""
    config = store.load()
    targets = _chosen(config, names, every, "nothing enabled")
    if not targets:
        say("No MCP servers configured. Add one with: agent mcp add NAME -- COMMAND")
        return 0
    pending = _pending_trust(config, targets)
    if pending:
        again = "--all" if every else shlex.join(names)
        if not _trust_confirmed([request for request, _ in pending.values()], again):
            warn("Nothing was enabled.")
            return 1
    starting = {
        d.name: pending[d.name][1] if d.name in pending else None
        for d in targets
        if d.name in pending or config.state(d.name).cached_tools is None
    }
    failed: dict[str, AgentError] = {}
    withheld: dict[str, dict[str, str]] = {}
    if starting:
        run_with_runtime(store, lambda runtime: _start_all(runtime, starting, failed, withheld))
    enabled = [d for d in targets if d.name not in failed]
    if enabled:
        expected = {d.name: fingerprint(d) for d in enabled}
        store.update_states(expected, lambda state: replace(state, enabled=True))
        _say_enabled(store, enabled, withheld)
    for name, error in failed.items():
        warn(f"agent: {name} was not enabled: {error}")
    return 1 if failed else 0


def _pending_trust(
    config: McpConfig, targets: Sequence[ServerDefinition]
) -> dict[str, tuple[TrustRequest, TrustedLaunch]]:
    """For each local server not trusted here that could start: its question and the record
    a yes covers. One that cannot start is tried anyway and says why."""
    from agent.mcp.trust.gate import TrustGate
    from agent.mcp.trust.launches import launch_trust_for
    from agent.mcp.trust.question import DenyTrust
    from agent.project import find_project_dir

    gate = TrustGate(launch_trust_for(find_project_dir()), DenyTrust())
    pending = {}
    for definition in targets:
        if isinstance(definition, LOCAL_DEFINITIONS):
            found = gate.pending(definition, config.state(definition.name).trusted_launches)
            if found is not None:
                pending[definition.name] = found
    return pending


def _trust_confirmed(requests: Sequence[TrustRequest], again: str) -> bool:
    """One question about every request, on a terminal; no terminal refuses, saying how."""
    servers = [repr(request.server) for request in requests]
    if not sys.stdin.isatty():
        many = len(requests) > 1
        raise NotTrustedError(
            f"MCP {noun_for(len(requests), 'server')} {', '.join(servers)} "
            f"{'are' if many else 'is'} not trusted here and there is no terminal to ask: trust "
            "is never read from a pipe or a file. Nothing was enabled. Run `agent mcp enable "
            f"{again}` on a terminal: "
            + ("one question lists them all." if many else "it asks you there.")
        )
    from agent.commands.terminal import confirm

    if len(requests) > 1:
        print(
            f"{len(requests)} MCP servers run programs on this computer; a yes trusts exactly "
            "these launches, here:",
            file=sys.stderr,
        )
    for request in requests:  # one line each: a path with a line break draws no line of ours
        for line in request.describe():
            print(sanitize_line(line), file=sys.stderr)
    if len(requests) == 1:
        return confirm("Start it and trust what it runs here?", default=False)
    return confirm(
        f"Start these {plural(len(requests), 'server')} and trust what they run here?",
        default=False,
    )


async def _start_all(
    runtime: McpRuntime,
    starting: dict[str, TrustedLaunch | None],
    failed: dict[str, AgentError],
    withheld: dict[str, dict[str, str]],
) -> int:
    """Start each server (at once), discovering its tools; a failure is that server's alone.
    `withheld`: by server, the tools its listing withheld and why."""

    async def start(name: str, approved: TrustedLaunch | None) -> None:
        try:
            if approved is not None:  # trust is recorded once it has started and listed
                await runtime.start(name, ask_trust=False, approved=approved)
            else:
                await runtime.discover(name, ask_trust=False)
        except AgentError as error:
            failed[name] = error
            return
        live = runtime.live(name)
        withheld[name] = dict(live.withheld_tools) if live is not None else {}

    async with anyio.create_task_group() as group:
        for name, approved in starting.items():
            group.start_soon(start, name, approved)
    return 0


def _say_enabled(
    store: McpStore, enabled: Sequence[ServerDefinition], withheld: dict[str, dict[str, str]]
) -> None:
    config = store.load()
    expander = default_expander()
    for definition in enabled:
        # Counted from the cache as it is offered: masked, withheld tools left out.
        masked = masked_state(definition, config.state(definition.name), expander)
        for tool, problem in {**withheld.get(definition.name, {}), **masked.withheld}.items():
            warn(withheld_reason(sanitize_line(tool), definition.name, problem))
        state = masked.state
        count = len(state.cached_tools or ())
        selected = f"{len(state.enabled_tools)} of {plural(count, 'tool')} selected"
        if len(enabled) == 1:
            say(
                f"Enabled {definition.name}: {selected} (change with: agent mcp tools "
                f"{definition.name} --enable/--disable TOOL)"
            )
            return
        say(f"Enabled {definition.name}: {selected}")
    say("Change a server's selection with: agent mcp tools NAME --enable/--disable TOOL")
