"""mcp-servers.json: the saved server definitions and each server's runtime state.

    {"version": 6,
     "definitions": [{"name": ..., "type": ..., ...}, ...],        # normalized, document order
     "runtime": {"<name>": {"enabled", "enabled_tools", "cached_tools", "trusted_launches",
                            "tools_fresh_until", "new_tools", "defer", "declined_launches"}}}

Trust is of effective launches (agent/mcp/trust/launches.py), recorded per project where the
launch depends on it. Version 2 files, whose trust covered only the stored definition, are read
with that trust dropped: each local server asks once more. Version 3 files lack the two keys
of fresh tool lists (agent/mcp/discovery.py): read as "never fresh, nothing new". Version 4
files lack `defer` (whether the server's tools wait behind the tool search,
agent/tools/deferral.py): read as "auto". Version 5 files lack `declined_launches` (the
launches the person said no to, per project, so a chat does not ask again): read as none.

Every change is a locked read-modify-write with an atomic replace, so two `agent` processes
saving at once lose nothing and a crash leaves the old file or the new one. A file we cannot
understand is reported, never overwritten or "repaired". A change of the definitions first
keeps the file as it was (agent/mcp/store_backup.py), which `restore` puts back.
"""

from __future__ import annotations

import contextlib
import json
import os
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent.errors import (
    ConcurrentEditError,
    DocumentError,
    Problem,
    ServerExistsError,
    StoreError,
    TokenStoreError,
    UnknownServerError,
)
from agent.home import atomic_write, file_lock, mcp_store_path
from agent.mcp.config.definitions import ServerDefinition, fingerprint
from agent.mcp.config.document import name_collisions, parse_server
from agent.mcp.config.names import normalize_server_name
from agent.mcp.store_backup import backup_path, keep_backup, read_backup
from agent.mcp.trust.launches import TrustedLaunch, decode_trusted_launches

STORE_VERSION = 6
_READABLE_VERSIONS = (2, 3, 4, 5, 6)
_V3_STATE_KEYS = frozenset({"enabled", "enabled_tools", "cached_tools", "trusted_launches"})
_V4_STATE_KEYS = _V3_STATE_KEYS | {"tools_fresh_until", "new_tools"}
_V5_STATE_KEYS = _V4_STATE_KEYS | {"defer"}
_STATE_KEYS = _V5_STATE_KEYS | {"declined_launches"}
DEFER_MODES = ("auto", "on", "off")
_V2_STATE_KEYS = frozenset({"enabled", "enabled_tools", "cached_tools", "trusted_fingerprint"})
_TOOL_KEYS = frozenset({"name", "description", "input_schema", "annotations"})


@dataclass(frozen=True)
class CachedTool:
    """What discovery learned about one tool, kept so the chat need not ask the server."""

    name: str
    description: str | None
    input_schema: dict[str, Any]
    annotations: dict[str, Any] | None = None

    def to_json(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "input_schema": self.input_schema,
            "annotations": self.annotations,
        }


@dataclass(frozen=True)
class ServerState:
    """Per-server state that is not part of the definition. A new server starts disabled."""

    enabled: bool = False
    enabled_tools: tuple[str, ...] = ()
    cached_tools: tuple[CachedTool, ...] | None = None  # None: never discovered
    trusted_launches: tuple[TrustedLaunch, ...] = ()  # newest first
    # Until when (seconds since the epoch) the server's cache hint (`ttlMs`) lets a start use
    # `cached_tools` without listing again; None: listed afresh at every start.
    tools_fresh_until: float | None = None
    # Tools that appeared after the first listing (unselected) the person was not told of yet.
    new_tools: tuple[str, ...] = ()
    # Whether its tools wait behind the tool search: "on" always, "off" never, "auto" when
    # the MCP tools would take more than their share of the model's window.
    defer: str = "auto"
    # The launches the person said no to in a chat's trust question, each with its project:
    # that exact launch is left off there without asking again (newest first).
    declined_launches: tuple[TrustedLaunch, ...] = ()

    def to_json(self) -> dict[str, Any]:
        tools = None if self.cached_tools is None else [t.to_json() for t in self.cached_tools]
        return {
            "enabled": self.enabled,
            "enabled_tools": list(self.enabled_tools),
            "cached_tools": tools,
            "trusted_launches": [launch.to_json() for launch in self.trusted_launches],
            "tools_fresh_until": self.tools_fresh_until,
            "new_tools": list(self.new_tools),
            "defer": self.defer,
            "declined_launches": [launch.to_json() for launch in self.declined_launches],
        }


