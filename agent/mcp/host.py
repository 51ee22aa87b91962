"""McpHost: the chat's MCP side, brought up after the prompt is on screen.

Importing the mcp SDK costs most of a second, so it happens in a worker thread; then the
runtime starts every enabled, trusted stdio server in the background (each start lists its
tools again, so an upgraded server is offered as it is now). The prompt never waits for them;
a request does (`wait_for_servers`), so every tool the person enabled is in it: a server still
starting is waited for (each start is bounded by its start-up timeout), one that failed is left
out with a notice. One-shot mode asks for `only_if_used`: with no server enabled
it imports nothing of the SDK at all; and for `on_call_only`: its request does not wait, the
trusted servers' cached tools are offered while they start, and the servers whose tools it
defers start only when one is called. This module imports nothing heavy at load time.
"""

from __future__ import annotations

import contextlib
from collections.abc import AsyncIterator, Awaitable, Callable, Collection, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING

import anyio
import anyio.to_thread

from agent.errors import AgentError
from agent.home import mcp_store_path
from agent.text import plural
from agent.tools.base import Tool

if TYPE_CHECKING:
    from agent.mcp.config.definitions import LocalDefinition
    from agent.mcp.runtime import McpRuntime
    from agent.mcp.store import McpConfig
    from agent.mcp.toolset import McpToolset
    from agent.mcp.trust.launches import TrustedLaunch
    from agent.mcp.trust.question import TrustChoice, TrustRequest

Report = Callable[[str], None]
Waiting = Callable[[list[str]], None]  # told which servers a request is waiting for


@dataclass(frozen=True)
class ServerCounts:
    """Enabled servers by how usable they are right now (for the chat's status bar)."""

    ready: int = 0
    starting: int = 0
    offline: int = 0  # failed or lost
    untrusted: int = 0  # local, and its launch here is not trusted (yet)


def _import_runtime(store_path: Path) -> None:
    import agent.mcp.resource_tools
    import agent.mcp.runtime
    import agent.mcp.toolset

    if _oauth_may_be_used(store_path):
        # Here in the worker thread, not on the event loop when the first remote server
        # connects (client/transports.py imports it only then): a stdio server never needs it.
        import agent.mcp.oauth.runtime  # noqa: F401


def _oauth_may_be_used(store_path: Path) -> bool:
    """Whether an enabled remote server may log in (it has no Authorization header)."""
    from agent.mcp.config.definitions import HttpDefinition
    from agent.mcp.store import McpStore

    if not store_path.exists():
        return False
    try:
        config = McpStore(store_path).load()
    except AgentError:
        return False  # the runtime's start reports the damage
    return any(
        isinstance(d, HttpDefinition)
        and not d.has_authorization_header()
        and config.state(d.name).enabled
        for d in config.definitions
    )


def _servers(names: list[str]) -> str:
    """ "server a" or "servers a, b, c"."""
    return ("server " if len(names) == 1 else "servers ") + ", ".join(names)


