"""What the console's page may do with the configured servers, by name only.

The page names a server from the person's configuration (exactly as configured) and never a
program, arguments or a URL: a name that is not configured is unknown, whatever it looks like.
A local server starts only when it is trusted already (trust is never asked or granted here);
a remote one that needs a login says so (no browser is opened from the console). Everything
returned is MCP JSON, redacted of the server's secrets by the runtime.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import anyio

from agent.errors import (
    AgentError,
    NeedsLoginError,
    NotTrustedError,
    ToolTimeoutError,
    UnknownServerError,
)
from agent.mcp.client import console_requests
from agent.mcp.client.connection import Connection
from agent.mcp.config.definitions import LOCAL_DEFINITIONS, ServerDefinition
from agent.mcp.runtime import McpRuntime
from agent.tools.schema_limits import schema_limit_problem, withheld_reason
from agent.tools.validation import argument_problems
from agent.web.console_hub import ConsoleHub, Event
from agent.web.raw_ids import RawIds

ERROR_CHARS = 500
MAX_COMPLETIONS = 100  # completion/complete's own cap on the values of one answer
MAX_COMPLETION_CHARS = 1000
STATE_POLL_SECONDS = 0.25


class ApiError(Exception):
    """A request the console cannot do: its HTTP status and a one-line reason."""

    def __init__(self, status: int, message: str) -> None:
        super().__init__(message)
        self.status = status
        self.message = message


def one_line(text: str) -> str:
    """The first line of a text, cut: errors quote what servers said."""
    lines = text.strip().splitlines()
    first = lines[0] if lines else ""
    return first if len(first) <= ERROR_CHARS else first[:ERROR_CHARS] + "..."


def untrusted_note(name: str) -> str:
    """The note for a local server that is not trusted here."""
    return f"untrusted: run agent mcp trust {name}"


# The note for a local server whose program is found nowhere: it cannot start, trusted or not,
# so it is never told to trust it. The page is told no program (it never sees a command).
CANNOT_START_NOTE = (
    "cannot start: its program is not found on this computer (agent mcp list shows its "
    "command; agent mcp edit corrects it)"
)


def login_note(name: str) -> str:
    """The note for a remote server that wants a login."""
    return f"needs login: run agent mcp login {name}"


class ConsoleService:
    """The page's operations on the runtime's servers."""

    def __init__(self, runtime: McpRuntime, hub: ConsoleHub) -> None:
        self.runtime = runtime
        self.hub = hub
        self.raw_ids = RawIds()
        self._needs_login: set[str] = set()
        self._shown: dict[str, tuple[Any, ...]] = {}
        # The input schemas of the tools the page listed, per server and live connection: a
        # call checks against them instead of listing every tool again (a tools/list on the
        # wire before each call, in the person's log, that they never asked for).
        # Per tool: its input schema, and why it cannot be offered (agent/tools/schema_limits.py).
        self._listed: dict[str, tuple[Connection, dict[str, tuple[dict[str, Any], str | None]]]]
        self._listed = {}

    # -- servers ------------------------------------------------------------------------

    def definition(self, name: str) -> ServerDefinition:
        """The configured server named exactly `name`; 404 for anything else."""
        for definition in self.runtime.store.load().definitions:
            if definition.name == name:
                return definition
        raise ApiError(404, f"no server named {one_line(repr(name))} in the configuration")

    def entries(self) -> list[dict[str, Any]]:
        """Every configured server, in configuration order."""
        return [self.entry(d) for d in self.runtime.store.load().definitions]

    def entry(self, definition: ServerDefinition) -> dict[str, Any]:
        """What the page may know of a server: never its command, arguments, env or URL."""
        name = definition.name
        config = self.runtime.store.load()
        trusted = self.runtime.is_trusted(definition)
        startable = trusted or self.runtime.cannot_start(definition) is None
        note = None
        if not startable:
            note = CANNOT_START_NOTE
        elif not trusted:
            note = untrusted_note(name)
        elif name in self._needs_login:
            note = login_note(name)
        status = self.runtime.status(name)
        connection = self.runtime.live(name)
        return {
            "name": name,
            "type": definition.transport,
            "enabled": config.state(name).enabled,
            "trusted": trusted,
            "startable": startable,
            "note": note,
            "state": status.state,
            "error": one_line(status.last_error) if status.last_error else None,
            "info": _info(connection),
        }

    def replay(self) -> list[Event]:
        """Each server's state, for a tab that opens now."""
        return [Event("server", entry) for entry in self.entries()]

    async def watch_states(self) -> None:
        """Tell the tabs whenever a server's state (or trust) changes. Polled: a server that
        goes away by itself (it exited, the network dropped) changes its state without telling
        anyone, and trust is granted in another terminal."""
        while True:
            self.announce_changes()
            await anyio.sleep(STATE_POLL_SECONDS)

    def announce_changes(self) -> None:
        """Publish the entry of every server whose state changed since it was last shown."""
        for definition in self.runtime.store.load().definitions:
            status = self.runtime.status(definition.name)
            live = self.runtime.live(definition.name)
            # Trust too: `agent mcp trust NAME` in a terminal turns Connect on in the page.
            trusted = self.runtime.is_trusted(definition)
            login = definition.name in self._needs_login
            key = (status.state, status.last_error, id(live), login, trusted)
            if self._shown.get(definition.name) != key:
                self._shown[definition.name] = key
                self.hub.publish(Event("server", self.entry(definition)))

    async def connect(self, name: str) -> dict[str, Any]:
        """Start the server (or keep its live connection) and return its entry."""
        definition = self.definition(name)
        if isinstance(definition, LOCAL_DEFINITIONS) and not self.runtime.is_trusted(
            definition, fresh=True
        ):
            if self.runtime.cannot_start(definition) is not None:
                raise ApiError(409, CANNOT_START_NOTE)
            raise ApiError(409, untrusted_note(definition.name))
        if self.runtime.live(definition.name) is None:
            with self.errors(definition.name):
                await self.runtime.start(definition.name, ask_trust=False)
        self._needs_login.discard(definition.name)
        self.announce_changes()
        return self.entry(definition)

    async def disconnect(self, name: str) -> dict[str, Any]:
        """Stop the server (its process ends) and return its entry."""
        definition = self.definition(name)
        await self.runtime.stop(definition.name)
        self.announce_changes()
        return self.entry(definition)

    # -- requests -----------------------------------------------------------------------

    def connection(self, name: str) -> Connection:
        """The server's live connection; 409 when it is not connected."""
        definition = self.definition(name)
        connection = self.runtime.live(definition.name)
        if connection is None:
            raise ApiError(409, f"{definition.name} is not connected: connect it first")
        return connection

    async def list_page(self, name: str, kind: object, cursor: object) -> dict[str, Any]:
        """One page of tools, resources, resource templates or prompts."""
        if kind not in console_requests.LIST_KINDS:
            raise ApiError(400, "kind: must be tools, resources, resourceTemplates or prompts")
        if cursor is not None and not isinstance(cursor, str):
            raise ApiError(400, "cursor: must be a string or null")
        connection = self.connection(name)
        if not console_requests.offers(connection, kind):
            raise ApiError(409, f"{connection.name} offers no {kind}")
        with self.errors(connection.name):
            items, next_cursor = await console_requests.list_page(
                connection, kind, cursor, self.timeout
            )
        if kind == "tools":
            listed = [t for t in items if isinstance(t, dict) and isinstance(t.get("name"), str)]
            schemas = {t["name"]: (t.get("inputSchema"), t.get("outputSchema")) for t in listed}
            self._remember(connection, schemas)
        return {"items": items, "nextCursor": next_cursor}

    def _remember(self, connection: Connection, schemas: dict[str, tuple[Any, Any]]) -> None:
        """Keep listed tools' input schemas (and whether they are over the limits of a tool's
        schemas) for this live connection (a new one starts over)."""
        known = self._listed.get(connection.name)
        if known is None or known[0] is not connection:
            known = (connection, {})
            self._listed[connection.name] = known
        for name, (given, output) in schemas.items():
            if isinstance(given, dict):
                known[1][name] = (given, schema_limit_problem(given, output))

    async def _input_schema(
        self, connection: Connection, tool: str
    ) -> tuple[dict[str, Any], str | None] | None:
        """The tool's input schema and limit problem: as the page listed it, else listed afresh."""
        known = self._listed.get(connection.name)
        if known is None or known[0] is not connection or tool not in known[1]:
            listed = await self.runtime.list_tools(connection.name)
            self._remember(
                connection, {t.name: (dict(t.input_schema), t.output_schema) for t in listed}
            )
            known = self._listed[connection.name]
        return known[1].get(tool)

    async def call(self, name: str, tool: object, arguments: object) -> dict[str, Any]:
        """Call a tool with arguments checked against its input schema first."""
        if not isinstance(tool, str) or not tool:
            raise ApiError(400, "tool: must be a tool name")
        if not isinstance(arguments, dict):
            raise ApiError(400, "arguments: must be an object")
        connection = self.connection(name)
        with self.errors(connection.name):
            listed = await self._input_schema(connection, tool)
            if listed is None:
                raise ApiError(404, f"{connection.name} has no tool {one_line(repr(tool))}")
            schema, too_big = listed
            if too_big is not None:
                raise ApiError(400, withheld_reason(one_line(tool), connection.name, too_big))
            problems = argument_problems(schema, arguments)
            if problems:
                raise ApiError(400, "arguments: " + "; ".join(problems))
            result = await self.runtime.call_tool(connection.name, tool, arguments)
        return {"result": console_requests.mcp_json(connection, result)}

    async def read(self, name: str, uri: object) -> dict[str, Any]:
        """Read one resource."""
        if not isinstance(uri, str) or not uri:
            raise ApiError(400, "uri: must be a resource URI")
        connection = self.connection(name)
        with self.errors(connection.name):
            result = await console_requests.read_resource(connection, uri, self.timeout)
        return {"result": result}

    async def prompt(self, name: str, prompt: object, arguments: object) -> dict[str, Any]:
        """Get one prompt with its (text) arguments."""
        if not isinstance(prompt, str) or not prompt:
            raise ApiError(400, "name: must be a prompt name")
        if not isinstance(arguments, dict) or not all(
            isinstance(value, str) for value in arguments.values()
        ):
            raise ApiError(400, "arguments: must be an object of text values")
        connection = self.connection(name)
        with self.errors(connection.name):
            result = await console_requests.get_prompt(connection, prompt, arguments, self.timeout)
        return {"result": result}

    async def complete(
        self, name: str, prompt: object, argument: object, value: object, context: object
    ) -> dict[str, Any]:
        """The server's suggested values for one of a prompt's arguments (completion/complete),
        with the arguments filled in so far as context; none from a server that does not
        offer completions. Values that are not one line of text are dropped: they go into an
        input field (and are shown there as text)."""
        if not isinstance(prompt, str) or not prompt:
            raise ApiError(400, "prompt: must be a prompt name")
        if not isinstance(argument, str) or not argument:
            raise ApiError(400, "argument: must be an argument name")
        if not isinstance(value, str):
            raise ApiError(400, "value: must be text")
        if context is None:
            context = {}
        if not isinstance(context, dict) or not all(
            isinstance(given, str) for given in context.values()
        ):
            raise ApiError(400, "context: must be an object of text values")
        connection = self.connection(name)
        with self.errors(connection.name):
            completion = await console_requests.complete_prompt_argument(
                connection, prompt, argument, value, context, self.timeout
            )
        values = completion.get("values")
        given = values if isinstance(values, list) else []
        offered = [value for value in given if _fits_a_field(value)][:MAX_COMPLETIONS]
        answer: dict[str, Any] = {"values": offered}
        total = completion.get("total")
        if isinstance(total, int) and not isinstance(total, bool):
            # what the server has beyond this answer (the values dropped here are not more)
            answer["total"] = max(len(offered), total - (len(given) - len(offered)))
        if completion.get("hasMore") is True:
            answer["hasMore"] = True
        return answer

    async def send(self, name: str, message: dict[str, Any]) -> dict[str, Any]:
        """Send a hand-written message under an id of ours; answer with the page's id."""
        connection = self.connection(name)
        outgoing, page_id = self.raw_ids.outgoing(message)
        with self.errors(connection.name):
            answer = await connection.send_message(outgoing, self.timeout)
        if page_id is None:
            return {"answer": None}
        if answer is None:
            raise ApiError(504, f"{connection.name} did not answer within {self.timeout:g} s")
        return {"answer": self.raw_ids.answer_for_page(answer, page_id)}

    @property
    def timeout(self) -> float:
        """The tool timeout of the settings: every request of the page waits at most this."""
        return self.runtime.limits.tool_timeout_seconds

    @contextmanager
    def errors(self, name: str) -> Iterator[None]:
        """The runtime's errors as the page's statuses (one line each, already redacted)."""
        try:
            yield
        except NeedsLoginError:
            self._needs_login.add(name)
            raise ApiError(409, login_note(name)) from None
        except NotTrustedError:
            raise ApiError(409, untrusted_note(name)) from None
        except UnknownServerError as error:
            raise ApiError(404, one_line(str(error))) from None
        except ToolTimeoutError as error:
            raise ApiError(504, one_line(str(error))) from None
        except AgentError as error:
            text = one_line(str(error))
            if text.startswith("not a JSON-RPC message"):
                raise ApiError(400, f"message: {text}") from None
            status = 504 if "did not answer within" in text else 502
            raise ApiError(status, text) from None


def _fits_a_field(value: object) -> bool:
    """A suggested value the page can offer: one line of printable text, not overlong."""
    return isinstance(value, str) and len(value) <= MAX_COMPLETION_CHARS and value.isprintable()


def _info(connection: Connection | None) -> dict[str, Any] | None:
    if connection is None or connection.info is None:
        return None
    info = connection.info  # masked of the server's secrets by the connection
    return {
        "name": info.name,
        "version": info.version,
        "protocolVersion": info.protocol_version,
        "capabilities": info.capabilities,
        "instructions": info.instructions,
    }
