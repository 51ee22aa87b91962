"""The one module that uses private names of the mcp SDK (DESIGN.md: one adapter file).

Each private name below is re-exported with the reason we need it; when the SDK changes
one, this file is the only place to follow it.
"""

from __future__ import annotations

import mcp_types as types

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

__all__ = [
    "FormElicitationSession",
    "ReadStream",
    "TransportStreams",
    "WriteStream",
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