@dataclass(frozen=True)
class McpConfig:
    """The whole saved configuration: definitions in order, and state by server name."""

    definitions: tuple[ServerDefinition, ...] = ()
    runtime: dict[str, ServerState] = field(default_factory=dict)

    def find(self, name: str) -> ServerDefinition:
        """The definition named `name` (exactly, else after normalisation)."""
        for definition in self.definitions:
            if definition.name == name:
                return definition
        wanted = normalize_server_name(name)
        for definition in self.definitions:
            if normalize_server_name(definition.name) == wanted:
                return definition
        known = ", ".join(d.name for d in self.definitions) or "none are configured"
        raise UnknownServerError(f"no MCP server named {name!r} (configured: {known})")

    def state(self, name: str) -> ServerState:
        """The runtime state of the server named exactly `name`."""
        return self.runtime.get(name, ServerState())


@dataclass(frozen=True)
class SaveReport:
    """What a save did, by server name, and the configuration it left."""

    path: Path
    config: McpConfig
    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    unchanged: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()


def default_store_path() -> Path:
    """mcp-servers.json in the config home."""
    return mcp_store_path()


def reconcile(old: McpConfig, definitions: Sequence[ServerDefinition]) -> McpConfig:
    """New definitions with state carried over by name only where the definition is unchanged.

    A new or changed server is disabled and loses its cached tools, selection and trust;
    a removed one loses its state.
    """
    old_by_name = {d.name: d for d in old.definitions}
    runtime = {}
    for definition in definitions:
        previous = old_by_name.get(definition.name)
        if previous is not None and fingerprint(previous) == fingerprint(definition):
            runtime[definition.name] = old.state(definition.name)
        else:
            runtime[definition.name] = ServerState()
    return McpConfig(tuple(definitions), runtime)


