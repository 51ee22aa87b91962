"""The process groups of running command tool calls and stdio MCP servers, so nothing
outlives the agent.

Each call's program starts in a session of its own (so a timeout can end it with everything it
started), which also means a signal to the agent's terminal group never reaches it. When the
agent ends by SIGTERM or SIGHUP, the CLI's handler kills every call's group still listed here
before anything else runs. Stdio servers get the graceful stop of the MCP spec instead; their
groups are listed apart, for a stop that cannot wait for that (a second Ctrl-C to the console).
Only the standard library: the handlers may run at any moment.
"""

from __future__ import annotations

import contextlib
import os
import signal

_LIVE: set[int] = set()
_SERVERS: set[int] = set()


def register(pgid: int) -> None:
    """Remember a running call's process group (its leader's pid)."""
    _LIVE.add(pgid)


def forget(pgid: int) -> None:
    """The call is over and its group killed: nothing left to end."""
    _LIVE.discard(pgid)


def kill_group(pgid: int) -> None:
    """SIGKILL every process in the group; a group already gone is fine."""
    with contextlib.suppress(ProcessLookupError, PermissionError):
        os.killpg(pgid, signal.SIGKILL)


def kill_all() -> list[int]:
    """Kill every listed group (the agent is ending); return the groups killed."""
    groups = sorted(_LIVE)
    for pgid in groups:
        kill_group(pgid)
    return groups


def register_server(pgid: int) -> None:
    """Remember a running stdio server's process group (its leader's pid)."""
    _SERVERS.add(pgid)


def forget_server(pgid: int) -> None:
    """The server has been stopped: nothing left to end."""
    _SERVERS.discard(pgid)


def kill_servers() -> list[int]:
    """Kill every listed server's group (the agent must end at once); return them."""
    groups = sorted(_SERVERS)
    for pgid in groups:
        kill_group(pgid)
    return groups
