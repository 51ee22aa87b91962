"""The one module that uses private names of the mcp SDK (DESIGN.md: one adapter file).

Each private name below is re-exported with the reason we need it; when the SDK changes
one, this file is the only place to follow it.
"""

from __future__ import annotations

from typing import Any

import anyio
import mcp_types as types

# The SDK's mode="auto" connect policy (server/discover, falling back to initialize; -32022
# re-probed once) and its SEP-2322 multi-round driver. `mcp.Client` wraps exactly these, but
# importing mcp.client.client imports the SDK's whole server side (MCPServer, starlette,
# uvicorn): about 60 % more import than the session alone, paid on every one-shot run. So
# our dual-era client (client/era_client.py) drives the session with these two instead.
from mcp.client._input_required import (
    DEFAULT_INPUT_REQUIRED_MAX_ROUNDS,
    InputRequiredRoundsExceededError,
    run_input_required_driver,
)
from mcp.client._probe import negotiate_auto

# The (read, write) stream pair every client transport yields and ClientSession takes. The
# SDK's own transports import it from here; it is not exported elsewhere (the SDK notes that
# it will move under mcp.shared).
from mcp.client._transport import TransportStreams
from mcp.client.session import ClientSession

# The SDK's graceful stop of a stdio child: close stdin, wait, SIGTERM its process group,
# wait, SIGKILL, every wait bounded. Our own stdio transport (client/stdio.py) spawns the child
# exactly as the SDK would, so it stops it the same way rather than copying the sequence.
from mcp.client.stdio import _stop_server_process as stop_server_process

# The protocols of the two streams in TransportStreams; our stream taps (client/streams.py)
# implement them, so they wrap any transport's streams without changing what flows.
from mcp.shared._stream_protocols import ReadStream, WriteStream
from mcp.shared.exceptions import MCPError
from mcp.shared.inbound import find_invalid_x_mcp_header
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

__all__ = [
    "DEFAULT_INPUT_REQUIRED_MAX_ROUNDS",
    "EraSession",
    "FormElicitationSession",
    "InputRequiredRoundsExceededError",
    "ReadStream",
    "TransportStreams",
    "WriteStream",
    "absorb_tool_listing",
    "negotiate_auto",
    "run_input_required_driver",
    "stop_server_process",
]


class FormElicitationSession(ClientSession):
    """A ClientSession that advertises exactly the elicitation we perform: forms, and URL mode
    (a web page shown in full and opened only after the person's yes; forms/url_request.py).
    (Named when it advertised forms only; the name stays while the dual-era client moves in.)

    The SDK decides what to advertise from whether a callback is given, and a later SDK may add
    modes (task-augmented elicitation) we do not perform: saying we support one would be a
    promise we break. Overriding the private `_build_capabilities` is the only seam:
    ClientSession takes no capabilities argument.
    """

    def _build_capabilities(self, version: str) -> types.ClientCapabilities:
        capabilities = super()._build_capabilities(version)
        if capabilities.elicitation is None:
            return capabilities
        performed = types.ElicitationCapability(
            form=types.FormElicitationCapability(), url=types.UrlElicitationCapability()
        )
        return capabilities.model_copy(update={"elicitation": performed})


class EraSession(FormElicitationSession):
    """Our session in either era: the discover probe bounded by `probe_seconds`, and the tools
    a modern listing drops for invalid `x-mcp-header` annotations kept with the reason.

    The SDK waits DISCOVER_TIMEOUT_SECONDS (10 s) for an answer to `server/discover`; a legacy
    stdio server that ignores unknown requests would cost that on every first start. A probe
    that gets no answer is a legacy verdict (the spec's fallback), so a shorter wait is
    allowed; a slow modern server that answers after it still ends modern, because its
    answer to the fallback `initialize` is -32022 and negotiate_auto then probes again.
    The SDK drops tools with invalid header annotations silently (a 2026-07-28 MUST); we say
    which, once, like the tools our schema limits withhold: `_absorb_tool_listing` is the
    only place the listing passes through before it is filtered.
    """

    def __init__(self, *args: Any, probe_seconds: float | None = None, **kwargs: Any) -> None:
        super().__init__(*args, **kwargs)
        self.probe_seconds = probe_seconds
        self.header_refusals: dict[str, str] = {}  # tool name -> why, from the latest listing

    async def send_discover(self, version: str) -> dict[str, Any]:
        """The SDK's probe, given up after `probe_seconds` as a request timeout."""
        if self.probe_seconds is None:
            return await super().send_discover(version)
        with anyio.move_on_after(self.probe_seconds):
            return await super().send_discover(version)
        raise MCPError(
            types.REQUEST_TIMEOUT,
            f"server/discover got no answer within {self.probe_seconds:g} s",
        )

    def _absorb_tool_listing(
        self, result: types.ListToolsResult, *, complete: bool
    ) -> types.ListToolsResult:
        if self.protocol_version in MODERN_PROTOCOL_VERSIONS:
            for tool in result.tools:
                reason = find_invalid_x_mcp_header(tool.input_schema)
                if reason is not None:
                    self.header_refusals[tool.name] = reason
        return super()._absorb_tool_listing(result, complete=complete)


def absorb_tool_listing(session: ClientSession, result: types.ListToolsResult) -> None:
    """Let `session` learn a tools listing served from the response cache (its header maps,
    output schemas): what `mcp.Client.list_tools` does for a cache hit."""
    session._absorb_tool_listing(result, complete=result.next_cursor is None)


def stamp_message(session: ClientSession, data: dict[str, Any]) -> dict[str, str]:
    """Put the negotiated era's envelope on a hand-written message `data` (in place) as the
    session puts it on its own requests: on 2026-07-28 the `_meta` keys every request must
    carry, and the Mcp-* headers returned for the HTTP transport. `_stamp` is the session's
    private per-era stamp; keys the person wrote in `_meta` themselves are kept as written."""
    written = dict((data.get("params") or {}).get("_meta") or {})
    opts: dict[str, Any] = {}
    session._stamp(data, opts)  # type: ignore[arg-type]
    if written:
        data.setdefault("params", {}).setdefault("_meta", {}).update(written)
    headers: dict[str, str] = opts.get("headers") or {}
    return headers
