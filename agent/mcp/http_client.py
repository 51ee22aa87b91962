"""The one way agent makes an HTTP client for MCP and OAuth: loopback never goes through a proxy.

httpx2 routes requests through HTTP_PROXY / ALL_PROXY from the environment (trust_env), and
with no NO_PROXY that includes http://127.0.0.1. A proxy is another machine (or another
user's program): plain http to it carries token requests and bearer headers in clear text.
The plain-http rule (oauth_secure.py) allows http only to this machine, so every client is
made here, with the loopback addresses it allows mounted on the direct transport; https and
other hosts still use the person's proxy.
"""

from __future__ import annotations

import ipaddress
from typing import Any
from urllib.parse import urlsplit

import httpx2

# Exactly the hosts `is_loopback_host` names: localhost, 127.0.0.0/8, ::1. A mount to None
# means "the client's own transport", which never uses a proxy.
DIRECT_LOOPBACK: dict[str, httpx2.AsyncBaseTransport | None] = {
    "http://localhost": None,
    "http://127.0.0.0/8": None,
    "http://[::1]/128": None,
}


def http_client(**options: Any) -> httpx2.AsyncClient:
    """An httpx2.AsyncClient with these options whose plain-http loopback requests go direct."""
    return httpx2.AsyncClient(mounts=DIRECT_LOOPBACK, **options)


def is_loopback_host(host: str) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def goes_direct(url: str) -> bool:
    """True when a client from `http_client` sends a plain-http `url` straight to this machine
    (a loopback host, never through a proxy)."""
    parts = urlsplit(url)
    return parts.scheme.lower() == "http" and is_loopback_host(parts.hostname or "")
