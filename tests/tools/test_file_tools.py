"""write_file and edit_file: what the approval shows is the change made, written all or nothing,
only while the file is what the preview read; calls that cannot run are refused unasked."""

from __future__ import annotations

import os
import stat
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.messages import ToolResult
from agent.tools.base import CallRefusedError, PreviewedTool
from agent.tools.builtin import BuiltinToolset
from agent.tools.file_tools import FileChange
from agent.tools.file_writing import WRITE_LIMIT_BYTES


class Journal:
    """Keeps what the tools hand over, as the chat's FileChangeLog would."""

    def __init__(self) -> None:
        self.changes: list[FileChange] = []

    def record(self, change: FileChange) -> str | None:
        self.changes.append(change)
        return None


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    (root / "src").mkdir(parents=True)
    (root / "src" / "app.py").write_text("def main():\n    print('hi')\n\n\nmain()\n")
    return root


def tools(project: Path, journal: Journal | None = None) -> dict[str, PreviewedTool]:
    found = BuiltinToolset(project, private=[], journal=journal).tools()
    return {t.spec.name: t for t in found if isinstance(t, PreviewedTool)}


def run(tool: PreviewedTool, arguments: dict[str, Any]) -> ToolResult:
    async def call() -> ToolResult:
        return await tool.run(dict(arguments))

    return anyio.run(call)


def apply_with_patch(preview: list[str], folder: Path) -> None:
    """Apply the diff the approval showed with patch(1), as a person could."""
    diff = "\n".join(line for line in preview if not line.startswith("file: "))
    body = diff[diff.index("--- ") :] + "\n"
    subprocess.run(["patch", "-p1", "--quiet"], input=body, text=True, cwd=folder, check=True)


def test_a_new_file_is_shown_line_by_line_and_written_0644(project: Path) -> None:
    journal = Journal()
    write = tools(project, journal)["write_file"]
    arguments = {"path": "notes/todo.md", "content": "# Todo\n\n- write tests\n"}
    preview = write.preview(arguments)
    assert preview == [
        "file: notes/todo.md (new file, 22 bytes)",
        "0 lines removed, 3 lines added",
        "--- /dev/null",
        "+++ b/notes/todo.md",
        "@@ -0,0 +1,3 @@",
        "+# Todo",
        "+",
        "+- write tests",
    ]
    assert run(write, arguments) == ToolResult(
        "created notes/todo.md (0 lines removed, 3 lines added)"
    )
    written = project / "notes" / "todo.md"
    assert written.read_text() == arguments["content"]
    assert stat.S_IMODE(written.stat().st_mode) == 0o644
    assert journal.changes == [
        FileChange("notes/todo.md", "write_file", "created", None, b"# Todo\n\n- write tests\n", 1)
    ]


def test_the_diff_shown_for_an_edit_is_exactly_the_change_made(
    project: Path, tmp_path: Path
) -> None:
    edit = tools(project)["edit_file"]
    copy = tmp_path / "copy"
    (copy / "src").mkdir(parents=True)
    (copy / "src" / "app.py").write_bytes((project / "src" / "app.py").read_bytes())
    arguments = {"path": "src/app.py", "old_text": "    print('hi')\n", "new_text": "    x = 1\n"}
    preview = edit.preview(arguments)
    assert preview[:2] == [
        "file: src/app.py (edit: 37 bytes → 31 bytes)",
        "1 line removed, 1 line added",
    ]
    assert run(edit, arguments).is_error is False
    apply_with_patch(preview, copy)
    assert (copy / "src" / "app.py").read_bytes() == (project / "src" / "app.py").read_bytes()


@pytest.mark.parametrize(
    ("before", "after"),
    [
        ("a\nb\nc", "a\nB\nc\n"),  # the last line gains its newline
        ("one\r\ntwo\r\n", "one\r\nTWO\r\n"),  # CRLF stays in the lines shown
        ("x\x0cy\u2028z\n", "x\x0cY\u2028z\n"),  # no split at a form feed or U+2028
        ("keep\n" * 50 + "end", "keep\n" * 50),  # the last line goes, context trimmed
    ],
)
def test_an_overwrite_diff_applied_by_patch_gives_the_file_written(
    project: Path, tmp_path: Path, before: str, after: str
) -> None:
    (project / "f.txt").write_bytes(before.encode())
    copy = tmp_path / "copy"
    copy.mkdir()
    (copy / "f.txt").write_bytes(before.encode())
    write = tools(project)["write_file"]
    preview = write.preview({"path": "f.txt", "content": after})
    assert preview[0].startswith("file: f.txt (overwrite all of it: ")
    assert run(write, {"path": "f.txt", "content": after}).is_error is False
    apply_with_patch(preview, copy)
    assert (copy / "f.txt").read_bytes() == (project / "f.txt").read_bytes() == after.encode()


