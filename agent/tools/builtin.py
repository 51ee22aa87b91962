"""Built-in read-only tools over the project directory: read_file and list_files.

They need no approval because they cannot change anything and cannot leave the project:
every path is resolved (symlinks included) and must stay inside the project directory.
"""

from __future__ import annotations

import fnmatch
import os
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.messages import ToolResult
from agent.tools.base import Tool, ToolSpec

READ_LIMIT_BYTES = 256 * 1024
LIST_DEFAULT_LIMIT = 200
LIST_MAX_LIMIT = 2000
LIST_MAX_VISITED = 200_000  # files looked at before giving up (a home directory, say)
# Version control, dependencies and caches: never what a question about the project is about.
_SKIPPED_DIRS = frozenset(
    {
        ".git", ".hg", ".svn", "node_modules", "__pycache__", ".venv", "venv",
        ".mypy_cache", ".pytest_cache", ".ruff_cache", ".tox", ".cache",
    }
)  # fmt: skip


def _inside(project: Path, relative: str) -> Path:
    """The resolved path, or ValueError when it leaves the project."""
    candidate = (project / relative).resolve()
    if candidate != project and project not in candidate.parents:
        raise ValueError(f"{relative!r} is outside the project directory")
    return candidate


@dataclass(frozen=True)
class ReadFile:
    """Read a UTF-8 text file of the project."""

    project: Path

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
            source="built-in",
        )

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            path = _inside(self.project, arguments["path"])
        except ValueError as error:
            return ToolResult(str(error), is_error=True)
        if not path.is_file():
            return ToolResult(f"{arguments['path']!r} is not a file in the project", is_error=True)
        with path.open("rb") as handle:
            data = handle.read(READ_LIMIT_BYTES + 1)
        cut = len(data) > READ_LIMIT_BYTES
        data = data[:READ_LIMIT_BYTES]
        if b"\0" in data:
            return ToolResult(f"{arguments['path']!r} is a binary file", is_error=True)
        text = data.decode("utf-8", errors="replace")
        lines = text.splitlines(keepends=True)
        offset = int(arguments.get("offset", 0))
        limit = arguments.get("limit")
        chosen = lines[offset : offset + int(limit)] if limit is not None else lines[offset:]
        body = "".join(chosen)
        if cut:
            body += f"\n[file cut at {READ_LIMIT_BYTES} bytes; read further with offset]"
        return ToolResult(body or "(empty)")


@dataclass(frozen=True)
class ListFiles:
    """List project files matching a glob."""

    project: Path

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
            source="built-in",
        )

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        import anyio.to_thread

        # A walk of a big tree must not stop the event loop (Ctrl-C, MCP servers).
        return await anyio.to_thread.run_sync(self._list, arguments, abandon_on_cancel=True)

    def _list(self, arguments: dict[str, Any]) -> ToolResult:
        pattern = str(arguments.get("glob") or "**/*")
        limit = int(arguments.get("limit") or LIST_DEFAULT_LIMIT)
        visited = 0
        found: list[str] = []
        more = False
        for root, dirs, files in os.walk(self.project):
            dirs[:] = sorted(d for d in dirs if d not in _SKIPPED_DIRS)
            visited += len(files)
            if visited > LIST_MAX_VISITED:
                more = True
                break
            for name in sorted(files):
                relative = os.path.relpath(os.path.join(root, name), self.project)
                if _matches(relative, pattern):
                    if len(found) == limit:
                        more = True
                        break
                    found.append(relative)
            if more:
                break
        if not found:
            return ToolResult(f"no files match {pattern!r}")
        suffix = f"\n[more files match; showing the first {limit}]" if more else ""
        return ToolResult("\n".join(found) + suffix)


def _matches(relative: str, pattern: str) -> bool:
    # `**/` also matches files at the top level, as people expect from shells with globstar.
    return fnmatch.fnmatch(relative, pattern) or (
        pattern.startswith("**/") and fnmatch.fnmatch(relative, pattern[3:])
    )


class BuiltinToolset:
    """The built-in tools for one project directory."""

    def __init__(self, project: Path) -> None:
        self._tools: list[Tool] = [ReadFile(project.resolve()), ListFiles(project.resolve())]

    def tools(self) -> Sequence[Tool]:
        return self._tools
