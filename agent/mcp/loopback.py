"""Which plain-http URLs stay on this machine: the one list the plain-http rule and the
HTTP clients' direct (never proxied) routes share.

Kept apart from http_client.py so that configuration checks (oauth_config.py) can ask it
without importing an HTTP client.
"""

from __future__ import annotations

import ipaddress
from urllib.parse import urlsplit

# httpx2 mount patterns for exactly the hosts `is_loopback_host` names (http_client.py).
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
    """True when a plain-http `url` names this machine, so that a client from
    http_client.py sends it straight there (never through a proxy)."""
    parts = urlsplit(url)
    return parts.scheme.lower() == "http" and is_loopback_host(parts.hostname or "")
