"""Editing the MCP configuration in the person's editor, for both front ends.

The flow runs the editor on a private copy of the canonical document and saves only a valid,
changed document. What it says and asks goes through the caller's callbacks: the console
prints and reads lines, the chat prints and asks with its own dialog.
"""

from __future__ import annotations

import os
import shlex
import shutil
import subprocess
import tempfile
from collections.abc import Callable, Sequence
from pathlib import Path

from agent.errors import AgentError, DocumentError
from agent.mcp.config.definitions import LOCAL_DEFINITIONS, ServerDefinition
from agent.mcp.config.document import ServersDocument, parse_document, serialize_document
from agent.mcp.store import McpStore, SaveReport
from agent.text import plural, sanitize_line

Say = Callable[[str], None]

# Said after every save that changed the definitions (the store kept the file before it).
BACKUP_LINE = "The previous configuration is kept: agent mcp restore puts it back."


def edit_document(store: McpStore, *, say: Say, warn: Say, edit_again: Callable[[], bool]) -> int:
    """Edit the canonical document in $VISUAL/$EDITOR; save only a valid, changed document.

    `edit_again` asks whether to reopen an invalid draft; the exit status is returned.
    """
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
                if edit_again():
                    continue
                warn("Nothing saved.")
                return 1
            for notice in document.notices:
                warn(f"note: {notice}")
            if tuple(document.definitions) == tuple(base):
                say("No changes; nothing saved.")
                return 0
            report = store.replace_definitions(document.definitions, expected=base)
            for line in report_lines(report, document):
                say(line)
            return 0


def report_lines(report: SaveReport, document: ServersDocument) -> list[str]:
    """What a save did: the file, the servers by change, the next step, literal secrets."""
    count = len(report.config.definitions)
    lines = [f"Saved {plural(count, 'MCP server')} to {sanitize_line(str(report.path))}"]
    for label, names in (
        ("added", report.added),
        ("changed", report.changed),
        ("unchanged", report.unchanged),
        ("removed", report.removed),
    ):
        if names:
            lines.append(f"  {label}: {', '.join(names)}")
    fresh = [report.config.find(name) for name in (*report.added, *report.changed)]
    if fresh:
        lines.append(_next_step(fresh))
    secrets = _literal_secrets_note(report.path, document)
    if secrets:
        lines.append(secrets)
    lines.append(BACKUP_LINE)
    return lines


def _next_step(fresh: Sequence[ServerDefinition]) -> str:
    """What to run so new and changed servers (which the store keeps disabled) can be used."""
    local = any(isinstance(d, LOCAL_DEFINITIONS) for d in fresh)
    if len(fresh) == 1:
        name = shlex.quote(fresh[0].name)
        asks = " (it asks first whether to trust what it runs)" if local else ""
        return f"New and changed servers are disabled: run agent mcp enable {name}{asks}."
    # One command enables them all; its one question trusts the local ones.
    names = " ".join(shlex.quote(d.name) for d in fresh)
    asks = " (one question trusts the local ones)" if local else ""
    return f"New and changed servers are disabled: run agent mcp enable {names}{asks}."


def _literal_secrets_note(path: Path, document: ServersDocument) -> str | None:
    places = []
    for definition in document.definitions:
        kind = "env" if isinstance(definition, LOCAL_DEFINITIONS) else "header"
        for key in definition.literal_secret_names():
            places.append(f"{kind} {key} ({definition.name})")
    if not places:
        return None
    return (
        f"Note: the values of {', '.join(places)} are stored as written in {path} "
        "(readable only by you). To keep them out of that file, write ${VAR} references "
        "and set the variables in your environment."
    )


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
    # A list, never a shell: the editor and the draft's path are passed as they are.
    try:
        completed = subprocess.run([*editor, str(draft)], check=False)
    except FileNotFoundError:
        raise AgentError(f"editor {editor[0]!r} not found; check VISUAL or EDITOR") from None
    if completed.returncode != 0:
        raise AgentError(
            f"editor {editor[0]!r} exited with status {completed.returncode}; nothing saved"
        )
