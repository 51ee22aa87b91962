"""A chat whose McpHost has one enabled remote server (tests/fixtures/servers/http_server.py
over streamable HTTP), and counts of what that server was asked, from its request log."""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path

import anyio
import anyio.abc

from agent.chat.state import ChatSession
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import running_http_server
from tests.mcp.runtime_helpers import enable, save, served_host
from tests.ui.ui_helpers import chat_state


def requests_made(headers_log: Path) -> int:
    """Every HTTP request the server received."""
    if not headers_log.exists():
        return 0
    return len(headers_log.read_text().splitlines())


def connections_made(headers_log: Path) -> int:
    """MCP sessions the server saw start: requests sent before a session id was given, but
    the era probe (`Mcp-Method: server/discover`, which this handshake-era server refuses
    before any session starts)."""
    if not headers_log.exists():
        return 0
    requests = [json.loads(line) for line in headers_log.read_text().splitlines()]
    started = 0
    for r in requests:
        headers = {k.lower(): v for k, v in r["headers"].items()}
        probe = headers.get("mcp-method") == "server/discover"
        if r["method"] == "POST" and "mcp-session-id" not in headers and not probe:
            started += 1
    return started


@asynccontextmanager
async def remote_chat(
    home: Path, project: Path, headers_log: Path, catalog: str = "fixture"
) -> AsyncIterator[ChatSession]:
    """The chat, with the remote server `remote` (http_server.py --catalog `catalog`) enabled;
    its runtime is up and nothing has been asked of the server yet."""
    with running_http_server(headers_log=headers_log, extra_args=("--catalog", catalog)) as server:
        async with chat_with_remote(home, project, server.url) as chat:
            yield chat


@asynccontextmanager
async def chat_with_remote(home: Path, project: Path, url: str) -> AsyncIterator[ChatSession]:
    """The chat, with the remote server `remote` at `url` saved and enabled."""
    store = McpStore(home / "mcp-servers.json")
    save(store, {"remote": {"url": url}})
    enable(store, "remote")
    async with served_host(store, home, project) as host:
        yield chat_state(project, host=host)


@asynccontextmanager
async def hanging_server() -> AsyncIterator[tuple[str, list[int]]]:
    """A remote MCP server that has hung: it accepts connections on 127.0.0.1 and never
    answers. Yields its URL and a list that grows by one for each connection accepted."""
    accepted: list[int] = []
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    port = listener.extra(anyio.abc.SocketAttribute.local_port)  # noqa: S610 (anyio, not Django)

    async def hold(stream: anyio.abc.SocketStream) -> None:
        accepted.append(1)
        async with stream:
            await anyio.sleep_forever()  # until the client gives up or the test ends

    async with listener, anyio.create_task_group() as group:
        group.start_soon(listener.serve, hold)
        try:
            yield f"http://127.0.0.1:{port}/mcp", accepted
        finally:
            group.cancel_scope.cancel()
