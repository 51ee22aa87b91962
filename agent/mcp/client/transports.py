"""Opening the byte-level transport for a Launch: stdio child, streamable HTTP, or SSE.

stdio is our own transport (client/stdio.py): the child's stderr reaches `output`, never a file
directly, so it can be redacted first. Headers go to the httpx2 client and nowhere else.
Every redirect is refused: the SDK would follow same-origin ones, but a server that moves
should be reconfigured by the person. Every answer is held to one message's limit, unpacked
(oauth/http_limits.py, through http_client). A GET stream (the server's own messages) is
opened at most once a second: the SDK reopens one that ended at once after the server's
`retry`, which may be 0, so a server ending it every time had it reopened without a pause,
as fast as the server answered, for as long as the connection lasted. The OAuth side (the
SDK's auth providers, PyJWT, cryptography: about 45 ms of import) loads only when a remote
server that uses OAuth connects.
"""

from __future__ import annotations

import logging
from collections.abc import AsyncIterator, Awaitable, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import httpx2
from mcp.client.sse import sse_client
from mcp.client.streamable_http import streamable_http_client

from agent.errors import ServerStartError
from agent.mcp.client.sdk import TransportStreams
from agent.mcp.client.stdio import ChildOutput, StdioCommand, stdio_transport
from agent.mcp.config.definitions import display_url
from agent.mcp.config.launch import CommandsLaunch, HttpLaunch, Launch, StdioLaunch
from agent.mcp.oauth.http_client import http_client

# The SDK logs tracebacks (junk on a server's stdout, dropped streams) through `logging`;
# with no handler Python would print them on the person's terminal. What matters reaches
# the person as our own errors and the server's log file instead. ("client" is the logger of
# the SDK's ClientSession, which warns there of each tool it drops for a bad x-mcp-header:
# we say that once ourselves, like the schema limits.)
for _logger_name in ("mcp", "client", "httpx2", "httpcore2"):
    logging.getLogger(_logger_name).addHandler(logging.NullHandler())
    logging.getLogger(_logger_name).propagate = False

HTTP_CONNECT_TIMEOUT = 30.0
HTTP_READ_TIMEOUT = 300.0  # a server may hold a response stream open while a tool runs
# An in-process commands server stops within this after its input ends.
SERVER_SHUTDOWN_SECONDS = 2.0
STREAM_REOPEN_SECONDS = 1.0  # the SDK's own pause when the server names none


class RedirectRefusedError(Exception):
    """The server answered with a redirect, which we never follow."""


@asynccontextmanager
async def open_transport(launch: Launch, output: ChildOutput) -> AsyncIterator[TransportStreams]:
    """Open the streams for `launch`; closing the context stops the child or the connection."""
    if isinstance(launch, StdioLaunch):
        async with _open_stdio(launch, output) as streams:
            yield streams
    elif isinstance(launch, CommandsLaunch):
        async with _open_commands(launch) as streams:
            yield streams
    else:
        async with _open_http(launch, output) as streams:
            yield streams


@asynccontextmanager
async def _open_stdio(launch: StdioLaunch, output: ChildOutput) -> AsyncIterator[TransportStreams]:
    # The child gets exactly the environment its trust was judged on (what it inherits,
    # then the definition's env), spawned from the path the command resolved to then, its
    # program and script checked once more against what trust judged.
    changed = launch.changed_file()
    if changed is not None:
        raise ServerStartError(
            f"MCP server {launch.server!r} was not started: its {changed[0]} {changed[1]} "
            "changed after trust was checked; start it again to be asked about it"
        )
    command = StdioCommand(launch.executable(), launch.args, launch.child_environment(), launch.cwd)
    async with stdio_transport(command, output) as streams:
        yield streams


def _http_client(launch: HttpLaunch, output: ChildOutput, **overrides: Any) -> httpx2.AsyncClient:
    async def refuse_redirects(response: httpx2.Response) -> None:
        if response.is_redirect:
            location = response.headers.get("location", "")
            raise RedirectRefusedError(
                f"MCP server {launch.server!r} answered with a redirect ({response.status_code}) "
                f"to {display_url(location)}; redirects are not followed. If the server moved, "
                "put the new URL in its definition (agent mcp edit)."
            )

    timeout = overrides.pop("timeout", None) or httpx2.Timeout(
        HTTP_CONNECT_TIMEOUT, read=HTTP_READ_TIMEOUT
    )
    auth = None
    if launch.uses_oauth():
        from agent.mcp.oauth.runtime import runtime_auth

        auth = runtime_auth(launch, on_token=output.secret)
    return http_client(
        f"MCP server {launch.server!r}",
        headers=launch.headers,
        timeout=timeout,
        follow_redirects=False,
        event_hooks={"request": [_paced_streams()], "response": [refuse_redirects]},
        auth=auth,
    )


def _paced_streams() -> Callable[[httpx2.Request], Awaitable[None]]:
    """A request hook holding a client's GET event streams to one opened a second."""
    last_opened = -STREAM_REOPEN_SECONDS

    async def pace(request: httpx2.Request) -> None:
        nonlocal last_opened
        if request.method != "GET" or "text/event-stream" not in request.headers.get("accept", ""):
            return
        await anyio.sleep(max(0.0, last_opened + STREAM_REOPEN_SECONDS - anyio.current_time()))
        last_opened = anyio.current_time()

    return pace


@asynccontextmanager
async def _open_http(launch: HttpLaunch, output: ChildOutput) -> AsyncIterator[TransportStreams]:
    if launch.transport == "sse":

        def factory(
            headers: dict[str, str] | None = None,
            timeout: httpx2.Timeout | None = None,
            auth: httpx2.Auth | None = None,
        ) -> httpx2.AsyncClient:
            return _http_client(launch, output, timeout=timeout)

        async with sse_client(launch.url, httpx_client_factory=factory) as streams:
            yield streams
        return
    async with (
        _http_client(launch, output) as client,
        streamable_http_client(launch.url, http_client=client) as streams,
    ):
        yield streams


@asynccontextmanager
async def _open_commands(launch: CommandsLaunch) -> AsyncIterator[TransportStreams]:
    """The client's streams to a server running in this process; leaving stops it (and with
    it any call still running, whose process group is killed)."""
    # The SDK's server side is imported only when a commands server starts.
    from mcp.shared.memory import create_client_server_memory_streams

    from agent.mcp.programs.server import build_server

    server = build_server(launch)
    async with create_client_server_memory_streams() as (client_streams, server_streams):
        server_read, server_write = server_streams
        done = anyio.Event()

        async def serve() -> None:
            try:
                await server.run(server_read, server_write, server.create_initialization_options())
            finally:
                done.set()

        async with anyio.create_task_group() as group:
            group.start_soon(serve)
            try:
                yield client_streams
            finally:
                # End of input ends the server; a call still running is cancelled with it.
                await client_streams[1].aclose()
                await server_write.aclose()
                with anyio.move_on_after(SERVER_SHUTDOWN_SECONDS, shield=True):
                    await done.wait()
                group.cancel_scope.cancel()
