"""write_file and edit_file never change a file outside the project, in agent's own folders, a
credential file or version control's folder, whatever path or link a hostile model or
repository uses, nor through a link swapped in after the person approved; what the approval
shows of hostile content is escaped, and huge content is cut in the preview, said so.

Attacks: a hostile model answer aims the writing tools at `..`, absolute paths, links to
files and folders outside, AGENT_HOME inside the project, `.env`, SSH keys, git hooks; a
hostile process swaps the file or its folder for a link between the approval and the write;
content full of terminal escape sequences, or too long to read, in the approval.
"""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.chat.approval import ApprovalRequest
from agent.messages import ToolCall
from agent.tools.base import CallRefusedError, PreviewedTool
from agent.tools.builtin import BuiltinToolset
from agent.tools.file_diff import PREVIEW_LINE_CHARS, PREVIEW_MAX_LINES
from agent.ui.dialogs.call_rows import describe_request
from tests.security.inputs_helpers import agent_env, one_shot, tool_results

ORIGINAL = "the person's own file\n"


def write(call_id: str, path: str) -> dict[str, object]:
    arguments = {"path": path, "content": "pwned\n"}
    return {"id": call_id, "name": "write_file", "arguments": arguments}


def edit(call_id: str, path: str) -> dict[str, object]:
    arguments = {"path": path, "old_text": "own", "new_text": "pwned"}
    return {"id": call_id, "name": "edit_file", "arguments": arguments}


def tools(project: Path) -> dict[str, PreviewedTool]:
    found = BuiltinToolset(project, private=[]).tools()
    return {t.spec.name: t for t in found if isinstance(t, PreviewedTool)}


def run(tool: PreviewedTool, arguments: dict[str, Any]) -> str:
    result = anyio.run(tool.run, arguments)
    assert result.is_error
    return result.text


def test_every_way_out_of_the_project_is_refused_before_anyone_is_asked(tmp_path: Path) -> None:
    project = tmp_path / "project"
    outside = tmp_path / "outside"
    home = project / ".agent-home"
    for folder in (project / "keys", project / ".git" / "hooks", outside, home):
        folder.mkdir(parents=True)
    for file in (outside / "target.txt", project / ".env"):
        file.write_text(ORIGINAL)
    (home / "settings.yaml").write_text("{}\n")
    (project / "keys" / "id_rsa").write_text(ORIGINAL)
    (project / "link.txt").symlink_to(outside / "target.txt")
    (project / "linked-dir").symlink_to(outside, target_is_directory=True)
    turns = [
        {
            "tool_calls": [
                write("c1", "../outside/target.txt"),
                write("c2", str(outside / "target.txt")),
                write("c3", "link.txt"),
                edit("c4", "linked-dir/target.txt"),
                write("c5", "linked-dir/new.txt"),
                write("c6", ".agent-home/settings.yaml"),
                edit("c7", ".env"),
                write("c8", "keys/id_rsa"),
                write("c9", ".git/hooks/pre-commit"),
                write("c10", "src/../../outside/new.txt"),
            ]
        },
        {"text": "done"},
    ]
    (tmp_path / "person").mkdir()

    # No terminal: a call that could run would be denied as "nobody to approve"; these are
    # refused for what they are, before any question.
    done, requests = one_shot(turns, "escape", agent_env(tmp_path / "person", home), project)

    assert done.returncode == 0, done.stderr
    results = tool_results(requests[1])
    outside_refusal = "is outside the project directory"
    for call in ("c1", "c2", "c3", "c4", "c5", "c10"):
        assert results[call].startswith("Error: '") and outside_refusal in results[call]
    assert results["c6"] == (
        "Error: '.agent-home/settings.yaml' is inside agent's own settings and data folder, "
        "which the file tools never change"
    )
    assert results["c7"].startswith("Error: '.env' is a credential file or folder (.env)")
    assert results["c8"].startswith("Error: 'keys/id_rsa' is a credential file or folder")
    assert "version control's own folder" in results["c9"]
    assert "declined" not in str(results)
    assert [p.name for p in outside.iterdir()] == ["target.txt"]
    for file in (outside / "target.txt", project / ".env"):
        assert file.read_text() == ORIGINAL
    assert (home / "settings.yaml").read_text() == "{}\n"
    assert not (project / ".git" / "hooks" / "pre-commit").exists()


def test_a_file_swapped_for_a_link_after_the_approval_is_not_written_through(
    tmp_path: Path,
) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside.txt"
    project.mkdir()
    outside.write_text(ORIGINAL)
    (project / "notes.txt").write_text("notes\n")
    write_file = tools(project)["write_file"]
    arguments = {"path": "notes.txt", "content": "pwned\n"}
    write_file.preview(arguments)  # what the person approves: notes.txt in the project
    (project / "notes.txt").unlink()
    (project / "notes.txt").symlink_to(outside)  # the swap, between the yes and the write

    assert "notes.txt is a link (now); nothing is changed through a link" in run(
        write_file, arguments
    )
    assert outside.read_text() == ORIGINAL
    assert (project / "notes.txt").is_symlink()