class McpHost:
    """Owns the chat's McpRuntime for the whole app run; a Toolset asked afresh per request."""

    def __init__(
        self,
        make_runtime: Callable[[], McpRuntime],
        report: Report,
        store_path: Path | None = None,  # the store make_runtime's runtime uses (default: ours)
        *,
        chosen: frozenset[str] | None = None,  # --mcp / --no-mcp: the run's only servers
        quiet: bool = False,  # "ready" lines in the servers' logs only (-p without --verbose)
    ) -> None:
        self._make_runtime = make_runtime
        self._store_path = store_path
        self._report = report
        self._chosen = chosen
        self._quiet = quiet
        # One turn (`agent -p`): the servers whose tools would all be deferred in its request,
        # started only when one of their tools is called (their cached listing serves the
        # search meanwhile); asked once the runtime is up (see serve).
        self._on_call_only: Callable[[], Awaitable[Collection[str]]] | None = None
        self.runtime: McpRuntime | None = None
        self.ready = anyio.Event()
        self.started = anyio.Event()
        self._toolset: McpToolset | None = None  # kept: it caches built tools between requests
        self._one_shot = False
        self._starting: list[str] = []  # servers of the launch's start still starting
        self._changed = anyio.Event()  # set (and replaced) when the starting set changes
        # Enabled servers whose launch here needs the person's yes, asked once, together
        # (settle_trust); known once the start has judged them.
        self._awaiting_trust: list[str] = []
        self._trust_known = anyio.Event()

    def _signal_change(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()

    def still_starting(self) -> list[str]:
        """The enabled servers the next request would wait for (none once all have started)."""
        if self.started.is_set():
            return []
        return list(self._starting) if self.runtime is not None else self._enabled_names()

    async def wait_for_servers(self, waiting: Waiting) -> None:
        """Return once no enabled server is still starting; `waiting` is told which ones the
        request waits for each time that changes. Each start is bounded by the server's
        start-up timeout; the caller may cancel the wait (Ctrl-C sends without them)."""
        if self.started.is_set() or not self._enabled_names():
            return
        while not self.started.is_set():
            changed = self._changed
            names = list(self._starting) if self.runtime is not None else self._enabled_names()
            if names:  # empty for a moment between the last start and `started`
                waiting(names)
            await changed.wait()

    async def serve(
        self,
        stop: anyio.Event,
        *,
        only_if_used: bool = False,
        on_call_only: Callable[[], Awaitable[Collection[str]]] | None = None,
    ) -> None:
        """Import, enter the runtime, start servers, and keep them until `stop` is set.

        `only_if_used` (one turn, where no server can be enabled later): with no server
        enabled, import nothing of the SDK at all; it would cost its import for nothing.
        `on_call_only` (one turn, whose request does not wait for the servers): the tools
        offered are the trusted servers' cached ones, whether started yet or not, and the
        servers it names once the runtime is up are started only by a call to their tools
        (the runtime's `connection`, which starts a trusted server on first use and never
        asks for trust).
        """
        self._one_shot = only_if_used
        self._on_call_only = on_call_only
        if only_if_used and not self._any_enabled():
            self.ready.set()
            self.started.set()
            self._trust_known.set()
            return
        try:
            store_path = self._store_path or mcp_store_path()
            await anyio.to_thread.run_sync(_import_runtime, store_path)
            async with self._make_runtime() as runtime:
                self.runtime = runtime
                self.ready.set()
                async with anyio.create_task_group() as group:
                    group.start_soon(self._start_servers_then_signal, runtime)
                    await stop.wait()
                    group.cancel_scope.cancel()
        finally:
            self.runtime = None
            self.ready.set()
            self.started.set()
            self._trust_known.set()
            self._signal_change()

    def enabled_servers(self) -> list[str]:
        """The names of the enabled servers (none without a configuration)."""
        return self._enabled_names()

    def _any_enabled(self) -> bool:
        return bool(self._enabled_names())

    def _enabled_names(self) -> list[str]:
        path = self._store_path or mcp_store_path()
        if not path.exists() or self._chosen == frozenset():
            return []  # no server was ever added (or --no-mcp): not even the store is needed
        from agent.mcp.run_servers import RunStore

        try:
            config = RunStore(path, self._chosen).load()
        except AgentError:
            return ["(the MCP configuration)"]  # the runtime's start reports the damage
        return [d.name for d in config.definitions if config.state(d.name).enabled]

    async def _start_servers_then_signal(self, runtime: McpRuntime) -> None:
        try:
            await self._start_servers(runtime)
        finally:
            self._starting = []
            self.started.set()
            self._signal_change()

    async def _start_servers(self, runtime: McpRuntime) -> None:
        from agent.mcp.config.definitions import LOCAL_DEFINITIONS

        config = runtime.store.load()
        local = [
            d
            for d in config.definitions
            if isinstance(d, LOCAL_DEFINITIONS) and config.state(d.name).enabled
        ]
        self._report_needs_login(config)
        names = [d.name for d in local if runtime.is_trusted(d)]
        self._judge_untrusted(runtime, [d for d in local if d.name not in names])
        if self._on_call_only is not None:
            later = await self._on_call_only()
            names = [name for name in names if name not in later]
        self._starting = list(names)
        self._signal_change()
        async with anyio.create_task_group() as group:
            for name in names:
                group.start_soon(self._start_one, runtime, name)

    def _judge_untrusted(self, runtime: McpRuntime, untrusted: list[LocalDefinition]) -> None:
        """Enabled but not trusted for this launch (another project, a changed environment):
        say so, or its tools would be missing without a reason. A chat asks about them all
        at once, before the next message (settle_trust), and says so in one line; one turn
        (`agent -p`), where nobody is asked, says why for each."""
        try:
            pending = {r.server for r, _ in runtime.pending_trust([d.name for d in untrusted])}
            if self._one_shot:
                pending = set()
            for definition in untrusted:
                if definition.name not in pending:
                    self._report(runtime.untrusted_reason(definition))
            self._awaiting_trust = [d.name for d in untrusted if d.name in pending]
            if self._awaiting_trust:
                verb = "needs" if len(self._awaiting_trust) == 1 else "need"
                self._report(
                    f"MCP {_servers(self._awaiting_trust)} {verb} your trust in this project; "
                    "you are asked before your next message"
                )
        finally:
            self._trust_known.set()

    def awaits_trust(self) -> bool:
        """Whether settle_trust may have a question: servers await it, or the start has not
        judged them yet."""
        return bool(self._awaiting_trust) or (
            not self._trust_known.is_set() and bool(self._enabled_names())
        )

    async def settle_trust(self, choice: TrustChoice) -> list[str]:
        """Ask once about every enabled server whose launch here needs trust, and start the
        ones the person trusts (each exactly as shown: a launch changed since is not started
        by this yes). Returns notes; an empty list when nothing was to ask."""
        await self._trust_known.wait()
        names, self._awaiting_trust = self._awaiting_trust, []
        runtime = self.runtime
        if not names or runtime is None:
            return []
        pending = runtime.pending_trust(names)  # judged again: what would start now
        if not pending:
            return []
        chosen = await choice.choose([request for request, _ in pending])
        declined = [request.server for request, _ in pending if request.server not in chosen]
        for request, record in pending:
            if request.server not in chosen:  # asked once: later chats here do not ask again
                with contextlib.suppress(AgentError):  # changed meanwhile: it asks again
                    runtime.remember_declined(request.server, record)
        async with anyio.create_task_group() as group:
            for request, record in pending:
                if request.server in chosen:
                    group.start_soon(self._start_approved, runtime, request, record)
        if not declined:
            return []
        return [
            f"Left off: {_servers(declined)}, also in later chats here; /mcp trust NAME asks again"
        ]

    async def _start_approved(
        self, runtime: McpRuntime, request: TrustRequest, record: TrustedLaunch
    ) -> None:
        name = request.server
        try:
            await runtime.start(name, ask_trust=False, approved=record)
            count = len(runtime.store.load().state(name).enabled_tools)
            self._report(f"MCP server {name} trusted and ready ({plural(count, 'tool')})")
        except AgentError as error:
            self._report(f"MCP server {name} was not started: {error}")

    async def _start_one(self, runtime: McpRuntime, name: str) -> None:
        """Start one server and say how it went; one server's failure never stops another."""
        try:
            # Not `start`, which replaces a live connection: in one turn a call or an
            # @-mention may have started the server already, and is using it.
            connection = await runtime.connection(name)
            count = len(runtime.store.load().state(name).enabled_tools)
            line = f"MCP server {name} ready ({plural(count, 'tool')})"
            connection.note(line)  # the server's own log (agent/mcp/NAME.log) always has it
            new = self._new_tools(name)
            if not self._quiet:
                self._report(line + new)
            elif new:  # new tools are news to the person, whatever the verbosity
                self._report(f"MCP server {name}: {new.removeprefix('; ')}")
        except AgentError as error:
            self._report(f"MCP server {name} failed to start: {error}")
        finally:
            self._starting.remove(name)
            self._signal_change()

    def _new_tools(self, name: str) -> str:
        """ "; <the notice of its new tools>" when the start found some, else ""."""
        if self.runtime is None:
            return ""
        from agent.mcp.new_tools import new_tools_notice

        new = self.runtime.take_new_tools(name)
        return "; " + new_tools_notice(name, new) if new else ""

    def _report_needs_login(self, config: McpConfig) -> None:
        # Once, at start: an enabled remote server whose login ran out is left out (no browser
        # ever opens by itself); the person learns which command brings it back.
        from agent.mcp.oauth.status import servers_needing_login

        enabled = [d for d in config.definitions if config.state(d.name).enabled]
        for name in servers_needing_login(enabled):
            where = "" if self._one_shot else f" (or /mcp login {name} here)"
            self._report(
                f"MCP server {name} needs login; its tools are left out. "
                f"run: agent mcp login {name}{where}"
            )

    def server_counts(self) -> ServerCounts | None:
        """Enabled servers that are ready, starting and offline; None until the runtime is up."""
        runtime = self.runtime
        if runtime is None:
            return None
        from agent.mcp.config.definitions import LOCAL_DEFINITIONS

        config = runtime.store.load()
        ready = starting = offline = untrusted = 0
        for definition in config.definitions:
            if not config.state(definition.name).enabled:
                continue
            state = runtime.status(definition.name).state
            local = isinstance(definition, LOCAL_DEFINITIONS)
            if not runtime.is_trusted(definition):
                untrusted += 1
            elif state in ("offline", "failed"):
                offline += 1
            elif state == "ready" or (state == "stopped" and not local):
                ready += 1  # a remote server connects for each request
            elif state == "starting" or not self.started.is_set():
                starting += 1
            else:
                offline += 1
        return ServerCounts(ready, starting, offline, untrusted)

    def tools(self) -> Sequence[Tool]:
        """The MCP tools for the next request (none before the runtime is up)."""
        if self.runtime is None:
            return []
        if self._toolset is None or self._toolset.runtime is not self.runtime:
            from agent.mcp.toolset import McpToolset

            started_only = self._on_call_only is None  # see serve's on_call_only
            self._toolset = McpToolset(self.runtime, started_only=started_only, report=self._report)
        from agent.mcp.resource_tools import resource_tools

        unstarted = self._on_call_only is not None  # see serve's on_call_only
        return [*self._toolset.tools(), *resource_tools(self.runtime, unstarted=unstarted)]

    def defer_modes(self) -> dict[str, str]:
        """Each server's deferral mode ("auto", "on", "off"), for every request (the store
        keeps the parsed file while it is unchanged); none before the runtime is up."""
        runtime = self.runtime
        if runtime is None:
            return {}
        config = runtime.store.load()
        return {name: state.defer for name, state in config.runtime.items()}

    def server_instructions(self) -> dict[str, str]:
        """Each enabled, started server's instructions (masked), for the system prompt; none
        before the runtime is up."""
        runtime = self.runtime
        return runtime.server_instructions() if runtime is not None else {}

    @asynccontextmanager
    async def request_scope(self) -> AsyncIterator[None]:
        """One chat request: HTTP connections opened in it close when it ends."""
        if self.runtime is None:
            yield
            return
        async with self.runtime.request_scope():
            yield
