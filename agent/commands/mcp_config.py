"""`agent mcp import|export|edit|list|remove`: the configuration, without running anything."""

from __future__ import annotations

import shlex
import sys
from collections.abc import Sequence
from pathlib import Path

from agent.commands.output import say, table, warn
from agent.errors import AgentError, ConcurrentEditError, UnknownServerError
from agent.mcp import editing
from agent.mcp.config.definitions import (
    LOCAL_DEFINITIONS,
    HttpDefinition,
    ServerDefinition,
    StdioDefinition,
    display_url,
)
from agent.mcp.config.document import parse_document, serialize_document
from agent.mcp.store import McpConfig, McpStore
from agent.mcp.trust.launches import LaunchTrust
from agent.text import noun_for, plural, sanitize_line


def import_document(store: McpStore, source: str, merge: bool, replace: bool, yes: bool) -> int:
    """Add and replace the servers a document (a file or stdin) names; with `replace`, remove
    the others too, after a yes on a terminal or `yes`. `merge` changes nothing: what it asked
    for (before issue 40 an import replaced the whole configuration) is what import does."""
    del merge
    document = parse_document(_read_source(source), "<stdin>" if source == "-" else source)
    for notice in document.notices:
        warn(f"note: {notice}")
    current = store.load().definitions
    wanted = list(document.definitions) if replace else _merged(current, document.definitions)
    if tuple(wanted) == tuple(current):
        say("No changes; nothing saved.")
        return 0
    if replace:
        named = {d.name for d in document.definitions}
        going = [d.name for d in current if d.name not in named]
        if going and not yes and not _removal_confirmed(going):
            warn("Nothing saved.")
            return 1
        # `expected`: what was listed is what goes; a save made meanwhile refuses this one.
        report = store.replace_definitions(document.definitions, expected=current)
    else:
        report = store.merge_definitions(document.definitions)
    for line in editing.report_lines(report, document):
        say(line)
    return 0


def _removal_confirmed(going: Sequence[str]) -> bool:
    """The person's yes, on a terminal, to removing the servers the document does not name."""
    listed = f"{plural(len(going), 'MCP server')} the document does not name: {', '.join(going)}"
    if not sys.stdin.isatty():
        raise AgentError(
            f"--replace would remove the {listed}, and there is no terminal to ask; nothing "
            "saved. Add --yes to remove them without asking, or leave out --replace to keep them"
        )
    from agent.commands.terminal import confirm

    warn(f"--replace removes the {listed} (agent mcp restore brings them back).")
    return confirm("Remove them?", default=False)


def _merged(
    current: Sequence[ServerDefinition], incoming: Sequence[ServerDefinition]
) -> list[ServerDefinition]:
    # What McpStore.merge_definitions would save: known names replaced in place, new ones last.
    by_name = {d.name: d for d in incoming}
    merged = [by_name.pop(d.name, d) for d in current]
    merged.extend(by_name.values())
    return merged


def _read_source(source: str) -> str:
    if source == "-":
        return sys.stdin.read()
    try:
        return Path(source).read_text(encoding="utf-8")
    except FileNotFoundError:
        raise AgentError(f"{source}: no such file") from None
    except UnicodeDecodeError:
        raise AgentError(f"{source}: not UTF-8 text") from None
    except OSError as error:
        raise AgentError(f"{source}: cannot read: {error.strerror}") from None


def export_document(store: McpStore) -> int:
    """Print the canonical document."""
    sys.stdout.write(serialize_document(store.load().definitions))
    return 0


def list_servers(store: McpStore) -> int:
    """Name, transport, enabled, trusted, tools, target; never env or header values."""
    config = store.load()
    if not config.definitions:
        say("No MCP servers configured. Import a document with: agent mcp import FILE")
        return 0
    from agent.mcp.trust.launches import launch_trust_for
    from agent.project import find_project_dir

    trust = launch_trust_for(find_project_dir())
    rows = [_server_row(config, name, trust) for name in (d.name for d in config.definitions)]
    headers = ["NAME", "TRANSPORT", "ENABLED", "TRUSTED", "TOOLS", "TARGET"]
    remote = [d for d in config.definitions if isinstance(d, HttpDefinition)]
    if remote:  # an AUTH column only where a server can log in
        states = _auth_states(remote)
        headers.insert(5, "AUTH")
        for row, definition in zip(rows, config.definitions, strict=True):
            row.insert(5, states.get(definition.name, "n/a"))
    # TARGET is last and widest: a narrow terminal then wraps only that column.
    say(table(headers, rows))
    return 0


