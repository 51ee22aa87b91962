"""One live connection to one MCP server, opened and closed by one long-lived owner task.

The mcp SDK binds a session's cancel scopes to the task that entered them, so the owner task
enters the transport and the ClientSession, then waits; other tasks call through the session.
Failures become McpServerError with the server's name; they never escape into other servers.
An answer the SDK refuses (invalid MCP, a result against the tool's schema) is an error for
that request, or for the start, never an exception that escapes. Forms are forms/server_forms.py's.
Everything the server says that we pass on (stderr, errors, log lines, progress, and every
answer, the handshake and each form, through client/answer_redaction.py) is redacted of the
definition's secrets here, before any other part of agent sees it.
"""

from __future__ import annotations

import datetime
import json
import time
from collections import deque
from collections.abc import Awaitable, Callable, Sequence
from contextlib import nullcontext
from dataclasses import dataclass
from typing import Any, TypeVar

import anyio
import anyio.abc
import mcp_types as types
from mcp.client.session import ClientRequestContext
from mcp.shared.exceptions import MCPError
from mcp.shared.message import ClientMessageMetadata, SessionMessage

import agent.mcp.client.era_memory as era_memory
from agent.errors import (
    STDERR_TAIL_HEADING,
    NeedsLoginError,
    ServerStartError,
    TokenStoreError,
    ToolCallError,
    ToolTimeoutError,
)
from agent.mcp.catalog.entries import CatalogKind
from agent.mcp.client.answer_redaction import (
    redact_answer,
    redact_form,
    redact_tools,
    redact_url_elicitation,
)
from agent.mcp.client.era_client import AUTO, EraClient, EraStart, evicting, response_cache
from agent.mcp.client.json_redaction import FORM_PROBLEM, URL_PROBLEM, UnmaskableError
from agent.mcp.client.list_changes import ListenHooks, listen_for_changes
from agent.mcp.client.sdk import (
    DEFAULT_INPUT_REQUIRED_MAX_ROUNDS,
    EraSession,
    InputRequiredRoundsExceededError,
    stamp_message,
)
from agent.mcp.client.server_log import ServerLog
from agent.mcp.client.server_requests import ConnectionTraffic
from agent.mcp.client.stdio import ChildOutput
from agent.mcp.client.streams import Direction, MessageObserver, tap_streams
from agent.mcp.client.transports import RedirectRefusedError, open_transport
from agent.mcp.config.launch import CommandsLaunch, HttpLaunch, Launch, StdioLaunch
from agent.mcp.config.launch_secrets import without_ordinary
from agent.mcp.forms.elicitation import ElicitationHandler
from agent.mcp.forms.server_forms import ServerForms
from agent.redaction import Redactor, redactor
from agent.text import plural, progress_text, sanitize, sanitize_line
from agent.tools.schema_limits import withheld_reason
from agent.tools.validation import SCHEMA_CHECK_SECONDS, bounded_patterns

# The extensions we advertise (SEP-2133): Agent Skills served over MCP (SEP-2640), which we
# list, and read only when a skill is activated (agent/skills/served.py checks them).
SKILLS_EXTENSION = "io.modelcontextprotocol/skills"
ADVERTISED_EXTENSIONS: dict[str, dict[str, Any]] = {SKILLS_EXTENSION: {}}

_TAIL_LINES = 15
_TAIL_LINE_CHARS = 300
_ERROR_LINE_CHARS = 500
_CALL_ERROR_CHARS = 2_000  # a request's error message, which the model is told as well
# How long a stdio server's first start waits for an answer to `server/discover` before it
# falls back to the handshake (era_client.py; the SDK alone waits 10 s). SDK servers of both
# eras answer at once (legacy ones with -32601); only a server that ignores unknown requests
# costs this, once: its era is remembered (era_memory.py).
STDIO_PROBE_SECONDS = 2.0
# Error codes that say a remembered era is wrong: a legacy server refusing a modern request
# (-32601, or -32600 for the envelope), a modern one refusing the handshake (-32022).
_WRONG_ERA_CODES = frozenset(
    {types.METHOD_NOT_FOUND, types.INVALID_REQUEST, types.UNSUPPORTED_PROTOCOL_VERSION}
)

T = TypeVar("T")
ProgressCallback = Callable[[float, float | None, str | None], None]


