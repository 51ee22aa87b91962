"""read_file and list_files: read-only, inside the project, bounded."""

from __future__ import annotations

import os
from pathlib import Path

import anyio
import pytest

from agent.messages import ToolResult
from agent.tools.builtin import READ_LIMIT_BYTES, BuiltinToolset


def run(project: Path, name: str, **arguments: object) -> ToolResult:
    tools = {tool.spec.name: tool for tool in BuiltinToolset(project).tools()}

    async def call() -> ToolResult:
        return await tools[name].run(dict(arguments))

    return anyio.run(call)


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src" / "pkg").mkdir(parents=True)
    (root / "src" / "pkg" / "a.py").write_text("one\ntwo\nthree\n")
    (root / "src" / "b.py").write_text("b\n")
    (root / "README.md").write_text("# hi\n")
    (root / ".git").mkdir()
    (root / ".git" / "config").write_text("secret-ish")
    (root / "node_modules").mkdir()
    (root / "node_modules" / "x.js").write_text("x")
    return root


def test_the_reading_tools_need_no_approval_and_the_writing_ones_ask(project: Path) -> None:
    specs = [tool.spec for tool in BuiltinToolset(project).tools()]
    assert [(s.name, s.requires_approval, s.server) for s in specs] == [
        ("read_file", False, None),
        ("list_files", False, None),
        ("search_files", False, None),
        ("write_file", True, None),
        ("edit_file", True, None),
        ("run_command", True, None),
    ]


def test_read_file_reads_text_and_line_ranges(project: Path) -> None:
    assert run(project, "read_file", path="src/pkg/a.py") == ToolResult("one\ntwo\nthree\n")
    assert run(project, "read_file", path="src/pkg/a.py", offset=1, limit=1) == ToolResult("two\n")


def test_read_file_refuses_what_is_outside_binary_or_missing(project: Path, tmp_path: Path) -> None:
    (tmp_path / "outside.txt").write_text("nope")
    os.symlink(tmp_path / "outside.txt", project / "link.txt")
    (project / "image.bin").write_bytes(b"\x89PNG\x00\x01")
    assert run(project, "read_file", path="../outside.txt") == ToolResult(
        "'../outside.txt' is outside the project directory", is_error=True
    )
    assert run(project, "read_file", path="link.txt") == ToolResult(
        "'link.txt' is outside the project directory", is_error=True
    )
    assert run(project, "read_file", path=str(tmp_path / "outside.txt")).is_error
    assert run(project, "read_file", path="image.bin") == ToolResult(
        "'image.bin' is a binary file", is_error=True
    )
    assert run(project, "read_file", path="src") == ToolResult(
        "'src' is not a file in the project", is_error=True
    )


def test_read_file_cuts_big_files_and_says_so(project: Path) -> None:
    (project / "big.txt").write_text("x" * (READ_LIMIT_BYTES + 10))
    result = run(project, "read_file", path="big.txt")
    assert result.text.endswith(
        f"[file cut at {READ_LIMIT_BYTES} bytes; read further with offset=1]"
    )


def test_list_files_matches_globs_skips_vcs_and_dependencies_and_honours_the_limit(
    project: Path,
) -> None:
    assert run(project, "list_files") == ToolResult("README.md\nsrc/b.py\nsrc/pkg/a.py")
    assert run(project, "list_files", glob="**/*.py") == ToolResult("src/b.py\nsrc/pkg/a.py")
    assert run(project, "list_files", glob="**/*.py", limit=1) == ToolResult(
        "src/b.py\n[more files match; showing the first 1]"
    )
    assert run(project, "list_files", glob="*.rs") == ToolResult("no files match '*.rs'")
