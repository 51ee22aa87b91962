"""The one way agent makes an HTTP client for MCP and OAuth: loopback never goes through a proxy.

httpx2 routes requests through HTTP_PROXY / ALL_PROXY from the environment (trust_env), and
with no NO_PROXY that includes http://127.0.0.1. A proxy is another machine (or another
user's program): plain http to it carries token requests and bearer headers in clear text.
The plain-http rule (oauth/secure.py) allows http only to this machine, so every client is
made here, with the loopback addresses it allows (agent/loopback.py) mounted on the direct
transport; https and other hosts still use the person's proxy. Every answer such a client reads
is held to one message's size, unpacked a piece at a time (http_limits.py).
"""

from __future__ import annotations

from typing import Any

import httpx2

from agent.loopback import LOOPBACK_PATTERNS
from agent.mcp.oauth.http_limits import ACCEPT_ENCODING, bounded_answers

# A mount to None means "the client's own transport", which never uses a proxy.
DIRECT_LOOPBACK: dict[str, httpx2.AsyncBaseTransport | None] = dict.fromkeys(LOOPBACK_PATTERNS)


def http_client(server: str, **options: Any) -> httpx2.AsyncClient:
    """An httpx2.AsyncClient with these options whose plain-http loopback requests go direct
    and whose answers are bounded, said to come from `server` (a phrase: "MCP server 'x'")."""
    headers = httpx2.Headers(options.pop("headers", None))
    # Only encodings whose unpacking is bounded, whatever the person's headers say.
    headers["Accept-Encoding"] = ACCEPT_ENCODING
    hooks = dict(options.pop("event_hooks", None) or {})
    hooks["response"] = [*hooks.get("response", []), bounded_answers(server)]
    return httpx2.AsyncClient(mounts=DIRECT_LOOPBACK, headers=headers, event_hooks=hooks, **options)
