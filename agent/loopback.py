"""Which plain-http URLs stay on this machine: the one list the plain-http rule and every
HTTP client's direct (never proxied) routes share, MCP and OAuth (mcp/oauth/http_client.py) and the
model API (model/).

On the ground floor and free of HTTP clients, so that configuration checks (mcp/config/oauth.py)
and model/ can ask it before importing mcp or httpx2.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

# httpx2 mount patterns for exactly the hosts `is_loopback_host` names (mcp/oauth/http_client.py).
LOOPBACK_PATTERNS = ("http://localhost", "http://127.0.0.0/8", "http://[::1]/128")


def is_loopback_host(host: str) -> bool:
    """True for localhost, 127.0.0.0/8 and ::1."""
    if host.lower() == "localhost":
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def goes_direct(url: str) -> bool:
    """True when a plain-http `url` names this machine, so that it is sent straight there
    (never through a proxy)."""
    parts = urlsplit(url)
    return parts.scheme.lower() == "http" and is_loopback_host(parts.hostname or "")