def _auth_states(remote: Sequence[HttpDefinition]) -> dict[str, str]:
    """Each remote server's OAuth state, from the token file alone (no network, no mcp)."""
    from agent.errors import TokenStoreError
    from agent.mcp.oauth.token_store import TokenStore

    tokens = TokenStore()
    try:
        tokens.load()
    except TokenStoreError as error:
        warn(f"warning: {error}")
        return {d.name: "unknown" for d in remote}
    from agent.mcp.oauth.token_key import default_expander, describe_auth

    expander = default_expander()
    return {d.name: describe_auth(d, tokens, expander) for d in remote}


def describe_target(definition: ServerDefinition) -> str:
    """The command line or URL, with the names (never the values) of env or headers."""
    if isinstance(definition, LOCAL_DEFINITIONS):
        if isinstance(definition, StdioDefinition):
            target = shlex.join([definition.command, *definition.args])
        else:
            target = definition.target()
        return target + (f"  (env: {', '.join(definition.env)})" if definition.env else "")
    target = display_url(definition.url)
    return target + (f"  (headers: {', '.join(definition.headers)})" if definition.headers else "")


def _server_row(config: McpConfig, name: str, trust: LaunchTrust) -> list[str]:
    definition = config.find(name)
    state = config.state(name)
    target = describe_target(definition)
    if isinstance(definition, LOCAL_DEFINITIONS):
        # Trust is of the launch as it would run here (project, environment, PATH).
        if trust.is_trusted(definition, state.trusted_launches):
            trusted = "yes"
        else:
            trusted = "not here" if state.trusted_launches else "no"
    else:
        trusted = "n/a"
    if state.cached_tools is None:
        tools = "not discovered"
    else:
        tools = f"{len(state.enabled_tools)} of {len(state.cached_tools)} selected"
    return [name, definition.transport, "yes" if state.enabled else "no", trusted, tools, target]


def remove_servers(store: McpStore, names: Sequence[str]) -> int:
    """Delete the named servers and their state: all of them, or none when a name is unknown."""
    for _ in range(5):
        current = store.load()
        doomed = find_all(current, names, "nothing removed")
        remaining = [d for d in current.definitions if d not in doomed]
        try:
            # One save with `expected`: nothing is removed if another command saved meanwhile.
            report = store.replace_definitions(remaining, expected=current.definitions)
        except ConcurrentEditError:
            continue
        say(f"Removed {', '.join(report.removed)} from {sanitize_line(str(report.path))}")
        say(editing.BACKUP_LINE)
        return 0
    raise AgentError(
        f"{store.path}: the MCP configuration kept changing while removing; nothing removed, "
        "try again"
    )


def find_all(config: McpConfig, names: Sequence[str], outcome: str) -> list[ServerDefinition]:
    """The named servers, each once; any unknown name is an error naming them all and ending
    with `outcome` ("nothing removed")."""
    found: list[ServerDefinition] = []
    unknown: list[str] = []
    for name in names:
        try:
            definition = config.find(name)
        except UnknownServerError:
            unknown.append(name)
            continue
        if definition not in found:
            found.append(definition)
    if unknown:
        known = ", ".join(d.name for d in config.definitions) or "none are configured"
        raise UnknownServerError(
            f"no MCP {noun_for(len(unknown), 'server')} named {', '.join(map(repr, unknown))} "
            f"(configured: {known}); {outcome}"
        )
    return found


def edit_document(store: McpStore) -> int:
    """Edit the canonical document in $VISUAL/$EDITOR; save only a valid, changed document."""
    # Imported here: the terminal's questions bring anyio and the forms, which `agent mcp
    # list` and the other commands of this module never need (about 50 ms at start).
    from agent.commands.terminal import confirm

    return editing.edit_document(
        store, say=say, warn=warn, edit_again=lambda: confirm("Edit again?", default=True)
    )


def restore_backup(store: McpStore) -> int:
    """Put back the configuration as it was before its last change; say what comes and goes."""
    report = store.restore()
    if not (report.added or report.changed or report.removed):
        say("The backup holds the configuration as it is now; nothing restored.")
        return 0
    count = len(report.config.definitions)
    say(f"Restored {plural(count, 'MCP server')} from {sanitize_line(str(store.backup_path))}")
    for label, names in (
        ("back", report.added),
        ("changed back", report.changed),
        ("gone", report.removed),
    ):
        if names:
            say(f"  {label}: {', '.join(names)}")
    say("The configuration it replaced is the backup now: agent mcp restore again undoes this.")
    return 0
