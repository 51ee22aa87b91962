"""No OAuth secret over plain http: tokens and client secrets go only over TLS or to loopback.

MCP authorization ("Communication Security") and OAuth 2.1 require TLS for every endpoint;
a bearer token sent over http to another host is readable by anyone on the path. Loopback
(127.0.0.0/8, ::1, localhost; agent/loopback.py) never leaves the machine, so local servers and
tests may use http; but only because every client (oauth/http_client.py) sends it direct: a proxy is
another machine, so a plain-http request that a proxy would carry counts as remote.
"""

from __future__ import annotations

from collections.abc import AsyncGenerator
from urllib.parse import urlsplit

import httpx2

from agent.errors import ServerStartError
from agent.loopback import goes_direct
from agent.text import sanitize_line


def insecure_reason(url: str) -> str | None:
    """Why `url` may not carry an OAuth secret (plain http to another host), or None."""
    parts = urlsplit(url)
    scheme = parts.scheme.lower()
    if scheme == "https":
        return None
    if scheme == "http" and goes_direct(url):
        return None
    return f"{url} is not https"


def require_secure(
    server: str, url: str, what: str, error: type[Exception] = ServerStartError
) -> None:
    """Refuse to send a token or client secret to `url` unless it is https or loopback."""
    reason = insecure_reason(url)
    if reason is not None:
        raise error(
            sanitize_line(
                f"MCP server {server!r} OAuth refused: its {what} {reason}, and a token sent "
                "there could be read on the way; use an https:// URL (plain http is allowed "
                "only to this machine: localhost, 127.0.0.1, ::1)"
            )
        )


class SecureOnly(httpx2.Auth):
    """Wraps an OAuth auth flow so that none of its requests goes over plain http elsewhere.

    Every request the flow sends (the server's own, discovery, registration, the token
    exchange) is checked before it leaves, so no token, code or client secret is ever sent
    where it could be read on the way.
    """

    requires_response_body = True

    def __init__(self, inner: httpx2.Auth, server: str, url: str) -> None:
        self.inner, self.server, self.url = inner, server, url

    async def async_auth_flow(
        self, request: httpx2.Request
    ) -> AsyncGenerator[httpx2.Request, httpx2.Response]:
        """The inner flow, refused at its first request to an insecure URL."""
        flow = self.inner.async_auth_flow(request)
        try:
            outgoing = await flow.__anext__()
            while True:
                target = str(outgoing.url)
                what = "URL" if target.startswith(self.url) else "authorization server's endpoint"
                require_secure(self.server, target, what)
                response = yield outgoing
                outgoing = await flow.asend(response)
        except StopAsyncIteration:
            return
        finally:
            await flow.aclose()