def test_an_overwrite_keeps_the_mode_without_set_id_bits_and_replaces_the_inode(
    project: Path,
) -> None:
    script = project / "run.sh"
    script.write_text("echo one\n")
    os.chmod(script, 0o4750)  # noqa: S103 (a set-id bit the write must drop)
    inode = script.stat().st_ino
    write = tools(project)["write_file"]
    arguments = {"path": "run.sh", "content": "echo two\n"}
    write.preview(arguments)
    assert run(write, arguments).is_error is False
    assert stat.S_IMODE(script.stat().st_mode) == 0o750
    assert script.stat().st_ino != inode  # a new file renamed over the old: all or nothing
    assert [p.name for p in project.iterdir() if p.name.startswith(".")] == []  # no temp left


def test_old_text_must_occur_exactly_once_and_nothing_changes_otherwise(project: Path) -> None:
    (project / "many.txt").write_text("aaa\nx = 1\nx = 1\n")
    before = (project / "many.txt").read_bytes()
    edit = tools(project)["edit_file"]
    cases = {
        "x = 1": "old_text occurs 2 times in many.txt; nothing changed.",
        "aa": "old_text occurs 2 times in many.txt",  # overlapping matches count too
        "y = 2": "old_text was not found in many.txt; nothing changed.",
    }
    for old_text, message in cases.items():
        arguments = {"path": "many.txt", "old_text": old_text, "new_text": "z"}
        with pytest.raises(CallRefusedError, match=message):
            edit.preview(arguments)
        result = run(edit, arguments)  # run unasked: the same refusal, as a result
        assert result.is_error and message in result.text
    assert (project / "many.txt").read_bytes() == before


def test_an_edit_of_a_crlf_file_with_lf_text_says_why_it_was_not_found(project: Path) -> None:
    (project / "win.txt").write_bytes(b"one\r\ntwo\r\n")
    edit = tools(project)["edit_file"]
    with pytest.raises(CallRefusedError, match=r"the file's lines end in CRLF"):
        edit.preview({"path": "win.txt", "old_text": "one\ntwo", "new_text": "1\n2"})


@pytest.mark.parametrize(
    ("arguments", "message"),
    [
        ({"path": "missing.py", "old_text": "a", "new_text": "b"}, "does not exist; write_file"),
        ({"path": "src/app.py", "old_text": "", "new_text": "b"}, "old_text is empty"),
        ({"path": "src/app.py", "old_text": "main", "new_text": "main"}, "are the same"),
    ],
)
def test_edits_that_cannot_be_made_are_refused(
    project: Path, arguments: dict[str, str], message: str
) -> None:
    with pytest.raises(CallRefusedError, match=message):
        tools(project)["edit_file"].preview(arguments)


def test_writing_what_the_file_holds_already_is_refused(project: Path) -> None:
    content = (project / "src" / "app.py").read_text()
    with pytest.raises(CallRefusedError, match="already holds exactly this"):
        tools(project)["write_file"].preview({"path": "src/app.py", "content": content})


def test_binary_and_non_utf8_files_are_not_changed(project: Path) -> None:
    (project / "image.png").write_bytes(b"\x89PNG\x00\x01")
    (project / "latin.txt").write_bytes("café".encode("latin-1"))
    write = tools(project)["write_file"]
    for name in ("image.png", "latin.txt"):
        with pytest.raises(CallRefusedError, match="is not UTF-8 text"):
            write.preview({"path": name, "content": "text"})


def test_folders_fifos_and_devices_are_refused_without_blocking(project: Path) -> None:
    os.mkfifo(project / "pipe")
    os.symlink("/dev/zero", project / "zero")  # outside anyway; a device by its real path too
    write = tools(project)["write_file"]
    with pytest.raises(CallRefusedError, match="src is a folder, not a file"):
        write.preview({"path": "src", "content": "x"})
    with pytest.raises(CallRefusedError, match="pipe is not a regular file"):
        write.preview({"path": "pipe", "content": "x"})
    with pytest.raises(CallRefusedError, match="outside the project"):
        write.preview({"path": "zero", "content": "x"})
    assert stat.S_ISFIFO((project / "pipe").stat().st_mode)


def test_a_file_changed_between_approval_and_run_is_not_written(project: Path) -> None:
    journal = Journal()
    edit = tools(project, journal)["edit_file"]
    arguments = {"path": "src/app.py", "old_text": "'hi'", "new_text": "'bye'"}
    edit.preview(arguments)
    (project / "src" / "app.py").write_text("def main():\n    print('hi')  # mine\n")
    result = run(edit, arguments)
    assert result == ToolResult("src/app.py changed since you approved; nothing written", True)
    assert (project / "src" / "app.py").read_text() == "def main():\n    print('hi')  # mine\n"
    assert journal.changes == []


def test_a_file_created_between_approval_and_run_is_not_overwritten(project: Path) -> None:
    write = tools(project)["write_file"]
    arguments = {"path": "new.txt", "content": "model's\n"}
    write.preview(arguments)
    (project / "new.txt").write_text("person's\n")
    assert run(write, arguments).text == "new.txt changed since you approved; nothing written"
    assert (project / "new.txt").read_text() == "person's\n"


def test_content_over_the_write_limit_is_refused_before_asking(project: Path) -> None:
    write = tools(project)["write_file"]
    with pytest.raises(CallRefusedError, match="over the file tools' limit of 10,485,760 bytes"):
        write.preview({"path": "big.txt", "content": "x" * (WRITE_LIMIT_BYTES + 1)})
    assert not (project / "big.txt").exists()
