"""Where the progress notifications of a running MCP tool go: the front end sets the sink
around a turn, the MCP tool reads it when it calls its server.

A module of its own, with nothing heavy in it, so that the chat can set the sink from its
first message on without waiting for the MCP side, which imports in a background thread
(agent/mcp/host.py). Reading that module out of sys.modules instead could meet it half-way
through its import: a crash at the first message.
"""

from __future__ import annotations

from collections.abc import Callable
from contextvars import ContextVar

ProgressSink = Callable[[float, float | None, str | None], None]  # done, total, message

progress_sink: ContextVar[ProgressSink | None] = ContextVar("progress_sink", default=None)
