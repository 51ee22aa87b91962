"""The one way agent makes an HTTP client for MCP and OAuth: loopback never goes through a proxy.

httpx2 routes requests through HTTP_PROXY / ALL_PROXY from the environment (trust_env), and
with no NO_PROXY that includes http://127.0.0.1. A proxy is another machine (or another
user's program): plain http to it carries token requests and bearer headers in clear text.
The plain-http rule (oauth/secure.py) allows http only to this machine, so every client is
made here, with the loopback addresses it allows (agent/loopback.py) mounted on the direct
transport; https and other hosts still use the person's proxy.
"""

from __future__ import annotations

from typing import Any

import httpx2

from agent.loopback import LOOPBACK_PATTERNS

# A mount to None means "the client's own transport", which never uses a proxy.
DIRECT_LOOPBACK: dict[str, httpx2.AsyncBaseTransport | None] = dict.fromkeys(LOOPBACK_PATTERNS)


def http_client(**options: Any) -> httpx2.AsyncClient:
    """An httpx2.AsyncClient with these options whose plain-http loopback requests go direct."""
    return httpx2.AsyncClient(mounts=DIRECT_LOOPBACK, **options)
