"""The era probe in the console's log: how a connection finds its protocol era, told apart
from a failure.

A connection that does not know a server's era yet asks `server/discover` (the 2026-07-28
era) and falls back to the `initialize` handshake (the 2025 era) when that is refused; a 2026
server slow to start may refuse that handshake with -32022 and is asked `server/discover`
again (the SDK's `negotiate_auto`). Each of these refusals is the normal way of a healthy
connection, so the log says so instead of showing it as an error. Only the session's own
requests (integer ids) count: a hand-written `initialize` from the page leaves under a string
id of the bridge's (raw_ids.py) and its refusal stays an error.
"""

from __future__ import annotations

from typing import Any

DISCOVER = "server/discover"
HANDSHAKE = "initialize"
UNSUPPORTED_PROTOCOL_VERSION = -32022  # mcp_types' code: "not this version; these I speak"
# Requests awaiting an answer that are remembered: a server that never answers its probes
# must not grow the table without end (each connection sends one or two).
MAX_PENDING = 256

DISCOVER_REFUSED = (
    "refused (the normal fallback): the server speaks the 2025 era, agent goes on with initialize"
)
HANDSHAKE_REFUSED = (
    "refused (the normal fallback): the server speaks only the 2026 era, agent asks "
    "server/discover again"
)


def _session_id(message: dict[str, Any]) -> int | None:
    request_id = message.get("id")
    return request_id if isinstance(request_id, int) and not isinstance(request_id, bool) else None


class EraProbes:
    """The probe requests sent and not yet answered, per server; what a refusal of one means."""

    def __init__(self) -> None:
        self._pending: dict[tuple[str, int], str] = {}

    def sent(self, server: str, message: object) -> None:
        """A message the session sent: remember it if it is a probe of the era."""
        if not isinstance(message, dict) or message.get("method") not in (DISCOVER, HANDSHAKE):
            return
        request_id = _session_id(message)
        if request_id is None:
            return
        if len(self._pending) >= MAX_PENDING:
            self._pending.pop(next(iter(self._pending)))
        self._pending[(server, request_id)] = str(message["method"])

    def fallback(self, server: str, message: object) -> str | None:
        """For an answer the server sent: the words saying it is the probe's normal fallback,
        or None (an answer to anything else, a success, or a refusal that is a failure)."""
        if not isinstance(message, dict) or "method" in message:
            return None
        request_id = _session_id(message)
        method = self._pending.pop((server, request_id), None) if request_id is not None else None
        error = message.get("error")
        if method is None or not isinstance(error, dict):
            return None
        code = error.get("code")
        if method == DISCOVER and code != UNSUPPORTED_PROTOCOL_VERSION:
            return DISCOVER_REFUSED
        if method == HANDSHAKE and code == UNSUPPORTED_PROTOCOL_VERSION:
            return HANDSHAKE_REFUSED
        return None  # -32022 to the probe may name no version we speak: a real failure