@dataclass(frozen=True)
class ServerInfo:
    """What the server said about itself in the handshake."""

    name: str
    version: str
    protocol_version: str
    capabilities: dict[str, Any]
    instructions: str | None


@dataclass
class ConnectionHooks:
    """How a connection reaches the rest of the app for server-initiated traffic."""

    elicitation: ElicitationHandler
    roots: Sequence[str]  # file:// URIs
    log: ServerLog  # the server's log file (its stderr goes there too, redacted)
    on_tools_changed: Callable[[], None] = lambda: None
    on_catalog_changed: Callable[[CatalogKind], None] = lambda kind: None
    observe: Callable[[Direction, str], None] | None = None  # --trace; secrets already redacted
    secrets: Sequence[str] = ()  # beyond the launch's own: values of expanded ${VAR}s
    # Keep the server's requests to us and let hand-written messages wait for answers
    # (the console's commands); off in a chat, where every message would pay for it.
    watch_traffic: bool = False
    # Each stderr line of a stdio server, redacted and cut as the log has it (the web console).
    observe_stderr: Callable[[str], None] | None = None


class Connection:
    """A connection to one server; `open` returns once the handshake is done or has failed."""

    def __init__(self, launch: Launch, hooks: ConnectionHooks, startup_timeout: float) -> None:
        self.launch = launch
        self.name = launch.server
        self.info: ServerInfo | None = None
        self.started_at: datetime.datetime | None = None
        self.lost = False  # the server went away without our asking
        self._hooks = hooks
        self._startup_timeout = startup_timeout
        self._client: EraClient | None = None
        self._start: EraStart = AUTO  # how this start began (recalled from era_memory)
        self._answered = False  # some request of ours got an answer (the era is proven)
        self._failure: ServerStartError | None = None
        self._stdout_junk: list[str] = []
        inherited = launch.inherited_env if isinstance(launch, StdioLaunch | CommandsLaunch) else {}
        self._secrets = [*launch.secrets(), *without_ordinary(hooks.secrets, inherited)]
        self._redactor: Redactor = redactor(self._secrets)
        self._stderr_tail: deque[str] = deque(maxlen=_TAIL_LINES)
        self.traffic = ConnectionTraffic()  # the server's requests to us; answers to `send`
        self._write: Any = None  # the tapped stream our messages go out on, once open
        self._transport_gone = False  # the stream from the server ended (it exited or hung up)
        self._handshake_scope: anyio.CancelScope | None = None
        self._forms = ServerForms(
            self.name, hooks.elicitation, self._write_log, secret=self._add_secret
        )
        # Tools of the latest listing that carry a secret where masking cannot reach (their
        # name, a property name): masked name -> why. Front ends say it; the log says it once.
        self.withheld_tools: dict[str, str] = {}
        # The latest listing's cache hint (`ttlMs`, the least of its pages); 0 when a server
        # gives none (every legacy one): the list is stale at once.
        self.tools_ttl_ms = 0
        self._withheld_logged: set[str] = set()
        self._ready = anyio.Event()
        self._closing = anyio.Event()
        self._finished = anyio.Event()

    @property
    def alive(self) -> bool:
        """True while calls can be made."""
        return self._client is not None and not self.lost and not self._closing.is_set()

    async def open(self, task_group: anyio.abc.TaskGroup) -> None:
        """Start the owner task and wait for the handshake; raise ServerStartError on failure."""
        task_group.start_soon(self._own, name=f"mcp server {self.name}")
        await self._ready.wait()
        if self._failure is not None:
            raise self._failure

    async def close(self) -> None:
        """Ask the owner task to close the connection and wait until it has.

        A handshake still under way is cancelled, so stopping never waits out the start-up
        timeout of a server that does not answer.
        """
        self._closing.set()
        if self._handshake_scope is not None:
            self._handshake_scope.cancel()
        await self._finished.wait()

    async def list_tools(self) -> list[types.Tool]:
        """Every tool, following pagination."""
        client = self._require_session()
        tools: list[types.Tool] = []
        cursor: str | None = None
        self.withheld_tools = {}
        client.session.header_refusals = {}
        ttls: list[int] = []
        for _page in range(10_000):  # a server that never stops paging must not hang us
            result = await self._bounded(client.list_tools(cursor), "listing tools")
            tools.extend(result.tools)
            ttls.append(result.ttl_ms)  # the SDK reads an absent hint as 0
            cursor = result.next_cursor
            if not cursor:
                self.tools_ttl_ms = min(ttls)
                self._withhold(
                    {
                        self._redactor.redact(name): f"its x-mcp-header annotations are invalid "
                        f"({sanitize_line(self._redactor.redact(reason))})"
                        for name, reason in client.session.header_refusals.items()
                    }
                )
                return tools
        raise ToolCallError(f"MCP server {self.name!r}: tools/list never stopped paging")

    async def call_tool(
        self,
        tool: str,
        arguments: dict[str, Any],
        timeout: float,
        on_progress: ProgressCallback | None = None,
    ) -> types.CallToolResult:
        """Call `tool`; each progress notification moves the timeout `timeout` s further on."""
        client = self._require_session()
        scope = anyio.CancelScope(deadline=anyio.current_time() + timeout)

        async def progress(progress: float, total: float | None, message: str | None) -> None:
            scope.deadline = anyio.current_time() + timeout
            if message is not None:
                message = self._redactor.redact(message)
            self._write_log(f"progress of {tool}: {progress_text(progress, total, message)}")
            if on_progress is not None:
                on_progress(progress, total, message)

        # The SDK checks a result against the tool's output schema: the server's pattern on
        # the server's value, so it gets the same time limit as our own checks; its first
        # result also checks the schema itself (check_schema, linear in its size).
        with self._forms.tool_call(), scope, bounded_patterns(SCHEMA_CHECK_SECONDS):
            result: types.CallToolResult = await self._request(
                client.call_tool(tool, arguments, progress),
                f"calling {tool}",
            )
            return result
        raise ToolTimeoutError(
            f"MCP server {self.name!r}: {tool} did not answer within {timeout:g} s "
            "(the call was cancelled)"
        )

    async def send(
        self,
        call: Callable[[EraClient], Awaitable[T]],
        what: str,
        timeout: float | None = None,
        *,
        may_ask: bool = False,
    ) -> T:
        """One request of ours (`what` names it in errors), bounded by `timeout` (else the
        start-up timeout); failures become ToolCallError like a tool call's. With `may_ask`
        (a prompt got or a resource read: the protocol lets a 2026-07-28 server answer those
        with input_required), the server's forms meanwhile are shown as a tool call's are;
        a listing's never."""
        client = self._require_session()
        with self._forms.tool_call() if may_ask else nullcontext():
            result: T = await self._bounded(call(client), what, timeout)
        return result

    def redact(self, text: str) -> str:
        """`text` with this server's secrets masked."""
        return self._redactor.redact(text)

    async def send_message(self, payload: dict[str, Any], timeout: float) -> dict[str, Any] | None:
        """Send one hand-written JSON-RPC message; a request's answer (None when none came
        within `timeout` s), or None at once for anything else. Secrets are redacted."""
        client = self._require_session()
        if not self._hooks.watch_traffic:
            raise ToolCallError(f"MCP server {self.name!r}: this connection does not watch answers")
        try:
            message = types.jsonrpc_message_adapter.validate_python(payload, by_name=False)
        except ValueError as error:
            raise ToolCallError(
                f"not a JSON-RPC message: {sanitize_line(validation_summary(error))}"
            ) from None
        metadata = None
        if client.modern and isinstance(message, types.JSONRPCRequest):
            # A 2026-07-28 server refuses a request without the envelope every request
            # carries (protocol version, client info and capabilities in _meta; Mcp-* headers
            # on HTTP): a hand-written one gets it as the session's own requests do.
            data = message.model_dump(by_alias=True, mode="json", exclude_none=True)
            headers = stamp_message(client.session, data)
            message = types.jsonrpc_message_adapter.validate_python(data, by_name=False)
            metadata = ClientMessageMetadata(headers=headers) if headers else None
        write = self._write
        sent = message

        async def send() -> None:
            await write.send(SessionMessage(sent, metadata=metadata))

        if not isinstance(message, types.JSONRPCRequest):
            await send()
            return None
        answer = await self.traffic.wait_for_answer(message.id, send, timeout)
        if answer is None:
            return None
        return dict(json.loads(self._redactor.redact(json.dumps(answer, ensure_ascii=False))))

    async def _bounded(self, awaitable: Any, what: str, timeout: float | None = None) -> Any:
        """A request that is not a tool call: it gets the start-up timeout unless told."""
        limit = self._startup_timeout if timeout is None else timeout
        with anyio.move_on_after(limit) as scope:
            return await self._request(awaitable, what)
        assert scope.cancelled_caught
        raise ToolCallError(
            f"MCP server {self.name!r} did not answer within {limit:g} s while {what}"
        )

    def _require_session(self) -> EraClient:
        if self._client is None or not self.alive:
            raise ToolCallError(f"MCP server {self.name!r} is not connected")
        return self._client

    def _invalid_answer(self, error: ValueError) -> str:
        """One line on what was wrong with an answer: server-chosen keys are in it, redacted."""
        return sanitize_line(self._redactor.clip(validation_summary(error), _ERROR_LINE_CHARS))

    def _quoted(self, message: str) -> str:
        """A server's own message quoted in one of our errors: one line, redacted, and cut
        (a server's error of 400,000 characters was printed whole by every front end)."""
        return sanitize_line(self._redactor.clip(message, _ERROR_LINE_CHARS))

    def _first_line(self, error: Exception) -> str:
        """The first line of an error's text (the rest quotes schemas and values), redacted."""
        lines = str(error).strip().splitlines() or [type(error).__name__]
        return sanitize_line(self._redactor.clip(lines[0], _ERROR_LINE_CHARS))

    def _connection_gone(self, error: MCPError) -> bool:
        """Whether `error` means the connection ended. The SDK reports that as code -32000,
        but a live server may answer -32000 too: only the transport can tell."""
        return error.code == types.CONNECTION_CLOSED and (
            self._transport_gone or self._closing.is_set()
        )

    def _add_secret(self, value: str) -> None:
        """Mask `value` (an OAuth token, say) in everything this server sends from now on."""
        if value not in self._secrets:
            self._secrets.append(value)
            self._redactor = redactor(self._secrets)

    def _login_needed(self, error: MCPError) -> NeedsLoginError | None:
        """The login the server now wants, when its OAuth ended this connection (an expired
        grant, a step-up): the auth flow recorded it in the token file before it gave up."""
        if error.code != types.CONNECTION_CLOSED or not isinstance(self.launch, HttpLaunch):
            return None
        from agent.mcp.oauth.status import login_needed

        return login_needed(self.launch)

    def _more_access(self, error: MCPError) -> ToolCallError | None:
        """This call's failure when the server asked for more scope (a 403 step-up) for it."""
        if error.code != types.INTERNAL_ERROR or not isinstance(self.launch, HttpLaunch):
            return None
        from agent.mcp.oauth.status import more_access_wanted

        wanted = more_access_wanted(self.launch)
        if wanted is None:
            return None
        import shlex

        return ToolCallError(
            sanitize_line(
                f"MCP server {self.name!r} needs more access for this ({wanted}); the other "
                f"tools still work; to allow it run agent mcp login {shlex.quote(self.name)}"
            )
        )

    async def _request(self, awaitable: Any, what: str) -> Any:
        try:
            answer = await awaitable
        except MCPError as error:
            login = self._login_needed(error)
            if login is not None:
                self.lost = True
                raise login from None
            if self._connection_gone(error):
                if self._closing.is_set() and not self.lost:  # we closed it, not the server
                    raise ToolCallError(
                        f"MCP server {self.name!r} was stopped while {what}"
                    ) from None
                self.lost = True
                raise ToolCallError(
                    f"MCP server {self.name!r} closed the connection while {what}"
                    + self._tail_suffix()
                ) from None
            more = self._more_access(error)
            if more is not None:
                raise more from None
            if error.code == types.URL_ELICITATION_REQUIRED:
                raise await self._pages_required(error, what) from None
            self._check_era(error)
            # The server's words go into our error as one line: a line break in them must
            # not print as a line of ours ("agent: ..."). Cut, as every front end prints it
            # whole (`agent mcp call`), but longer than other quotes: the model reads it.
            message = sanitize_line(self._redactor.clip(error.message, _CALL_ERROR_CHARS))
            raise ToolCallError(
                f"MCP server {self.name!r} returned an error while {what}: {message} "
                f"(code {error.code})"
            ) from None
        except ValueError as error:
            # The SDK validates each answer (pydantic's ValidationError is a ValueError): a
            # malformed one is that request's failure, never the connection's or the app's.
            raise ToolCallError(
                f"MCP server {self.name!r} sent an answer that is not valid MCP while {what}: "
                f"{self._invalid_answer(error)}"
            ) from None
        except InputRequiredRoundsExceededError:
            raise ToolCallError(
                f"MCP server {self.name!r} kept asking for more input while {what} (more than "
                f"{DEFAULT_INPUT_REQUIRED_MAX_ROUNDS} rounds); the request was given up"
            ) from None
        except RuntimeError as error:
            # The SDK's other refusals of an answer: structured content against the tool's
            # output schema, an InputRequiredResult we never asked for.
            raise ToolCallError(
                f"MCP server {self.name!r} sent an answer the MCP client refused while {what}: "
                f"{self._first_line(error)}"
            ) from None
        self._answered = True
        return self._masked(answer, what)

    def _check_era(self, error: MCPError) -> None:
        """A remembered modern era the server no longer speaks: forget it, so the next start
        probes, and say so (the first answer of a start is what proves the era)."""
        if self._answered or self._start.mode != "modern" or error.code not in _WRONG_ERA_CODES:
            return
        era_memory.forget(self.launch, self._write_log)
        self.lost = True
        raise ToolCallError(
            f"MCP server {self.name!r} no longer speaks the protocol version it spoke before "
            f"({self._quoted(error.message)}); it will be asked again "
            "when it next starts"
        )

    def _withhold(self, problems: dict[str, str]) -> None:
        for name, problem in problems.items():
            self.withheld_tools[name] = problem
            if name not in self._withheld_logged:
                self._withheld_logged.add(name)
                self._write_log(withheld_reason(name, self.name, problem))

    def _masked(self, answer: Any, what: str) -> Any:
        """The answer with this server's secrets masked: the one form every part of agent
        sees (the model, the store, the CLI, the terminal, the console)."""
        try:
            if isinstance(answer, types.ListToolsResult):
                answer, withheld = redact_tools(answer, self._redactor)
                self._withhold({tool.name: tool.problem for tool in withheld})
                return answer
            return redact_answer(answer, self._redactor)
        except ValueError as error:  # masked, it was no longer valid MCP: nobody gets it
            raise ToolCallError(
                f"MCP server {self.name!r} sent an answer that could not be masked of its "
                f"secrets while {what}: {self._invalid_answer(error)}"
            ) from None

    async def _own(self) -> None:
        try:
            self._start = era_memory.recall(self.launch, self._write_log)
            if not await self._connect_once():
                # A remembered handshake the server refused: it changed era; forget and probe.
                self._write_log("refused the remembered protocol era; asking it again")
                era_memory.forget(self.launch, self._write_log)
                self._start = AUTO
                self._failure = None
                self._transport_gone = False
                await self._connect_once()
        except Exception as error:  # one server's failure must not spread to the others
            self._record_failure(error)
        finally:
            self._client = None
            self._closing.set()
            self._ready.set()
            self._finished.set()

    async def _connect_once(self) -> bool:
        """One transport and session, in the era `self._start` says; False only when a
        remembered legacy era was refused as such (the caller then probes once)."""
        output = ChildOutput(
            stderr_line=self._stderr_line, note=self._write_log, secret=self._add_secret
        )
        async with open_transport(self.launch, output) as streams:
            read, write = tap_streams(streams, self._observer(), self._transport_ended)
            self._write = write
            probe = STDIO_PROBE_SECONDS if isinstance(self.launch, StdioLaunch) else None
            # The cache reads the version the session negotiates, once it has.
            cache = response_cache(
                f"{self.name}\n{era_memory.launch_key(self.launch)}",
                lambda: session.protocol_version,
            )
            session = EraSession(
                read,
                write,
                elicitation_callback=self._elicit,
                list_roots_callback=self._list_roots,
                logging_callback=self._log_message,
                message_handler=evicting(cache, self._on_message),
                client_info=types.Implementation(name="agent", version=_version()),
                extensions=ADVERTISED_EXTENSIONS,
                probe_seconds=min(probe, self._startup_timeout) if probe else None,
            )
            async with session:
                client = EraClient(session, cache, DEFAULT_INPUT_REQUIRED_MAX_ROUNDS)
                verdict = await self._handshake(client)
                if verdict is None:
                    return False
                if not verdict:
                    return True
                self._client = client
                self.started_at = datetime.datetime.now(datetime.UTC)
                self._ready.set()
                await self._wait_listening(client)
        return True

    async def _handshake(self, client: EraClient) -> bool | None:
        """True once started; False on failure (said); None when a remembered legacy
        handshake was refused as the wrong era (nothing said: the caller probes)."""
        try:
            return await self._start_era(client)
        except _WrongEra:
            return None

    async def _start_era(self, client: EraClient) -> bool:
        if self._closing.is_set():
            self._fail("was stopped before it finished starting")
            return False
        try:
            with anyio.CancelScope() as self._handshake_scope:
                with anyio.fail_after(self._startup_timeout):
                    await client.start(self._start)
            if self._closing.is_set():  # close() cancelled the handshake
                self._fail("was stopped before it finished starting")
                return False
        except TimeoutError:
            junk = ""
            if self._stdout_junk:
                junk = f"; it printed non-MCP text on stdout: {self._stdout_junk[0]!r}"
            self._fail(f"did not finish the MCP handshake within {self._startup_timeout:g} s{junk}")
            return False
        except MCPError as error:
            if self._connection_gone(error):
                self._fail("exited or closed the connection during start-up")
            elif self._start.mode == "legacy" and era_memory.launch_key(self.launch):
                if error.code in _WRONG_ERA_CODES or error.code == types.INVALID_PARAMS:
                    raise _WrongEra from None
                self._fail(f"refused the MCP handshake: {self._quoted(error.message)}")
            else:
                self._fail(f"refused the MCP handshake: {self._quoted(error.message)}")
            return False
        except ValueError as error:  # an initialize result the SDK could not validate
            self._fail(
                f"sent an answer that is not valid MCP to the handshake: "
                f"{self._invalid_answer(error)}"
            )
            return False
        except RuntimeError as error:  # e.g. a protocol version the SDK does not speak
            self._fail(f"failed the MCP handshake: {self._first_line(error)}")
            return False
        finally:
            self._handshake_scope = None
        return self._started(client)

    def _started(self, client: EraClient) -> bool:
        """ServerInfo from the handshake or the discover result, masked; the era remembered."""
        session = client.session
        try:
            # Its instructions and its name are the server's words: masked like any answer.
            discover = session.discover_result
            if discover is not None:
                discover = redact_answer(discover, self._redactor)
            handshake = session.initialize_result
            if handshake is not None:
                handshake = redact_answer(handshake, self._redactor)
            implementation = handshake.server_info if handshake is not None else session.server_info
        except ValueError as error:
            self._fail(f"sent a handshake that could not be masked: {self._invalid_answer(error)}")
            return False
        answer = discover if discover is not None else handshake
        assert answer is not None  # one of the two is set once the start succeeded
        capabilities = answer.capabilities.model_dump(mode="json", by_alias=True, exclude_none=True)
        # The discover result's serverInfo stamp sits in its _meta, which answer masking
        # leaves as data: the name and version are masked here, as every answer's text is.
        self.info = ServerInfo(
            name=self._redactor.redact(implementation.name) if implementation else self.name,
            version=self._redactor.redact(implementation.version) if implementation else "",
            protocol_version=session.protocol_version or "",
            capabilities=capabilities,
            instructions=answer.instructions,
        )
        if self._start.mode != "modern":
            era_memory.remember(self.launch, discover, self._write_log)
        return True

    async def _wait_listening(self, client: EraClient) -> None:
        """Wait until closed; on a modern server, listen for list changes meanwhile (the
        legacy era's list_changed notifications arrive through _on_message instead)."""
        if not client.modern:
            await self._closing.wait()
            return
        hooks = ListenHooks(
            on_tools_changed=self._hooks.on_tools_changed,
            on_catalog_changed=self._hooks.on_catalog_changed,
            note=self._write_log,
            ack_timeout=self._startup_timeout,
        )
        async with anyio.create_task_group() as group:
            group.start_soon(listen_for_changes, client, hooks)
            await self._closing.wait()
            group.cancel_scope.cancel()

    def _observer(self) -> MessageObserver | None:
        observe = self._hooks.observe
        if observe is None and not self._hooks.watch_traffic:
            return None

        def observer(direction: Direction, payload: dict[str, Any]) -> None:
            if observe is None and not self.traffic.wants(direction, payload):
                return
            shown_text: list[str] = []

            def shown() -> str:
                # Once per message: for_trace consumes what it knows of a form's answer.
                if not shown_text:
                    shown = self._forms.for_trace(direction == "send", payload)
                    shown_text.append(self._redactor.redact(json.dumps(shown, ensure_ascii=False)))
                return shown_text[0]

            self.traffic.see(direction, payload, shown)
            if observe is not None:
                observe(direction, shown())

        return observer

    def _transport_ended(self) -> None:
        self._transport_gone = True
        if not self._closing.is_set():
            self.lost = True
            self._closing.set()

    def _fail(self, reason: str) -> None:
        if self._failure is None and not self._ready.is_set():
            text = self._redactor.redact(f"MCP server {self.name!r} {reason}")
            self._failure = ServerStartError(text + self._tail_suffix())
        self._ready.set()

    def _record_failure(self, error: BaseException) -> None:
        try:
            self._describe_failure(_first_leaf(error))
        except Exception as unexpected:  # describing must never be what breaks the app
            self._fail(f"failed: {describe_error(unexpected)}")
        if self._ready.is_set() and self._client is not None:
            self.lost = True

    def _describe_failure(self, leaf: BaseException) -> None:
        self._write_log(f"connection ended with {describe_error(leaf)}")
        command = self.launch.command if isinstance(self.launch, StdioLaunch) else None
        if isinstance(leaf, FileNotFoundError) and command is not None:
            self._fail(f"could not start: command {command!r} not found")
        elif isinstance(leaf, PermissionError) and command is not None:
            self._fail(f"could not start: command {command!r} is not executable")
        elif isinstance(leaf, NeedsLoginError):
            # Its own line says all: "NAME needs login: run agent mcp login NAME".
            if self._failure is None and not self._ready.is_set():
                self._failure = leaf
            self._ready.set()
        elif isinstance(leaf, TokenStoreError):
            self._fail(f"cannot use its OAuth tokens: {leaf}")
        elif isinstance(leaf, ServerStartError | RedirectRefusedError):
            # Our own sentences (an unreadable oauth.privateKeyFile, a refused redirect).
            self._fail(str(leaf).removeprefix(f"MCP server {self.name!r} "))
        elif isinstance(leaf, (OSError, *httpx_errors())):
            self._fail(f"could not be reached: {describe_error(leaf)}")
        else:
            self._fail(f"failed: {describe_error(leaf)}")

    def _tail_suffix(self) -> str:
        if not self._stderr_tail:
            return ""
        lines = "\n".join(
            f"  | {sanitize(self._redactor.clip(line, _TAIL_LINE_CHARS))}"
            for line in self._stderr_tail
        )
        return f"\n{STDERR_TAIL_HEADING}\n{lines}"

    def _stderr_line(self, line: str, cut: bool) -> None:
        """One line of the child's stderr: redacted, kept for the tail, then logged."""
        if cut:
            text = self._redactor.redact_cut(line) + " [line cut]"
        else:
            text = self._redactor.redact(line)
        if text.strip():
            self._stderr_tail.append(text)
        self._hooks.log.write(text + "\n")
        if self._hooks.observe_stderr is not None:
            self._hooks.observe_stderr(text)

    def note(self, text: str) -> None:
        """Add a time-stamped line of ours to the server's log (secrets redacted)."""
        self._write_log(text)

    def _write_log(self, text: str) -> None:
        stamp = time.strftime("%Y-%m-%dT%H:%M:%S")
        # A closed log ignores the write: the connection may still be winding down.
        self._hooks.log.write(f"[{stamp}] agent: {self._redactor.redact(text)}\n")

    async def _elicit(
        self, context: ClientRequestContext, params: types.ElicitRequestParams
    ) -> types.ElicitResult | types.ErrorData:
        if isinstance(params, types.ElicitRequestFormParams):
            try:
                params = redact_form(params, self._redactor)
            except UnmaskableError:
                said = f"Declined a form from MCP server {self.name}: {FORM_PROBLEM}."
                self._write_log(said)
                self._hooks.elicitation.notice(said)
                return types.ElicitResult(action="decline")
        else:
            masked = self._masked_url_request(params)
            if masked is None:
                return types.ElicitResult(action="decline")
            params = masked
        return await self._forms.elicit(context.request_id, params)

    def _masked_url_request(
        self, params: types.ElicitRequestURLParams
    ) -> types.ElicitRequestURLParams | None:
        """A web page request with its message masked; None (said) when its URL holds one
        of this server's secrets: masked, it would lead somewhere else."""
        try:
            return redact_url_elicitation(params, self._redactor)
        except UnmaskableError:
            said = f"Declined a web page from MCP server {self.name}: {URL_PROBLEM}."
            self._write_log(said)
            self._hooks.elicitation.notice(said)
            return None

    async def _pages_required(self, error: MCPError, what: str) -> ToolCallError:
        """A `-32042` answer: the web pages it names offered to the person, then the error
        that tells the model (or the person) the call can be retried once they are done."""
        try:
            data = types.ElicitationRequiredErrorData.model_validate(error.data or {})
        except ValueError as invalid:
            return ToolCallError(
                f"MCP server {self.name!r} asked for web pages while {what} in an answer that "
                f"is not valid MCP: {self._invalid_answer(invalid)}"
            )
        pages = [p for p in map(self._masked_url_request, data.elicitations) if p is not None]
        outcome = await self._forms.pages_required(pages)
        return ToolCallError(f"MCP server {self.name!r} {outcome} (while {what}; code -32042)")

    async def _list_roots(self, context: ClientRequestContext) -> types.ListRootsResult:
        return types.ListRootsResult(
            roots=[types.Root(uri=uri, name="project") for uri in self._hooks.roots]  # type: ignore[arg-type]
        )

    async def _log_message(self, params: types.LoggingMessageNotificationParams) -> None:
        logger = f" {params.logger}" if params.logger else ""
        # Structured data as JSON, never Python's repr: masking knows a secret's raw and JSON
        # forms, and repr escapes a quote that JSON does not (`'pa\'ss"word'`).
        data = params.data
        text = data if isinstance(data, str) else json.dumps(data, ensure_ascii=False)
        self._write_log(f"server log {params.level}{logger}: {text}")

    async def _on_message(self, message: types.ServerNotification | Exception) -> None:
        if isinstance(message, Exception):
            # The SDK hands us lines it could not parse: a server printing junk on stdout.
            text = self._redactor.clip(_unparsed_line(message), 200)
            if len(self._stdout_junk) < 5:
                self._stdout_junk.append(text)
            self._write_log(f"unreadable message from server: {text}")
        elif isinstance(message, types.ToolListChangedNotification):
            self._hooks.on_tools_changed()
        elif isinstance(message, types.ResourceListChangedNotification):
            self._hooks.on_catalog_changed("resources")
        elif isinstance(message, types.PromptListChangedNotification):
            self._hooks.on_catalog_changed("prompts")
        elif isinstance(message, types.ElicitCompleteNotification):
            self._forms.completed(message.params.elicitation_id)


