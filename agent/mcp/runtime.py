"""McpRuntime: the running MCP clients of one app run, keyed by server name.

stdio servers start once (after trust) and are reused across chat sessions until stopped,
disabled, changed, removed, or the app exits. HTTP connections live for one chat request
(`request_scope`), or for a console command. A server that dies is marked offline; its next
use tries one restart, and if that fails it stays offline until the person restarts it.
"""

from __future__ import annotations

import datetime
from collections.abc import AsyncIterator, Awaitable, Callable, Mapping, Sequence
from contextlib import asynccontextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from types import TracebackType
from typing import Any, Literal, TypeVar

import anyio
import anyio.abc
import mcp_types as types

from agent.errors import (
    AgentError,
    McpServerError,
    NeedsLoginError,
    ServerOfflineError,
    ServerStartError,
    ToolCallError,
)
from agent.mcp.cache_redaction import MaskedState, masked_state
from agent.mcp.catalog.cache import CachedCatalog, CatalogCache
from agent.mcp.catalog.contents import PromptResult, ResourcePart
from agent.mcp.catalog.entries import (
    CatalogKind,
    CompletionRef,
    Listing,
    PromptInfo,
    ResourceInfo,
    ResourceTemplateInfo,
    check_prompt_arguments,
)
from agent.mcp.client import catalog_requests as requests
from agent.mcp.client.connection import (
    Connection,
    ConnectionHooks,
    ProgressCallback,
    describe_error,
)
from agent.mcp.client.request_scopes import RequestScopes
from agent.mcp.client.server_log import ServerLog
from agent.mcp.client.skill_requests import list_skills, offers_skills
from agent.mcp.client.streams import Direction
from agent.mcp.config.command_definitions import CommandsDefinition, command_timeout
from agent.mcp.config.definitions import (
    LOCAL_DEFINITIONS,
    LocalDefinition,
    ServerDefinition,
    fingerprint,
)
from agent.mcp.config.expansions import expanded_secrets
from agent.mcp.config.launch import Launch, expand_definition
from agent.mcp.config.names import normalize_server_name
from agent.mcp.discovery import cached_tools, fresh_until, is_fresh, with_discovered_tools
from agent.mcp.forms.elicitation import DeclineElicitation, ElicitationHandler
from agent.mcp.new_tools import changed_tools, told_new_tools
from agent.mcp.store import CachedTool, McpStore, ServerState
from agent.mcp.trust.gate import TrustGate
from agent.mcp.trust.launches import (
    LaunchVerdict,
    TrustedLaunch,
    declined_in,
    forget_declined,
    launch_trust_for,
    remember,
    was_declined,
)
from agent.mcp.trust.question import DenyTrust, TrustPrompt, TrustRequest
from agent.settings import McpLimits

T = TypeVar("T")
_COMMAND_ANSWER_GRACE = 5.0  # seconds for a killed program's result to come back
State = Literal["stopped", "starting", "ready", "offline", "failed"]


@dataclass(frozen=True)
class SkillListing:
    """One server's answer to `skills/list`: its entries as sent (secrets masked)."""

    server: str
    entries: tuple[Any, ...]
    note: str | None  # a cap cut the listing short
    offered: bool  # the server declares the Skills extension


@dataclass(frozen=True)
class ServerStatus:
    """What /mcp and `agent mcp list` show about a running (or not) server."""

    name: str
    state: State
    started_at: datetime.datetime | None
    last_error: str | None


TOOLS_REFRESH_INTERVAL = 1.0  # seconds between two listings a server's list changes cause


@dataclass
class _Slot:
    name: str
    lock: anyio.Lock = field(default_factory=anyio.Lock)
    connection: Connection | None = None
    definition: ServerDefinition | None = None  # what the connection was started from
    state: State = "stopped"
    last_error: str | None = None
    restart_used: bool = False  # the one automatic restart since the last good call
    discovered_at_start: bool = False  # the start just listed the tools; do not list twice
    listed: bool = False  # tools listed since `definition` first started in this run
    latest_tools: list[types.Tool] | None = None  # the latest listing (kept for list_tools)
    instructions: str | None = None  # what its latest start said (redacted), kept for the prompt
    log: ServerLog | None = None
    # A list change while a refresh runs (or within TOOLS_REFRESH_INTERVAL after it) only
    # marks the list stale: a flood of notifications costs one listing a second at most.
    tools_refreshing: bool = False
    tools_stale: bool = False
    # Selected tools whose description or inputs changed since the person chose them (a list
    # change mid-chat, a rug pull; or an upgrade between chats, seen by the listing at start):
    # to be said, and said already (once a run each: a server flipping them cannot flood).
    changed_unsaid: list[str] = field(default_factory=list)
    changed_said: set[str] = field(default_factory=set)


