"""`agent mcp import|export|edit|list|remove`: the configuration, without running anything."""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import sys
import tempfile
from pathlib import Path

from agent.commands.output import confirm, say, table, warn
from agent.errors import AgentError, DocumentError
from agent.mcp.definitions import StdioDefinition, display_url
from agent.mcp.document import ServersDocument, parse_document, serialize_document
from agent.mcp.store import McpConfig, McpStore, SaveReport


def import_document(store: McpStore, source: str, merge: bool) -> int:
    """Replace (or with merge, extend) the configuration with a document from a file or stdin."""
    document = parse_document(_read_source(source), "<stdin>" if source == "-" else source)
    for notice in document.notices:
        warn(f"note: {notice}")
    report = (
        store.merge_definitions(document.definitions)
        if merge
        else store.replace_definitions(document.definitions)
    )
    _print_report(report, document)
    return 0


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


def _print_report(report: SaveReport, document: ServersDocument) -> None:
    count = len(report.config.definitions)
    say(f"Saved {count} MCP server{'s' if count != 1 else ''} to {report.path}")
    for label, names in (
        ("added", report.added),
        ("changed", report.changed),
        ("unchanged", report.unchanged),
        ("removed", report.removed),
    ):
        if names:
            say(f"  {label}: {', '.join(names)}")
    if report.added or report.changed:
        say("New and changed servers stay disabled until their tools are discovered.")
    _mention_literal_secrets(report.path, document)


def _mention_literal_secrets(path: Path, document: ServersDocument) -> None:
    places = []
    for definition in document.definitions:
        kind = "env" if isinstance(definition, StdioDefinition) else "header"
        for key in definition.literal_secret_names():
            places.append(f"{kind} {key} ({definition.name})")
    if places:
        say(
            f"Note: the values of {', '.join(places)} are stored as written in {path} "
            "(readable only by you). To keep them out of that file, write ${VAR} references "
            "and set the variables in your environment."
        )


def export_document(store: McpStore) -> int:
    """Print the canonical document."""
    sys.stdout.write(serialize_document(store.load().definitions))
    return 0


def list_servers(store: McpStore) -> int:
    """Name, transport, target, enabled, trusted, tools; never env or header values."""
    config = store.load()
    if not config.definitions:
        say("No MCP servers configured. Import a document with: agent mcp import FILE")
        return 0
    rows = [_server_row(config, name) for name in (d.name for d in config.definitions)]
    say(table(("NAME", "TRANSPORT", "TARGET", "ENABLED", "TRUSTED", "TOOLS"), rows))
    return 0


def _server_row(config: McpConfig, name: str) -> list[str]:
    definition = config.find(name)
    state = config.state(name)
    if isinstance(definition, StdioDefinition):
        target = shlex.join([definition.command, *definition.args])
        if definition.env:
            target += f"  (env: {', '.join(definition.env)})"
        trusted = "yes" if config.is_trusted(definition) else "no"
    else:
        target = display_url(definition.url)
        if definition.headers:
            target += f"  (headers: {', '.join(definition.headers)})"
        trusted = "n/a"
    if state.cached_tools is None:
        tools = "not discovered"
    else:
        tools = f"{len(state.enabled_tools)} of {len(state.cached_tools)} selected"
    return [name, definition.transport, target, "yes" if state.enabled else "no", trusted, tools]


def remove_server(store: McpStore, name: str) -> int:
    """Delete one server and its state."""
    report = store.remove(name)
    say(f"Removed {', '.join(report.removed)} from {report.path}")
    return 0


def edit_document(store: McpStore) -> int:
    """Edit the canonical document in $VISUAL/$EDITOR; save only a valid, changed document."""
    editor = _editor_command()
    base = store.load().definitions
    original = serialize_document(base)
    with tempfile.TemporaryDirectory(prefix="agent-mcp-edit-") as folder:
        draft = Path(folder) / "mcp-servers.json"
        draft.write_text(original, encoding="utf-8")
        draft.chmod(0o600)
        while True:
            _run_editor(editor, draft)
            text = draft.read_text(encoding="utf-8")
            if text == original:
                say("No changes; nothing saved.")
                return 0
            try:
                document = parse_document(text, "edited document")
            except DocumentError as error:
                warn(str(error))
                if confirm("Edit again?", default=True):
                    continue
                warn("Nothing saved.")
                return 1
            for notice in document.notices:
                warn(f"note: {notice}")
            report = store.replace_definitions(document.definitions, expected=base)
            _print_report(report, document)
            return 0


def _editor_command() -> list[str]:
    for variable in ("VISUAL", "EDITOR"):
        value = os.environ.get(variable, "").strip()
        if value:
            return shlex.split(value)
    for fallback in ("nano", "vi"):
        if shutil.which(fallback):
            return [fallback]
    raise AgentError("no editor found: set VISUAL or EDITOR (for example EDITOR=nano)")


def _run_editor(editor: list[str], draft: Path) -> None:
    try:
        completed = subprocess.run([*editor, str(draft)], check=False)
    except FileNotFoundError:
        raise AgentError(f"editor {editor[0]!r} not found; check VISUAL or EDITOR") from None
    if completed.returncode != 0:
        raise AgentError(
            f"editor {editor[0]!r} exited with status {completed.returncode}; nothing saved"
        )