class McpStore:
    """Reads and changes mcp-servers.json; every change is locked, re-read and atomic."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = default_store_path() if path is None else path
        self._cached: tuple[tuple[int, int, int], McpConfig] | None = None

    def load(self) -> McpConfig:
        """The configuration as this program uses it: the saved one (a run's choice of
        servers, agent/mcp/run_servers.py, narrows it)."""
        return self.saved()

    def saved(self) -> McpConfig:
        """The saved configuration; a missing file is an empty one.

        Every tool call consults the configuration, so the parsed file is kept while its
        identity (inode, mtime, size) is unchanged; every save makes a new inode.
        """
        try:
            stat = os.stat(self.path)
            key = (stat.st_ino, stat.st_mtime_ns, stat.st_size)
            if self._cached is not None and self._cached[0] == key:
                return self._cached[1]
            raw = self.path.read_bytes()
        except FileNotFoundError:
            return McpConfig()
        except OSError as error:
            raise StoreError(f"{self.path}: cannot read: {error.strerror}") from error
        config = _decode_store(raw, self.path)
        self._cached = (key, config)
        return config

    def replace_definitions(
        self,
        definitions: Sequence[ServerDefinition],
        expected: Sequence[ServerDefinition] | None = None,
    ) -> SaveReport:
        """Make `definitions` the whole configuration, all or nothing.

        With `expected`, refuse when the saved definitions are no longer those (someone else
        saved while the person was editing).
        """

        def change(current: McpConfig) -> Sequence[ServerDefinition]:
            if expected is not None and tuple(current.definitions) != tuple(expected):
                raise ConcurrentEditError(
                    f"{self.path}: the MCP configuration changed while you were editing; "
                    "run the command again to edit the current version"
                )
            return definitions

        return self._save(change)

    def merge_definitions(self, definitions: Sequence[ServerDefinition]) -> SaveReport:
        """Add or replace only the named servers; the others stay as they are."""

        def change(current: McpConfig) -> Sequence[ServerDefinition]:
            incoming = {d.name: d for d in definitions}
            merged = [incoming.pop(d.name, d) for d in current.definitions]
            merged.extend(incoming.values())
            return merged

        return self._save(change)

    def remove(self, name: str) -> SaveReport:
        """Delete one server (found exactly or after normalisation) and its state."""

        def change(current: McpConfig) -> Sequence[ServerDefinition]:
            doomed = current.find(name)
            return [d for d in current.definitions if d is not doomed]

        return self._save(change)

    def add(self, definition: ServerDefinition, *, replace_existing: bool) -> SaveReport:
        """Add one server; one of the same name (exactly or after normalisation) is refused,
        or with `replace_existing` replaced in its place (its state starts over)."""

        def change(current: McpConfig) -> Sequence[ServerDefinition]:
            try:
                existing = current.find(definition.name)
            except UnknownServerError:
                return [*current.definitions, definition]
            if not replace_existing:
                raise ServerExistsError(existing.name)
            return [definition if d is existing else d for d in current.definitions]

        return self._save(change)

    @property
    def backup_path(self) -> Path:
        """Where the configuration before its last change is kept."""
        return backup_path(self.path)

    def restore(self) -> SaveReport:
        """Put the backup back, keeping the present configuration as the backup (so a second
        restore undoes the first). A server the two have alike keeps its present state (trust
        given, tools found since); one that comes back gets the state it had then."""
        with file_lock(self.path):
            saved = _decode_store(read_backup(self.path), self.backup_path)
            current = self.load()
            now = {d.name: fingerprint(d) for d in current.definitions}
            runtime = {}
            for definition in saved.definitions:
                alike = now.get(definition.name) == fingerprint(definition)
                runtime[definition.name] = (current if alike else saved).state(definition.name)
            restored = McpConfig(saved.definitions, runtime)
            if restored != current:
                keep_backup(self.path, _encode(McpConfig()))
                self._write(restored)
        _drop_stale_tokens(restored)
        return _report(self.path, current, restored)

    def update_state(
        self, name: str, expected_fingerprint: str, change: Callable[[ServerState], ServerState]
    ) -> McpConfig:
        """Change one server's state, only if its definition still has `expected_fingerprint`.

        The guard keeps state learned from one definition (tools, trust) from being attached
        to a definition that replaced it meanwhile.
        """
        with file_lock(self.path):
            current = self.saved()  # changes start from the file, whatever a run chose
            definition = current.find(name)
            if fingerprint(definition) != expected_fingerprint:
                raise ConcurrentEditError(
                    f"MCP server {name!r} was changed by another command meanwhile; try again"
                )
            before = current.state(definition.name)
            after = change(before)
            if after == before:
                return current  # e.g. a start that rediscovered the same tools: no write, no fsync
            runtime = dict(current.runtime)
            runtime[definition.name] = after
            updated = replace(current, runtime=runtime)
            self._write(updated)
            return updated

    def update_states(
        self, expected: Mapping[str, str], change: Callable[[ServerState], ServerState]
    ) -> McpConfig:
        """`change` applied to several servers' state in one save, all or none: each server
        (by name) must still have its `expected` fingerprint."""
        with file_lock(self.path):
            current = self.load()
            runtime = dict(current.runtime)
            for name, wanted in expected.items():
                definition = current.find(name)
                if fingerprint(definition) != wanted:
                    raise ConcurrentEditError(
                        f"MCP server {name!r} was changed by another command meanwhile; nothing "
                        "changed, try again"
                    )
                runtime[definition.name] = change(current.state(definition.name))
            updated = replace(current, runtime=runtime)
            if updated != current:
                self._write(updated)
            return updated

    def _save(self, change: Callable[[McpConfig], Sequence[ServerDefinition]]) -> SaveReport:
        with file_lock(self.path):
            current = self.saved()  # changes start from the file, whatever a run chose
            definitions = list(change(current))
            problems = name_collisions([d.name for d in definitions], "mcpServers")
            if problems:
                raise DocumentError(str(self.path), problems)
            if tuple(definitions) == current.definitions:
                # Nothing to save: the backup stays the one from before the last real change.
                return _report(self.path, current, current)
            updated = reconcile(current, definitions)
            keep_backup(self.path, _encode(McpConfig()))
            self._write(updated)
        _drop_stale_tokens(updated)
        return _report(self.path, current, updated)

    def _write(self, config: McpConfig) -> None:
        atomic_write(self.path, _encode(config), mode=0o600)


def _encode(config: McpConfig) -> bytes:
    payload = {
        "version": STORE_VERSION,
        "definitions": [{"name": d.name, **d.to_json()} for d in config.definitions],
        "runtime": {name: state.to_json() for name, state in config.runtime.items()},
    }
    return (json.dumps(payload, indent=2, ensure_ascii=False) + "\n").encode("utf-8")


def _drop_stale_tokens(config: McpConfig) -> None:
    # OAuth tokens belong to a server name and expanded URL: a removed server or a changed URL
    # drops them; a URL whose variable is unset here keeps them (we cannot tell).
    from agent.mcp.config.definitions import HttpDefinition
    from agent.mcp.oauth.token_key import default_expander, token_key
    from agent.mcp.oauth.token_store import TokenStore

    expander = default_expander()
    remote = {
        d.name: token_key(d, expander) for d in config.definitions if isinstance(d, HttpDefinition)
    }
    # A damaged token file is reported where tokens are used; a record for another URL is
    # never used anyway.
    with contextlib.suppress(TokenStoreError):
        TokenStore().keep_only(remote)


def _report(path: Path, old: McpConfig, new: McpConfig) -> SaveReport:
    old_by_name = {d.name: fingerprint(d) for d in old.definitions}
    added, changed, unchanged = [], [], []
    for definition in new.definitions:
        previous = old_by_name.get(definition.name)
        if previous is None:
            added.append(definition.name)
        elif previous != fingerprint(definition):
            changed.append(definition.name)
        else:
            unchanged.append(definition.name)
    new_names = {d.name for d in new.definitions}
    removed = [d.name for d in old.definitions if d.name not in new_names]
    return SaveReport(path, new, tuple(added), tuple(changed), tuple(unchanged), tuple(removed))


def _decode_store(raw: bytes, path: Path) -> McpConfig:
    advice = "fix it by hand or move it away; agent will not overwrite it"
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError) as error:
        raise StoreError(f"{path}: not valid JSON ({error}); {advice}") from None
    except RecursionError:
        raise StoreError(f"{path}: nested too deeply to be ours; {advice}") from None
    if not isinstance(data, dict):
        raise StoreError(f"{path}: expected a JSON object; {advice}")
    version = data.get("version")
    if type(version) is not int or version not in _READABLE_VERSIONS:
        raise StoreError(
            f"{path}: version {json.dumps(version)} is not supported (this agent reads versions "
            f"{', '.join(map(str, _READABLE_VERSIONS[:-1]))} and {_READABLE_VERSIONS[-1]}); "
            f"{advice}"
        )
    problems: list[Problem] = []
    unknown = sorted(set(data) - {"version", "definitions", "runtime"})
    problems.extend(Problem(key, "unknown key") for key in unknown)
    definitions = _decode_definitions(data.get("definitions"), problems)
    runtime = _decode_runtime(data.get("runtime"), {d.name for d in definitions}, problems, version)
    if problems:
        details = "; ".join(str(p) for p in problems)
        raise StoreError(f"{path}: malformed: {details}; {advice}")
    return McpConfig(tuple(definitions), runtime)


def _decode_definitions(value: object, problems: list[Problem]) -> list[ServerDefinition]:
    if not isinstance(value, list):
        problems.append(Problem("definitions", "expected a list"))
        return []
    definitions: list[ServerDefinition] = []
    for index, item in enumerate(value):
        path = f"definitions[{index}]"
        if not isinstance(item, dict) or not isinstance(item.get("name"), str):
            problems.append(Problem(path, "expected an object with a string name"))
            continue
        body = {k: v for k, v in item.items() if k != "name"}
        notices: list[str] = []
        definition = parse_server(item["name"], body, path, problems, notices)
        if notices:
            problems.extend(Problem(path, notice) for notice in notices)
        if definition is not None:
            definitions.append(definition)
    problems.extend(name_collisions([d.name for d in definitions], "definitions"))
    return definitions


def _decode_runtime(
    value: object, names: set[str], problems: list[Problem], version: int
) -> dict[str, ServerState]:
    if not isinstance(value, dict):
        problems.append(Problem("runtime", "expected an object"))
        return {}
    runtime = {}
    for name, raw in value.items():
        path = f"runtime.{name}"
        if name not in names:
            problems.append(Problem(path, "state for a server that has no definition"))
            continue
        state = _decode_state(raw, path, problems, version)
        if state is not None:
            runtime[name] = state
    return runtime


def _decode_state(
    raw: object, path: str, problems: list[Problem], version: int
) -> ServerState | None:
    keys = {6: _STATE_KEYS, 5: _V5_STATE_KEYS, 4: _V4_STATE_KEYS, 3: _V3_STATE_KEYS}.get(
        version, _V2_STATE_KEYS
    )
    if not isinstance(raw, dict) or set(raw) != keys:
        problems.append(Problem(path, f"expected exactly the keys {sorted(keys)}"))
        return None
    before = len(problems)
    enabled, tools, cached = raw["enabled"], raw["enabled_tools"], raw["cached_tools"]
    if not isinstance(enabled, bool):
        problems.append(Problem(f"{path}.enabled", "expected true or false"))
    if not isinstance(tools, list) or not all(isinstance(t, str) for t in tools):
        problems.append(Problem(f"{path}.enabled_tools", "expected a list of tool names"))
    trusted: tuple[TrustedLaunch, ...] = ()
    fresh_until, new = _decode_freshness(raw, path, problems) if version >= 4 else (None, ())
    if version >= 3:
        trusted = decode_trusted_launches(
            raw["trusted_launches"], f"{path}.trusted_launches", problems
        )
    else:
        # Version 2 trust vouched for the definition, not for what it runs: checked, then dropped.
        legacy = raw["trusted_fingerprint"]
        if legacy is not None and not (isinstance(legacy, str) and len(legacy) == 64):
            problems.append(Problem(f"{path}.trusted_fingerprint", "expected a sha256 hex digest"))
    cached_tools = None if cached is None else _decode_tools(cached, path, problems)
    defer = raw["defer"] if version >= 5 else "auto"
    declined: tuple[TrustedLaunch, ...] = ()
    if version >= 6:
        declined = decode_trusted_launches(
            raw["declined_launches"], f"{path}.declined_launches", problems
        )
    if defer not in DEFER_MODES:
        problems.append(Problem(f"{path}.defer", "expected one of " + ", ".join(DEFER_MODES)))
    if len(problems) != before:
        return None
    return ServerState(
        enabled, tuple(tools), cached_tools, trusted, fresh_until, new, defer, declined
    )


def _decode_freshness(
    raw: dict[str, Any], path: str, problems: list[Problem]
) -> tuple[float | None, tuple[str, ...]]:
    fresh_until, new = raw["tools_fresh_until"], raw["new_tools"]
    if fresh_until is not None and (
        isinstance(fresh_until, bool) or not isinstance(fresh_until, int | float)
    ):
        problems.append(Problem(f"{path}.tools_fresh_until", "expected a number or null"))
        fresh_until = None
    if not isinstance(new, list) or not all(isinstance(t, str) for t in new):
        problems.append(Problem(f"{path}.new_tools", "expected a list of tool names"))
        new = []
    return (None if fresh_until is None else float(fresh_until)), tuple(new)


def _decode_tools(value: object, path: str, problems: list[Problem]) -> tuple[CachedTool, ...]:
    if not isinstance(value, list):
        problems.append(Problem(f"{path}.cached_tools", "expected a list or null"))
        return ()
    tools = []
    for index, item in enumerate(value):
        where = f"{path}.cached_tools[{index}]"
        if (
            not isinstance(item, dict)
            or set(item) != _TOOL_KEYS
            or not isinstance(item["name"], str)
            or not isinstance(item["description"], str | None)
            or not isinstance(item["input_schema"], dict)
            or not isinstance(item["annotations"], dict | None)
        ):
            problems.append(Problem(where, "expected name, description, input_schema, annotations"))
            continue
        tools.append(
            CachedTool(item["name"], item["description"], item["input_schema"], item["annotations"])
        )
    return tuple(tools)