class McpRuntime:
    """Owns every MCP connection of this app run. Use as `async with McpRuntime(...)`."""

    def __init__(
        self,
        store: McpStore,
        limits: McpLimits,
        *,
        logs_dir: Path,
        project_dir: Path,
        trust: TrustPrompt | None = None,
        elicitation: ElicitationHandler | None = None,
        environ: Mapping[str, str] | None = None,
        observe: Callable[[str, Direction, str], None] | None = None,
        on_tools_changed: Callable[[str], None] | None = None,
        on_restarted: Callable[[str], None] | None = None,
        watch_traffic: bool = False,
        observe_stderr: Callable[[str, str], None] | None = None,
    ) -> None:
        self.store = store
        self.limits = limits
        self._logs_dir = logs_dir
        self._project_dir = project_dir
        self._elicitation = elicitation or DeclineElicitation()
        self.trust_gate = TrustGate(launch_trust_for(project_dir, environ), trust or DenyTrust())
        self._expander = self.trust_gate.launch_trust.expander
        self._observe = observe
        self._on_tools_changed = on_tools_changed
        self._on_restarted = on_restarted  # told the name of a lost server started again
        self._watch_traffic = watch_traffic  # see ConnectionHooks.watch_traffic
        self._observe_stderr = observe_stderr  # (server, line): stdio servers' stderr, redacted
        self._slots: dict[str, _Slot] = {}
        self._catalogs = CatalogCache()
        self._scopes: RequestScopes[Connection] = RequestScopes()
        self._task_group: anyio.abc.TaskGroup | None = None

    async def __aenter__(self) -> McpRuntime:
        self._task_group = anyio.create_task_group()
        await self._task_group.__aenter__()
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> bool | None:
        assert self._task_group is not None
        with anyio.CancelScope(shield=True):
            await self.stop_all()
        # The group holds only owner tasks, all finished now. The body's own exception is not
        # passed in, so it propagates as itself instead of inside an ExceptionGroup.
        group, self._task_group = self._task_group, None
        group.cancel_scope.cancel()
        await group.__aexit__(None, None, None)
        return None

    # -- status ---------------------------------------------------------------------------

    def status(self, name: str) -> ServerStatus:
        """The state of one server in this run."""
        slot = self._slots.get(name)
        if slot is None:
            return ServerStatus(name, "stopped", None, None)
        connection = slot.connection
        state = slot.state
        if state == "ready" and connection is not None and connection.lost:
            state = "offline"
        started = connection.started_at if connection is not None else None
        return ServerStatus(name, state, started, slot.last_error)

    def offers(self, name: str, capability: str) -> bool | None:
        """Whether the server's live connection declared `capability` ("resources",
        "prompts"); None when there is no live connection to tell (sync, for the chat)."""
        slot = self._slots.get(name)
        connection = slot.connection if slot is not None else None
        if connection is None or not connection.alive or connection.info is None:
            return None
        return capability in connection.info.capabilities

    def live(self, name: str) -> Connection | None:
        """The server's connection when it is up now, without starting anything."""
        slot = self._slots.get(name)
        connection = slot.connection if slot is not None else None
        return connection if connection is not None and connection.alive else None

    def server_instructions(self) -> dict[str, str]:
        """Each enabled server's instructions from its latest start in this run, in the
        configuration's order (already masked of its secrets where they entered)."""
        config = self.store.load()
        found: dict[str, str] = {}
        for definition in config.definitions:
            slot = self._slots.get(definition.name)
            if slot is None or not slot.instructions or not config.state(definition.name).enabled:
                continue
            if slot.definition == definition and slot.state != "failed":
                found[definition.name] = slot.instructions
        return found

    def running(self) -> list[str]:
        """Names of servers with a live connection."""
        return [
            name
            for name, slot in self._slots.items()
            if slot.connection is not None and slot.connection.alive
        ]

    # -- trust ----------------------------------------------------------------------------

    def is_trusted(self, definition: ServerDefinition, *, fresh: bool = False) -> bool:
        """True when the server may start here without asking: its launch as it would run now
        (program, arguments, working directory, environment) was trusted. Remote servers run
        nothing on this computer. `fresh` looks again at PATH instead of the cached answer."""
        if not isinstance(definition, LOCAL_DEFINITIONS):
            return True
        trusted = self.store.load().state(definition.name).trusted_launches
        return self.trust_gate.is_trusted(definition, trusted, fresh=fresh)

    def cannot_start(self, definition: ServerDefinition) -> str | None:
        """Why a local server cannot start here trusted or not (its program found nowhere);
        None when it could, and for remote servers."""
        if not isinstance(definition, LOCAL_DEFINITIONS):
            return None
        trusted = self.store.load().state(definition.name).trusted_launches
        return self.trust_gate.cannot_start(definition, trusted)

    def untrusted_reason(self, definition: LocalDefinition) -> str:
        """One line on why an enabled local server does not start here, and what to do."""
        state = self.store.load().state(definition.name)
        found = self.trust_gate.pending(definition, state.trusted_launches)
        if found is not None and was_declined(state.declined_launches, self._project_dir, found[1]):
            return (
                f"MCP server {definition.name} is off here: you said no to what it runs in this "
                f"project; /mcp trust {definition.name} asks again"
            )
        return self.trust_gate.reason(definition, state.trusted_launches)

    # -- starting and stopping ------------------------------------------------------------

    def pending_trust(self, names: Sequence[str]) -> list[tuple[TrustRequest, TrustedLaunch]]:
        """For each of `names` that is local, not trusted here, could start and was not
        declined here as it is: the question about it and the launch a yes covers (for
        start's `approved`)."""
        config = self.store.load()
        pending = []
        for definition in config.definitions:
            if definition.name in names and isinstance(definition, LOCAL_DEFINITIONS):
                state = config.state(definition.name)
                found = self.trust_gate.pending(definition, state.trusted_launches)
                if found is not None and not was_declined(
                    state.declined_launches, self._project_dir, found[1]
                ):
                    pending.append(found)
        return pending

    def remember_declined(self, name: str, record: TrustedLaunch) -> None:
        """The person said no to `record` in this project's trust question: later chats here
        leave it off without asking (until it changes, or /mcp trust asks again)."""
        definition = self.store.load().find(name)
        no = declined_in(self._project_dir, record)

        def update(state: ServerState) -> ServerState:
            return replace(state, declined_launches=remember(state.declined_launches, no))

        self.store.update_state(definition.name, fingerprint(definition), update)

    async def start(
        self, name: str, *, ask_trust: bool = True, approved: TrustedLaunch | None = None
    ) -> Connection:
        """Start (or replace) the server's connection; an untrusted stdio server asks first,
        unless its launch is exactly `approved` (a yes given for several servers at once)."""
        definition = self.store.load().find(name)
        slot = self._slot(definition.name)
        async with slot.lock:
            slot.restart_used = False
            return await self._open(slot, definition, ask_trust=ask_trust, approved=approved)

    async def connection(self, name: str, *, ask_trust: bool = False) -> Connection:
        """A live connection, started on first use or restarted once if lost.

        An untrusted stdio server starts only when `ask_trust` and the person says yes.
        """
        definition = self.store.load().find(name)
        slot = self._slot(definition.name)
        async with slot.lock:
            current = slot.connection
            if current is not None and current.alive and slot.definition == definition:
                if not isinstance(definition, LOCAL_DEFINITIONS):
                    self._scopes.hold(current)
                return current
            if slot.state == "failed" or (slot.state == "offline" and slot.restart_used):
                raise ServerOfflineError(
                    f"MCP server {definition.name!r} is offline"
                    + (f" ({slot.last_error.splitlines()[0]})" if slot.last_error else "")
                    + f"; restart it with: agent mcp restart {definition.name}"
                )
            restarting = current is not None and current.lost
            if restarting:
                slot.restart_used = True
            connection = await self._open(slot, definition, ask_trust=ask_trust)
            if restarting and self._on_restarted is not None:
                self._on_restarted(definition.name)
            return connection

    async def start_many(self, names: list[str]) -> dict[str, AgentError | None]:
        """Start several trusted servers at once; each one's failure is its own result."""
        results: dict[str, AgentError | None] = {}

        async def start_one(name: str) -> None:
            try:
                await self.start(name, ask_trust=False)
                results[name] = None
            except AgentError as error:  # one server's problem never cancels the others
                results[name] = error

        async with anyio.create_task_group() as group:
            for name in names:
                group.start_soon(start_one, name)
        return results

    async def restart(self, name: str) -> Connection:
        """The person's restart: clears the offline state and starts afresh."""
        return await self.start(name, ask_trust=True)

    async def stop(self, name: str) -> None:
        """Stop one server (its process ends; no orphan remains)."""
        slot = self._slots.get(name)
        if slot is None:
            return
        async with slot.lock:
            await self._close_slot(slot)
            slot.instructions = None
            self._catalogs.forget(name)

    async def stop_removed(self) -> list[str]:
        """Stop servers deleted, disabled or changed in the saved configuration since start."""
        config = self.store.load()
        current = {d.name: d for d in config.definitions}
        stopped = []
        for name, slot in list(self._slots.items()):
            definition = current.get(name)
            if slot.connection is None:
                continue
            if (
                definition is None
                or not config.state(name).enabled
                or definition != slot.definition
            ):
                await self.stop(name)
                stopped.append(name)
        return stopped

    async def stop_all(self) -> None:
        """Stop every server; called when the app exits."""
        async with anyio.create_task_group() as group:
            for name in list(self._slots):
                group.start_soon(self.stop, name)
        for slot in self._slots.values():
            if slot.log is not None:
                slot.log.close()
                slot.log = None

    @asynccontextmanager
    async def request_scope(self) -> AsyncIterator[None]:
        """One chat request: HTTP connections it used close when it ends (however), unless
        another request still running uses them too. Scopes may overlap without nesting."""
        with self._scopes.entered() as used:
            try:
                yield
            finally:
                with anyio.CancelScope(shield=True):
                    for connection in used:
                        await self._release(connection)

    async def _release(self, connection: Connection) -> None:
        self._scopes.release(connection)
        slot = self._slots.get(connection.name)
        if slot is None or slot.connection is not connection:
            if not self._scopes.held(connection):
                await connection.close()  # replaced meanwhile: nobody else can reach it
            return
        async with slot.lock:
            # Checked under the lock: a request may have taken it up while we waited.
            if slot.connection is connection and not self._scopes.held(connection):
                await self._close_slot(slot)

    # -- using a server -------------------------------------------------------------------

    async def list_tools(self, name: str) -> list[types.Tool]:
        """Every tool of the server, following pagination (right after a start that listed
        them, that listing: the server is not asked twice)."""
        connection = await self.connection(name)
        slot = self._slot(connection.name)
        fresh = slot.discovered_at_start and slot.connection is connection
        if fresh and slot.latest_tools is not None:
            slot.discovered_at_start = False
            return slot.latest_tools
        return await self._guard(connection, connection.list_tools())

    async def discover(self, name: str, *, ask_trust: bool = False) -> ServerState:
        """List the tools and cache them in the store (new tools start unselected)."""
        definition = self.store.load().find(name)
        connection = await self.connection(definition.name, ask_trust=ask_trust)
        slot = self._slot(definition.name)
        if slot.discovered_at_start and slot.connection is connection:
            slot.discovered_at_start = False
            return self.store.load().state(definition.name)
        return await self._discover(definition, connection)

    async def tools_state(self, name: str, *, refresh: bool = False) -> ServerState:
        """The server's state with its tools masked: discovered first when asked or never
        listed (starting it, and asking for trust if it needs it)."""
        definition = self.store.load().find(name)
        state = self.store.load().state(definition.name)
        if refresh or state.cached_tools is None:
            state = await self.discover(definition.name, ask_trust=True)
        return self.cached_state(definition, state).state

    def take_new_tools(self, name: str) -> tuple[str, ...]:
        """The server's new (unselected) tools the person was not told of yet, forgotten as
        new now that the caller tells them: each is said once, whichever front end says it."""
        definition = self.store.load().find(name)
        state = self.store.load().state(definition.name)
        if not state.new_tools:
            return ()
        try:
            self.store.update_state(definition.name, fingerprint(definition), told_new_tools)
        except AgentError:
            return ()  # changed meanwhile (or unwritable): said by whoever lists it next
        masked = self.cached_state(definition, state).state  # a secret in a name is withheld
        shown = {tool.name for tool in masked.cached_tools or ()}
        return tuple(tool for tool in state.new_tools if tool in shown)

    def take_changed_tools(self, name: str) -> tuple[str, ...]:
        """The server's selected tools whose description or inputs changed mid-chat and were
        not said yet, forgotten as unsaid now that the caller says them."""
        slot = self._slots.get(name)
        if slot is None or not slot.changed_unsaid:
            return ()
        names, slot.changed_unsaid = slot.changed_unsaid, []
        definition = self.store.load().find(name)
        masked = self.cached_state(definition, self.store.load().state(definition.name)).state
        shown = {tool.name for tool in masked.cached_tools or ()}  # a secret in a name: withheld
        return tuple(tool for tool in names if tool in shown)

    def cached_state(self, definition: ServerDefinition, state: ServerState) -> MaskedState:
        """`state` with its cached tools masked of the definition's secrets, as anything that
        offers or shows them must have them (a cache may predate masking)."""
        return masked_state(definition, state, self._expander)

    async def call_tool(
        self,
        name: str,
        tool: str,
        arguments: dict[str, Any],
        on_progress: ProgressCallback | None = None,
        shown: CachedTool | None = None,
    ) -> types.CallToolResult:
        """Call one tool with the tool timeout (progress extends it). `shown`: the tool as
        the person was shown it when asked; the call is refused unless the server, once
        connected (a deferred server starts here and lists its tools afresh), still lists
        the tool so: a yes given to one tool never sends the call to another."""
        connection = await self.connection(name)
        if shown is not None:
            self._refuse_changed(name, shown)
        timeout = self.limits.tool_timeout_seconds
        definition = self._slot(connection.name).definition
        if isinstance(definition, CommandsDefinition):
            # The tool's own timeout ends the program and answers; waiting less would
            # cancel the call before it could say so.
            timeout = max(timeout, command_timeout(definition, tool) + _COMMAND_ANSWER_GRACE)
        result = await self._guard(
            connection, connection.call_tool(tool, arguments, timeout, on_progress)
        )
        # A good call after an automatic restart earns the server its next restart.
        self._slot(connection.name).restart_used = False
        return result

    def _refuse_changed(self, name: str, shown: CachedTool) -> None:
        """AgentError when the server's listing of `shown`'s tool (masked, as it was offered)
        is gone or differs from `shown`: its description, inputs or hints changed since the
        listing the question was drawn from (a cache from an earlier run, a list change)."""
        definition = self.store.load().find(name)
        masked = self.cached_state(definition, self.store.load().state(definition.name)).state
        live = next((t for t in masked.cached_tools or () if t.name == shown.name), None)
        if live == shown:
            return
        what = "is gone" if live is None else "changed since the person was asked about it"
        raise AgentError(
            f"not called: the tool {shown.name!r} of MCP server {name!r} {what} (its "
            "description, inputs or hints differ from what the approval showed); call it "
            "again to be asked about it as the server lists it now"
        )

    # -- resources, prompts, completion ---------------------------------------------------
    # Only for enabled servers (unless the person asks by hand: `allow_disabled`), started
    # only when trusted (never asks), like tools. Lists are cached for this run.

    async def resources(
        self, server: str, *, refresh: bool = False, allow_disabled: bool = False
    ) -> Listing[ResourceInfo]:
        """The server's resources, following pagination (cached; `refresh` lists again)."""
        return await self._listing(server, "resources", refresh, allow_disabled)

    async def resource_templates(
        self, server: str, *, refresh: bool = False, allow_disabled: bool = False
    ) -> Listing[ResourceTemplateInfo]:
        """The server's resource templates, following pagination (cached)."""
        return await self._listing(server, "templates", refresh, allow_disabled)

    async def prompts(
        self, server: str, *, refresh: bool = False, allow_disabled: bool = False
    ) -> Listing[PromptInfo]:
        """The server's prompts with their arguments, following pagination (cached)."""
        return await self._listing(server, "prompts", refresh, allow_disabled)

    def cached_catalog(self, server: str) -> CachedCatalog:
        """What is cached for the server, without waiting (for Tab completion)."""
        return self._catalogs.snapshot(server)

    def catalog_failed(self, server: str) -> None:
        """Listing `server` failed just now (Tab gave up waiting for it): completion leaves
        it alone for a while. Safe from a completer thread (one dictionary store)."""
        self._catalogs.failed(server)

    def add_catalog_listener(self, listener: Callable[[str, CatalogKind], None]) -> None:
        """Call `listener(server, kind)` after a list changed by the server was listed again."""
        self._catalogs.add_listener(listener)

    async def read_resource(
        self, server: str, uri: str, *, allow_disabled: bool = False, may_ask: bool = False
    ) -> tuple[ResourcePart, ...]:
        """The resource's contents (text and blob parts), within the tool timeout. `may_ask`
        only for a read the person started or approved: the server's forms are shown then;
        a read agent makes by itself (a served skill's file) has them declined unseen."""
        connection = await self._catalog_connection(server, "resources", allow_disabled)
        timeout = self.limits.tool_timeout_seconds
        read = requests.read_resource(connection, uri, timeout, may_ask=may_ask)
        return await self._guard(connection, read)

    async def skills(self, server: str, *, allow_disabled: bool = False) -> SkillListing:
        """The server's `skills/list` entries as it sent them (masked), never their files;
        empty when it does not declare the Skills extension."""
        connection = await self._catalog_connection(server, None, allow_disabled)
        info = connection.info
        if info is None or not offers_skills(info.capabilities):
            return SkillListing(connection.name, (), None, offered=False)
        timeout = self.limits.tool_timeout_seconds
        entries, note = await self._guard(connection, list_skills(connection, timeout))
        return SkillListing(connection.name, tuple(entries), note, offered=True)

    async def get_prompt(
        self,
        server: str,
        name: str,
        arguments: Mapping[str, str],
        *,
        allow_disabled: bool = False,
    ) -> PromptResult:
        """The prompt's messages; an unknown prompt, argument or a missing required argument
        is refused before anything is sent."""
        prompts = await self.prompts(server, allow_disabled=allow_disabled)
        check_prompt_arguments(server, prompts.items, name, arguments)
        connection = await self._catalog_connection(server, None, allow_disabled)
        timeout = self.limits.tool_timeout_seconds
        return await self._guard(
            connection, requests.get_prompt(connection, name, arguments, timeout)
        )

    async def complete(
        self,
        server: str,
        ref: CompletionRef,
        argument: str,
        value: str,
        context: Mapping[str, str] | None = None,
    ) -> tuple[str, ...]:
        """Suggested values for a prompt's or template's argument; () when the server offers
        no completions."""
        name = self._enabled(server, False).name
        try:
            connection = await self.connection(name)
        except BaseException:
            self._catalogs.failed(name)  # unreachable: completion leaves it alone for a while
            raise
        return await self._guard(
            connection, requests.complete(connection, ref, argument, value, context)
        )

    async def _listing(
        self, server: str, kind: CatalogKind, refresh: bool, allow_disabled: bool
    ) -> Listing[Any]:
        capability = "prompts" if kind == "prompts" else "resources"
        name = self._enabled(server, allow_disabled).name
        try:
            connection = await self.connection(name)
            if connection.info is not None and capability not in connection.info.capabilities:
                # A server without resources (or prompts) simply has none: cached like a
                # list, so completion does not connect again to learn it again.
                return self._catalogs.offers_none(name, kind)
            return await self._catalogs.get(name, kind, self._lister(connection), refresh=refresh)
        except BaseException:
            # Failed, timed out, or given up on (a Tab waits only briefly): completion leaves
            # the server alone for a while instead of trying again on every key press.
            self._catalogs.failed(name)
            raise

    def _lister(self, connection: Connection) -> Callable[[CatalogKind], Awaitable[Listing[Any]]]:
        async def lister(kind: CatalogKind) -> Listing[Any]:
            listed: Awaitable[Listing[Any]]
            if kind == "resources":
                listed = requests.list_resources(connection)
            elif kind == "templates":
                listed = requests.list_templates(connection)
            else:
                listed = requests.list_prompts(connection)
            return await self._guard(connection, listed)

        return lister

    def _enabled(self, server: str, allow_disabled: bool) -> ServerDefinition:
        config = self.store.load()
        definition = config.find(server)
        if not allow_disabled and not config.state(definition.name).enabled:
            raise McpServerError(
                f"MCP server {definition.name!r} is disabled; enable it with: "
                f"agent mcp enable {definition.name}"
            )
        return definition

    async def _catalog_connection(
        self, server: str, capability: str | None, allow_disabled: bool
    ) -> Connection:
        definition = self._enabled(server, allow_disabled)
        connection = await self.connection(definition.name)
        info = connection.info
        if capability is not None and info is not None and capability not in info.capabilities:
            raise McpServerError(f"MCP server {definition.name!r} offers no {capability}")
        return connection

    async def _refresh_catalog(self, name: str, kind: CatalogKind) -> None:
        connection = self._slot(name).connection
        if connection is None or not connection.alive:
            self._catalogs.abandon(name, kind)  # stays stale: the next use lists it
            return
        try:
            await self._catalogs.refresh(name, kind, self._lister(connection))
        except Exception as error:
            # Like a tools refresh: it runs in the runtime's task group, so it keeps the old
            # (stale) list and says why in the server's log instead of raising.
            why = str(error) if isinstance(error, AgentError) else describe_error(error)
            connection.note(f"refreshing {kind} after list_changed failed: {why}")

    # -- internals ------------------------------------------------------------------------

    def _slot(self, name: str) -> _Slot:
        if name not in self._slots:
            self._slots[name] = _Slot(name)
        return self._slots[name]

    async def _guard(self, connection: Connection, awaitable: Awaitable[T]) -> T:
        try:
            return await awaitable
        except ToolCallError as error:
            if connection.lost:
                slot = self._slot(connection.name)
                slot.state = "offline"
                slot.last_error = str(error)
            raise

    async def _open(
        self,
        slot: _Slot,
        definition: ServerDefinition,
        *,
        ask_trust: bool,
        approved: TrustedLaunch | None = None,
    ) -> Connection:
        # The launch is expanded once: trust is judged on it and the process spawned from it.
        launch: Launch
        trust_verdict: LaunchVerdict | None = None
        if isinstance(definition, LOCAL_DEFINITIONS):
            trusted = self.store.load().state(definition.name).trusted_launches
            try:
                verdict = await self.trust_gate.admit(
                    definition, trusted, ask=ask_trust, approved=approved
                )
            except ServerStartError as error:
                slot.state, slot.last_error = "failed", str(error)
                raise
            launch = verdict.launch
            if not verdict.trusted:
                trust_verdict = verdict  # recorded once it has started and listed its tools
        else:
            launch = expand_definition(definition, self._expander)
        await self._close_slot(slot)
        # The lists of the same server stay on offer (an HTTP server reconnects for every
        # chat request), but notices may have been missed: the next use lists them again.
        self._catalogs.reconnected(definition.name, same=slot.definition == definition)
        if slot.definition != definition:
            slot.listed = False
        log = self._open_log(slot)
        slot.state = "starting"
        hooks = self._hooks(slot, log, expanded_secrets(definition, self._expander))
        connection = Connection(launch, hooks, self.limits.startup_timeout_seconds)
        assert self._task_group is not None, "use McpRuntime as an async context manager"
        try:
            await connection.open(self._task_group)
        except BaseException as error:
            # Failed, or cancelled while starting: either way the child must not outlive us.
            if isinstance(error, NeedsLoginError):
                # Not a failure of the server: the next use tries again (a login may have
                # happened meanwhile, in this chat or another terminal).
                slot.state, slot.last_error = "stopped", str(error)
            elif isinstance(error, McpServerError):
                slot.state, slot.last_error = "failed", str(error)
            else:
                slot.state = "stopped"
            with anyio.CancelScope(shield=True):
                await connection.close()
            raise
        slot.connection = connection
        slot.definition = definition
        slot.state = "ready"
        slot.last_error = None
        slot.instructions = connection.info.instructions if connection.info else None
        if not isinstance(definition, LOCAL_DEFINITIONS):
            self._scopes.hold(connection)
        await self._list_at_start(slot, definition, connection, trust_verdict)
        return connection

    async def _list_at_start(
        self,
        slot: _Slot,
        definition: ServerDefinition,
        connection: Connection,
        trust: LaunchVerdict | None,
    ) -> None:
        """List the tools afresh once per run of this definition (an HTTP server reconnects
        for every request: once is enough), unless the last listing's cache hint holds.

        One round trip after the handshake (about a millisecond on stdio): a server upgraded
        since the list was cached offers the model what it offers now. A listing that fails
        keeps the cached list and says why in the server's log; the start stands, unless the
        server asks for a login (the start is then the login's, as at the handshake) or the
        start is the one that trusts it.
        """
        slot.discovered_at_start = False
        if trust is not None:
            # Trust is recorded only once the handshake and discovery have both succeeded.
            try:
                await self._discover(definition, connection, trust=trust)
            except BaseException:
                with anyio.CancelScope(shield=True):
                    await self._close_slot(slot)
                raise
            slot.discovered_at_start = slot.listed = True
            return
        before = self.store.load().state(definition.name)
        if slot.listed or is_fresh(before):
            return
        try:
            after = await self._discover(definition, connection)
        except NeedsLoginError as error:
            with anyio.CancelScope(shield=True):
                await self._close_slot(slot)
            slot.state, slot.last_error = "stopped", str(error)
            raise
        except AgentError as error:
            connection.note(f"listing tools at start failed; the cached list stays: {error}")
            return
        slot.discovered_at_start = slot.listed = True
        changed = before.cached_tools is not None and after.cached_tools != before.cached_tools
        if changed and self._on_tools_changed is not None:
            self._on_tools_changed(definition.name)

    async def _discover(
        self,
        definition: ServerDefinition,
        connection: Connection,
        *,
        trust: LaunchVerdict | None = None,
    ) -> ServerState:
        tools = await self._guard(connection, connection.list_tools())
        slot = self._slot(definition.name)
        slot.latest_tools = tools
        cached = cached_tools(definition.name, tools)
        until = fresh_until(connection.tools_ttl_ms)
        earlier: list[ServerState] = []  # what was cached, read under the store's lock

        def update(state: ServerState) -> ServerState:
            earlier.append(state)
            updated = with_discovered_tools(state, cached, until)
            if trust is not None:
                launches = remember(state.trusted_launches, trust.record)
                declined = forget_declined(state.declined_launches, self._project_dir, trust.record)
                updated = replace(updated, trusted_launches=launches, declined_launches=declined)
            return updated

        config = self.store.update_state(definition.name, fingerprint(definition), update)
        after = config.state(definition.name)
        # Every listing that replaces the cache (a start, a list change, a restart, a login)
        # says a selected tool it changed: the model is offered the new one from now on.
        self._note_changed_tools(slot, earlier[-1], after)
        return after

    def _hooks(self, slot: _Slot, log: ServerLog, secrets: list[str]) -> ConnectionHooks:
        def tools_changed() -> None:
            if slot.tools_refreshing:
                slot.tools_stale = True
            elif self._task_group is not None:
                slot.tools_refreshing = True
                self._task_group.start_soon(self._refresh_tools_while_stale, slot)

        observe = self._observe

        def observe_server(direction: Direction, text: str) -> None:
            if observe is not None:
                observe(slot.name, direction, text)

        def catalog_changed(kind: CatalogKind) -> None:
            kinds: tuple[CatalogKind, ...] = (
                ("resources", "templates") if kind == "resources" else (kind,)
            )
            for changed in self._catalogs.changed(slot.name, kinds):
                if self._task_group is not None:
                    self._task_group.start_soon(self._refresh_catalog, slot.name, changed)

        return ConnectionHooks(
            elicitation=self._elicitation,
            roots=[self._project_dir.resolve().as_uri()],
            log=log,
            on_tools_changed=tools_changed,
            on_catalog_changed=catalog_changed,
            observe=observe_server if observe is not None else None,
            secrets=secrets,
            watch_traffic=self._watch_traffic,
            observe_stderr=self._stderr_observer(slot.name),
        )

    def _stderr_observer(self, name: str) -> Callable[[str], None] | None:
        observe = self._observe_stderr
        if observe is None:
            return None

        def observe_line(line: str) -> None:
            observe(name, line)

        return observe_line

    async def _refresh_tools_while_stale(self, slot: _Slot) -> None:
        """Refresh, and again while changes arrived during the last refresh or the pause
        after it."""
        try:
            while True:
                slot.tools_stale = False
                await self._refresh_tools(slot.name)
                await anyio.sleep(TOOLS_REFRESH_INTERVAL)
                if not slot.tools_stale:
                    return
        finally:
            slot.tools_refreshing = False

    async def _refresh_tools(self, name: str) -> None:
        slot = self._slot(name)
        connection = slot.connection
        if connection is None or not connection.alive:
            return
        try:
            definition = self.store.load().find(name)
            await self._discover(definition, connection)
        except Exception as error:
            # This runs in the runtime's own task group, which hosts every server (and in a
            # chat the chat itself): whatever goes wrong, a failed refresh keeps the old
            # cache and says why in the server's log.
            why = str(error) if isinstance(error, AgentError) else describe_error(error)
            connection.note(f"refreshing tools after list_changed failed: {why}")
            return
        if self._on_tools_changed is not None:
            self._on_tools_changed(name)

    @staticmethod
    def _note_changed_tools(slot: _Slot, before: ServerState, after: ServerState) -> None:
        """Keep, to be said once a run each, the selected tools whose description or inputs
        differ from those the person chose (mid-chat, across a restart, or since the last
        chat)."""
        for tool in changed_tools(before, after):
            if tool not in slot.changed_said:
                slot.changed_said.add(tool)
                slot.changed_unsaid.append(tool)

    async def _close_slot(self, slot: _Slot) -> None:
        connection, slot.connection = slot.connection, None
        if connection is not None:
            await connection.close()
        if slot.state in ("ready", "starting"):
            slot.state = "stopped"

    def _open_log(self, slot: _Slot) -> ServerLog:
        if slot.log is None or slot.log.closed:
            name = normalize_server_name(slot.name) or "server"
            slot.log = ServerLog(self._logs_dir / "mcp" / f"{name}.log")
        stamp = datetime.datetime.now(datetime.UTC).isoformat(timespec="seconds")
        slot.log.write(f"\n=== agent starts MCP server {slot.name!r} at {stamp}\n")
        return slot.log