class _WrongEra(Exception):
    """A remembered era's start refused as the wrong era."""


def _unparsed_line(error: Exception) -> str:
    """The text a server printed instead of JSON-RPC (pydantic keeps it as the input)."""
    errors = getattr(error, "errors", None)
    if callable(errors):
        try:
            value = errors()[0].get("input")
        except Exception:  # not a pydantic error after all
            value = None
        if isinstance(value, str):
            return value[:4096]  # cut (after redaction) by the caller
    text = str(error).strip()
    return text.splitlines()[0][:4096] if text else type(error).__name__


def validation_summary(error: ValueError) -> str:
    """The first problem pydantic found (field path: message), and how many more there are."""
    errors = getattr(error, "errors", None)
    try:
        problems = errors() if callable(errors) else []
    except Exception:  # a ValueError that is not pydantic's after all
        problems = []
    if not problems:
        return str(error).strip().split("\n")[0] or type(error).__name__
    first = problems[0]
    where = ".".join(str(part) for part in first.get("loc", ()))
    text = f"{where}: {first.get('msg', '')}" if where else str(first.get("msg", ""))
    if len(problems) > 1:
        text += f" (and {plural(len(problems) - 1, 'more problem')})"
    return text


def _first_leaf(error: BaseException) -> BaseException:
    while isinstance(error, BaseExceptionGroup) and error.exceptions:
        error = error.exceptions[0]
    return error


def describe_error(error: BaseException) -> str:
    """The exception's type and text, as one line."""
    # One line: an exception's text may quote what a server sent, line breaks and all.
    text = sanitize_line(str(error).strip())
    return f"{type(error).__name__}: {text}" if text else type(error).__name__


def httpx_errors() -> tuple[type[Exception], ...]:
    """The transport errors an HTTP server can cause."""
    import httpx2

    return (httpx2.HTTPError,)


def _version() -> str:
    from agent import __version__

    return __version__
