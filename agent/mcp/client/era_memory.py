"""Which protocol era each server spoke, so only its first start pays for the probe.

One small file in the data home (mcp-eras.json, 0600, replaced atomically under a lock): per
launch, "legacy", or "modern" with the server's discover result (masked of its secrets) and
the time its cache hint (ttlMs, at most a day: client/cache_hints.py) keeps it fresh. A
legacy start skips the probe (a legacy stdio server that ignores `server/discover` would
cost the probe's wait every time); a modern one adopts the remembered result only while it
is fresh, and otherwise asks `server/discover` again: one quick request that brings the
server's instructions and capabilities as they are now (a server upgraded between two chats
must not be described as it was). Entries are keyed by a hash of the server's name and its
launch (command, arguments and folder, or URL and transport), so a changed launch probes
afresh and no URL (which may hold a credential) is written down. A file that cannot be read
or is not ours is ignored, said in the server's log, and replaced at the next write: it only
costs a probe.
"""

from __future__ import annotations

import hashlib
import json
import time
from collections.abc import Callable
from typing import Any

import mcp_types as types
from mcp_types.version import MODERN_PROTOCOL_VERSIONS

from agent.home import atomic_write, data_home, file_lock
from agent.mcp.client.cache_hints import hint_seconds, within_bound
from agent.mcp.client.era_client import AUTO, LEGACY, EraStart
from agent.mcp.config.launch import HttpLaunch, Launch, StdioLaunch

FILE_NAME = "mcp-eras.json"
MAX_ENTRIES = 500  # the oldest go first: a forgotten server only probes again
MAX_DISCOVER_CHARS = 64_000  # a larger discover result is not kept (the server probes each time)

Note = Callable[[str], None]


def launch_key(launch: Launch) -> str | None:
    """The memory's key for `launch`; None for launches that never probe (in-process)."""
    if isinstance(launch, StdioLaunch):
        identity: list[Any] = ["stdio", launch.server, launch.command, list(launch.args)]
        identity.append(launch.cwd)
    elif isinstance(launch, HttpLaunch):
        identity = [launch.transport, launch.server, launch.url]
    else:
        return None
    return hashlib.sha256(json.dumps(identity).encode()).hexdigest()


def recall(launch: Launch, note: Note) -> EraStart:
    """How to start `launch`: as it spoke last time, else probe."""
    key = launch_key(launch)
    if key is None:
        return LEGACY
    entry = _read(note).get(key)
    if not isinstance(entry, dict):
        return AUTO
    if entry.get("era") == "legacy":
        return LEGACY
    if entry.get("era") == "modern":
        try:
            discover = types.DiscoverResult.model_validate(entry.get("discover"))
        except ValueError:  # pydantic's ValidationError is a ValueError
            note(f"ignored its remembered protocol era in {_path()} (not a discover result)")
            return AUTO
        fresh = within_bound(entry.get("fresh_until"), time.time())
        if fresh and any(v in discover.supported_versions for v in MODERN_PROTOCOL_VERSIONS):
            return EraStart("modern", discover)
    return AUTO


def remember(launch: Launch, discover: types.DiscoverResult | None, note: Note) -> None:
    """Keep what `launch` spoke: modern with its (masked) discover result, or legacy (None)."""
    key = launch_key(launch)
    if key is None:
        return
    entry: dict[str, Any] = {"era": "legacy"}
    if discover is not None:
        dumped = discover.model_dump(mode="json", by_alias=True, exclude_none=True)
        if len(json.dumps(dumped)) > MAX_DISCOVER_CHARS:
            _change(key, None, note)
            return
        fresh_until = time.time() + hint_seconds(discover.ttl_ms)
        entry = {"era": "modern", "discover": dumped, "fresh_until": fresh_until}
    _change(key, entry, note)


def forget(launch: Launch, note: Note) -> None:
    """Drop what `launch` spoke, so its next start probes."""
    key = launch_key(launch)
    if key is not None:
        _change(key, None, note)


def _path() -> Any:
    return data_home() / FILE_NAME


def _read(note: Note) -> dict[str, Any]:
    path = _path()
    try:
        loaded = json.loads(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return {}
    except (OSError, ValueError) as error:
        note(f"ignored the remembered protocol eras in {path}: {type(error).__name__}")
        return {}
    servers = loaded.get("servers") if isinstance(loaded, dict) else None
    if not isinstance(servers, dict):
        note(f"ignored the remembered protocol eras in {path}: not agent's format")
        return {}
    return servers


def _change(key: str, entry: dict[str, Any] | None, note: Note) -> None:
    path = _path()
    try:
        with file_lock(path):
            servers = _read(lambda _text: None)
            if servers.get(key) == entry:
                return  # the usual start: nothing new, no write
            servers.pop(key, None)
            if entry is not None:
                servers[key] = entry
            while len(servers) > MAX_ENTRIES:
                servers.pop(next(iter(servers)))
            text = json.dumps({"version": 1, "servers": servers}, ensure_ascii=False)
            atomic_write(path, text.encode("utf-8"))
    except OSError as error:  # a read-only home only costs the next start a probe
        note(f"could not remember its protocol era in {path}: {error.strerror or error}")
