"""Built-in tools over the project directory: read_file and list_files here, search_files
(agent.tools.file_search), write_file and edit_file (agent.tools.file_tools) and run_command
(agent.tools.command_tool), which ask the person every time.

The reading tools need no approval because they cannot change anything and cannot leave the
project: every path is resolved (symlinks included) and must stay inside the project directory
(agent.tools.containment, which the writing tools share).
agent's own folders (settings, trust records, sessions, logs) are never read or listed, even
when they sit inside the project (agent started in the home directory, or AGENT_HOME there):
they hold what the model must not see, and a hostile answer would ask for them first.
Well-known credential files and folders (`.ssh`, `.aws`, `.netrc`, `.env`, `*.pfx`, ...) are
refused and left out the same way, wherever the project is, and read_file refuses a file
holding a private key under any name (agent.tools.credential_files), and a hard link to a
credential file of the home or of agent's folders, which list_files leaves out too
(agent.tools.credential_links).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.home import own_folders
from agent.messages import ToolResult
from agent.settings import CommandsSettings
from agent.text import plural
from agent.tools.base import Tool, ToolSpec
from agent.tools.command_tool import RunCommand, SkillFolders
from agent.tools.containment import OWN_FOLDER_REFUSAL, inside_project, within
from agent.tools.credential_files import (
    NOT_LISTED,
    credential_folder,
    credential_rule,
    key_refusal,
    link_refusal,
    refusal,
)
from agent.tools.credential_links import CredentialLinks
from agent.tools.file_search import SearchFiles
from agent.tools.file_tools import ChangeJournal, EditFile, FileChanger, WriteFile
from agent.tools.reading import (
    READ_LIMIT_BYTES,
    HoldsPrivateKeyError,
    LinkedCredentialError,
    UnreadableFileError,
    read_lines,
)
from agent.tools.walk_rules import DEFAULT_GLOB, SKIPPED_DIRS, matches_glob

LIST_DEFAULT_LIMIT = 200
LIST_MAX_LIMIT = 2000
LIST_MAX_VISITED = 200_000  # files looked at before giving up (a home directory, say)


@dataclass(frozen=True)
class ReadFile:
    """Read a UTF-8 text file of the project."""

    project: Path
    private: tuple[Path, ...] = ()

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(
            name="read_file",
            description=(
                "Read a text file in the project directory. `path` is relative to the project. "
                f"Files over {READ_LIMIT_BYTES // 1024} KB are cut; use offset/limit (lines) to "
                "read a part."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "path": {"type": "string", "description": "path relative to the project"},
                    "offset": {
                        "type": "integer",
                        "minimum": 0,
                        "description": "first line (0-based)",
                    },
                    "limit": {"type": "integer", "minimum": 1, "description": "number of lines"},
                },
                "required": ["path"],
                "additionalProperties": False,
            },
            requires_approval=False,
            changes_nothing=True,
            source="built-in",
        )

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        import anyio.to_thread

        # A slow disk or a long skip to the offset must not stop the event loop.
        return await anyio.to_thread.run_sync(self._read, arguments, abandon_on_cancel=True)

    def _read(self, arguments: dict[str, Any]) -> ToolResult:
        relative = arguments["path"]
        try:
            path = inside_project(self.project, relative, self.private)
        except ValueError as error:
            return ToolResult(str(error), is_error=True)
        if not path.is_file():
            return ToolResult(f"{relative!r} is not a file in the project", is_error=True)
        offset = int(arguments.get("offset", 0))
        limit = arguments.get("limit")
        links = CredentialLinks(self.private, project=self.project)
        try:
            part = read_lines(path, offset, None if limit is None else int(limit), links=links)
        except HoldsPrivateKeyError:
            return ToolResult(key_refusal(relative), is_error=True)
        except LinkedCredentialError as error:
            return ToolResult(link_refusal(relative, error.linked_to), is_error=True)
        except UnreadableFileError as error:
            return ToolResult(f"{relative!r} {error}", is_error=True)
        body = part.text
        if part.next_offset is not None:
            body += (
                f"\n[file cut at {READ_LIMIT_BYTES} bytes; read further with "
                f"offset={part.next_offset}]"
            )
        if not body and offset > 0:
            lines = part.lines_before
            return ToolResult(f"(nothing at offset {offset}: the file has {plural(lines, 'line')})")
        return ToolResult(body or "(empty)")


@dataclass(frozen=True)
class ListFiles:
    """List project files matching a glob."""

    project: Path
    private: tuple[Path, ...] = ()

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(
            name="list_files",
            description=(
                "List files in the project directory whose relative path matches a glob "
                "(e.g. '**/*.py', 'src/*'). Skips .git, node_modules, virtualenvs and caches."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "glob": {"type": "string", "description": "pattern; default '**/*'"},
                    "limit": {"type": "integer", "minimum": 1, "maximum": LIST_MAX_LIMIT},
                },
                "additionalProperties": False,
            },
            requires_approval=False,
            changes_nothing=True,
            source="built-in",
        )

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        import anyio.to_thread

        # A walk of a big tree must not stop the event loop (Ctrl-C, MCP servers).
        return await anyio.to_thread.run_sync(self._list, arguments, abandon_on_cancel=True)

    def _list(self, arguments: dict[str, Any]) -> ToolResult:
        pattern = str(arguments.get("glob") or DEFAULT_GLOB)
        limit = int(arguments.get("limit") or LIST_DEFAULT_LIMIT)
        if any(within(self.project, folder) for folder in self.private):
            return ToolResult(f"the project directory {OWN_FOLDER_REFUSAL}", is_error=True)
        inside = credential_folder(self.project.parts)
        if inside is not None:
            return ToolResult(refusal("the project directory", inside), is_error=True)
        # The walk does not follow directory links, so only folders inside the project, by
        # their real path, can be met; links to files are checked one by one below.
        hidden = {str(f) for f in self.private if self.project in f.parents}
        skipped: list[str] = []
        credentials_left_out = False
        links = CredentialLinks(self.private, project=self.project)
        visited = 0
        found: list[str] = []
        more = False
        for root, dirs, files in os.walk(self.project):
            kept = []
            for name in sorted(dirs):
                if name in SKIPPED_DIRS:
                    continue
                full = os.path.join(root, name)
                if full in hidden:
                    skipped.append(os.path.relpath(full, self.project))
                    continue
                # By the whole path: started in ~/.config, `gh` is ~/.config/gh.
                if credential_folder(Path(full).parts):
                    credentials_left_out = True
                    continue
                kept.append(name)
            dirs[:] = kept
            visited += len(files)
            if visited > LIST_MAX_VISITED:
                more = True
                break
            for name in sorted(files):
                full = os.path.join(root, name)
                relative = os.path.relpath(full, self.project)
                if not matches_glob(relative, pattern) or self._links_inside_own_folder(full):
                    continue
                if _is_credential(full) or _is_linked_credential(full, links):
                    credentials_left_out = True
                    continue
                if len(found) == limit:
                    more = True
                    break
                found.append(relative)
            if more:
                break
        notes = [f"[agent's own settings and data folder {name} is not listed]" for name in skipped]
        if credentials_left_out:
            notes.append(NOT_LISTED)
        if not found:
            return ToolResult("\n".join([f"no files match {pattern!r}", *notes]))
        if more:
            notes.insert(0, f"[more files match; showing the first {limit}]")
        return ToolResult("\n".join([*found, *notes]))

    def _links_inside_own_folder(self, full: str) -> bool:
        if not self.private or not os.path.islink(full):
            return False
        target = Path(os.path.realpath(full))
        return any(within(target, folder) for folder in self.private)


def _is_credential(full: str) -> bool:
    """A credential file by its whole path (started in ~/.docker, `config.json` is one, though
    the project-relative path names no rule), or a link to one."""
    if credential_rule(Path(full).parts) is not None:
        return True
    return os.path.islink(full) and credential_rule(Path(os.path.realpath(full)).parts) is not None


def _is_linked_credential(full: str, links: CredentialLinks) -> bool:
    """A hard link to a credential file elsewhere (or a link to such a file)."""
    try:
        return links.linked_to(os.stat(full)) is not None
    except OSError:  # gone, or a link leading nowhere
        return False


class BuiltinToolset:
    """The built-in tools for one project directory: reading, changing files (each change
    asked, and kept by `journal` for /undo) and running commands (each asked, fenced in)."""

    def __init__(
        self,
        project: Path,
        private: Sequence[Path] | None = None,
        journal: ChangeJournal | None = None,
        commands: CommandsSettings | None = None,
        skills: SkillFolders | None = None,
    ) -> None:
        root = project.resolve()
        folders = own_folders() if private is None else tuple(p.resolve() for p in private)
        changer = FileChanger(root, folders, journal)
        self._tools: list[Tool] = [
            ReadFile(root, folders),
            ListFiles(root, folders),
            SearchFiles(root, folders),
            WriteFile(changer),
            EditFile(changer),
            RunCommand(root, folders, commands or CommandsSettings(), skills),
        ]

    def tools(self) -> Sequence[Tool]:
        return self._tools
