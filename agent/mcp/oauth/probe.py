"""The requests a login sends so that the server's 401 starts the OAuth flow.

Both eras, as a connection probes them: the 2026-07-28 (stateless) `server/discover` first,
then `tools/list`, each with the `_meta` and headers of that revision; a server that refuses
them without a login (a handshake-era server answers 400 or a JSON-RPC error) then gets
`initialize`, and when it answers that without a token but protects what follows (the MCP
spec allows either), `notifications/initialized` and `tools/list` in the same session. The
session is ended afterwards. A modern server may let discovery through and protect the rest,
or protect discovery too and refuse `initialize` outright (the conformance suite's servers
do): either way its 401 comes from the modern requests.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import httpx2

from agent.errors import LoginError, ServerStartError
from agent.mcp.config.launch import HttpLaunch
from agent.mcp.oauth.http_client import http_client
from agent.mcp.oauth.secure import SecureOnly, require_secure
from agent.text import sanitize_line

PROBE_TIMEOUT = httpx2.Timeout(30.0)
PROTOCOL_VERSION = "2025-11-25"
MODERN_VERSION = "2026-07-28"
_ACCEPT = "application/json, text/event-stream"
_INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {
        "protocolVersion": PROTOCOL_VERSION,
        "capabilities": {},
        "clientInfo": {"name": "agent", "version": "login"},
    },
}
_INITIALIZED = {"jsonrpc": "2.0", "method": "notifications/initialized"}
_LIST_TOOLS = {"jsonrpc": "2.0", "id": 1, "method": "tools/list"}
# What every 2026-07-28 request carries in place of the handshake (mcp_types' *_META_KEY).
_MODERN_META = {
    "io.modelcontextprotocol/protocolVersion": MODERN_VERSION,
    "io.modelcontextprotocol/clientInfo": {"name": "agent", "version": "login"},
    "io.modelcontextprotocol/clientCapabilities": {},
}


def _modern(request_id: int, method: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method,
            "params": {"_meta": _MODERN_META}}  # fmt: skip


async def probe(launch: HttpLaunch, auth: httpx2.Auth, logged_in: Callable[[], bool]) -> None:
    """Talk to the server through `auth` until it asked for (and got) a login, or all went."""
    require_secure(launch.server, launch.url, "URL", LoginError)
    secure = SecureOnly(auth, launch.server, launch.url)
    async with http_client(
        f"MCP server {launch.server!r}",
        headers=dict(launch.headers),
        timeout=PROBE_TIMEOUT,
        follow_redirects=False,
        auth=secure,
    ) as client:
        try:
            if launch.transport == "sse":
                status = await _status(client, "GET", launch.url, {"Accept": "text/event-stream"})
            else:
                status = await _streamable(client, launch.url, logged_in)
        except LoginError:
            raise
        except ServerStartError as error:  # an insecure endpoint: our own sentence
            raise LoginError(str(error)) from None
        except Exception as error:  # the SDK's flow errors, httpx2's transport errors
            text = sanitize_line(str(error).strip())[:300] or type(error).__name__
            raise LoginError(f"{launch.server}: login failed: {text}") from None
    if status in (401, 403):
        raise LoginError(
            f"{launch.server} still refused the request after the login (HTTP {status}); "
            "check the scopes in its oauth settings"
        )


async def _streamable(client: httpx2.AsyncClient, url: str, logged_in: Callable[[], bool]) -> int:
    status = await _stateless(client, url)
    if logged_in():
        return status
    return await _handshake(client, url, logged_in)


async def _stateless(client: httpx2.AsyncClient, url: str) -> int:
    """The 2026-07-28 requests; the status of the last one sent."""
    status = 0
    for request_id, method in enumerate(("server/discover", "tools/list")):
        headers = {"Accept": _ACCEPT, "mcp-protocol-version": MODERN_VERSION, "mcp-method": method}
        status, _ = await _post(client, url, _modern(request_id, method), headers)
        if status >= 400:
            break
    return status


async def _handshake(client: httpx2.AsyncClient, url: str, logged_in: Callable[[], bool]) -> int:
    """The handshake-era requests; the status of the last one sent."""
    headers = {"Accept": _ACCEPT}
    status, session = await _post(client, url, _INITIALIZE, headers)
    if session is not None:
        headers["mcp-session-id"] = session
    try:
        if status < 400 and not logged_in():
            headers["mcp-protocol-version"] = PROTOCOL_VERSION
            await _post(client, url, _INITIALIZED, headers)
            status, _ = await _post(client, url, _LIST_TOOLS, headers)
    finally:
        if session is not None:
            await client.delete(url, headers=headers)
    return status


async def _post(
    client: httpx2.AsyncClient, url: str, message: dict[str, Any], headers: dict[str, str]
) -> tuple[int, str | None]:
    # Streamed, and closed after the headers: an SSE answer may stay open.
    async with client.stream("POST", url, json=message, headers=headers) as response:
        return response.status_code, response.headers.get("mcp-session-id")


async def _status(
    client: httpx2.AsyncClient, method: str, url: str, headers: dict[str, str]
) -> int:
    async with client.stream(method, url, headers=headers) as response:
        return response.status_code