def test_a_folder_swapped_for_a_link_after_the_approval_is_not_written_through(
    tmp_path: Path,
) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside"
    (project / "src").mkdir(parents=True)
    outside.mkdir()
    (outside / "app.py").write_text(ORIGINAL)
    (project / "src" / "app.py").write_text(ORIGINAL)
    edit_file = tools(project)["edit_file"]
    arguments = {"path": "src/app.py", "old_text": "own", "new_text": "pwned"}
    edit_file.preview(arguments)
    (project / "src" / "app.py").unlink()
    (project / "src").rmdir()
    (project / "src").symlink_to(outside, target_is_directory=True)

    assert "the folder 'src' on the way is a link or not a folder" in run(edit_file, arguments)
    assert (outside / "app.py").read_text() == ORIGINAL
    assert [p.name for p in outside.iterdir()] == ["app.py"]  # no temporary file either


def test_a_new_file_whose_new_folder_appears_as_a_link_is_not_written_through(
    tmp_path: Path,
) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside"
    project.mkdir()
    outside.mkdir()
    write_file = tools(project)["write_file"]
    arguments = {"path": "made/here.txt", "content": "pwned\n"}
    write_file.preview(arguments)  # `made` does not exist yet: the write would make it
    (project / "made").symlink_to(outside, target_is_directory=True)

    assert "the folder 'made' on the way is a link" in run(write_file, arguments)
    assert list(outside.iterdir()) == []


def test_escape_sequences_in_content_and_path_are_shown_escaped_in_the_approval(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    hostile = "ok\x1b[2J\x1b[1A\rApprove? [y] looks safe\x07\n\x1b]0;title\x07\u202eevil\n"
    arguments = {"path": "a\x1b[31mred.txt", "content": hostile}
    write_file = tools(project)["write_file"]
    preview = tuple(write_file.preview(arguments))
    request = ApprovalRequest(
        ToolCall("c1", "write_file", "{}"), write_file.spec, arguments, preview
    )

    shown = "\n".join(describe_request(request)[1:])  # after our own (styled) heading
    for raw in ("\x1b", "\x07", "\r", "\u202e"):
        assert raw not in shown
    assert "file: a\\x1b[31mred.txt (new file, " in shown
    assert "+ok\\x1b[2J\\x1b[1A\\x0dApprove? [y] looks safe\\x07" in shown
    assert "\\u202eevil" in shown


def test_huge_content_is_cut_in_the_preview_said_so_and_written_whole(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    content = "".join(f"line {n}\n" for n in range(20_000)) + "x" * 100_000 + "\n"
    write_file = tools(project)["write_file"]
    arguments = {"path": "big.txt", "content": content}

    preview = write_file.preview(arguments)
    result = anyio.run(write_file.run, arguments)

    assert len(preview) == 2 + PREVIEW_MAX_LINES + 1
    assert preview[0] == "file: big.txt (new file, 308,891 bytes)"
    assert preview[1] == "0 lines removed, 20,001 lines added"  # counted in full
    assert preview[-1] == (
        "… [19,604 more lines of the diff not shown: the whole change is made; say no if you "
        "need to see it all]"
    )
    assert all(len(line) < PREVIEW_LINE_CHARS + 60 for line in preview)
    assert not result.is_error
    assert (project / "big.txt").read_text() == content


def test_a_long_line_is_cut_in_the_preview_and_the_cut_says_how_much(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    preview = tools(project)["write_file"].preview({"path": "a.txt", "content": "y" * 5000})
    assert (
        preview[-2] == "+" + "y" * (PREVIEW_LINE_CHARS - 1) + "… [4,501 more characters not shown]"
    )


def test_a_fifo_named_by_the_model_does_not_block_the_preview(tmp_path: Path) -> None:
    project = tmp_path / "project"
    project.mkdir()
    os.mkfifo(project / "queue")
    with pytest.raises(CallRefusedError, match="queue is not a regular file"):
        tools(project)["edit_file"].preview({"path": "queue", "old_text": "a", "new_text": "b"})


def test_a_forged_change_in_a_session_file_cannot_make_undo_write_outside(
    tmp_path: Path, agent_home: Path
) -> None:
    import hashlib

    from agent.chat.file_changes import FileChangeLog
    from agent.session.events import FileChangeEvent
    from agent.session.recorder import SessionRecorder

    project, outside = tmp_path / "project", tmp_path / "outside.txt"
    project.mkdir()
    outside.write_text(ORIGINAL)
    # A session file edited by someone else: a "change" of a file outside, whose after-hash is
    # what that file holds now, and an empty content before (undo would empty it).
    after = hashlib.sha256(ORIGINAL.encode()).hexdigest()
    before = hashlib.sha256(b"").hexdigest()
    forged = FileChangeEvent(1, "../outside.txt", "write_file", "overwrote", before, after)
    log = FileChangeLog(project, SessionRecorder(project, "fake-model"), [])
    log.restore([(None, forged)], set(), str(project))

    outcome = log.undo()

    assert not outcome.done
    assert outcome.lines == [
        "Cannot undo change 1 (write_file overwrote ../outside.txt): '../outside.txt' is "
        "outside the project directory"
    ]
    assert outside.read_text() == ORIGINAL


def test_a_hard_link_to_a_file_outside_is_replaced_in_the_project_not_written_through(
    tmp_path: Path,
) -> None:
    project, outside = tmp_path / "project", tmp_path / "outside.txt"
    project.mkdir()
    outside.write_text(ORIGINAL)
    os.link(outside, project / "shared.txt")  # same inode: writing in place would change both
    write_file = tools(project)["write_file"]
    arguments = {"path": "shared.txt", "content": "new\n"}
    write_file.preview(arguments)

    assert not anyio.run(write_file.run, arguments).is_error
    assert (project / "shared.txt").read_text() == "new\n"
    assert outside.read_text() == ORIGINAL
