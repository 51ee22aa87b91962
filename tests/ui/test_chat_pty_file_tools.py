"""write_file and edit_file as a person meets them: the real `agent` in a pseudo-terminal, the
scripted model calling the tools, the approval showing the path and the diff, y / n / r, then
/changes and /undo (also after --continue), and `agent -p` with and without a terminal."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pexpect

from agent.ui.oneshot import NO_TERMINAL_REASON
from tests.fake_openai import FakeOpenAI
from tests.pty_chat import (
    FakeModelProcess,
    finish,
    model_args,
    oneshot_in_terminal,
    oneshot_without_terminal,
    scripted_chat,
    spawn_agent,
)

DECLINED = "Error: The person declined this tool call."


def call(call_id: str, name: str, **arguments: str) -> dict[str, Any]:
    return {"tool_calls": [{"id": call_id, "name": name, "arguments": arguments}]}


def tool_result(request: dict[str, Any]) -> str:
    return str(request["body"]["messages"][-1]["content"])


def test_approved_changes_show_their_diff_then_changes_lists_them_and_undo_takes_them_back(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    (tmp_path / "app.py").write_text("def main():\n    print('hello')\n")
    turns = [
        call("c1", "write_file", path="notes/todo.md", content="- first\n- second\n"),
        call("c2", "edit_file", path="app.py", old_text="'hello'", new_text="'goodbye'"),
        {"text": "Both changes made."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("make the changes\r")
        chat.expect("Approve\\?")
        for line in ("file: notes/todo.md (new file, 17 bytes)", "+++ b/notes/todo.md",
                     "@@ -0,0 +1,2 @@", "+- first", "+- second"):  # fmt: skip
            assert line in chat.before
        chat.send("y")
        chat.expect("file: app.py \\(edit: 31 bytes → 33 bytes\\)")
        chat.expect("Approve\\?")
        for line in (
            "--- a/app.py",
            "+++ b/app.py",
            "-    print('hello')",
            "+    print('goodbye')",
        ):
            assert line in chat.before
        chat.send("y")
        chat.expect("Both changes made.")
        chat.expect("›")
        assert (tmp_path / "app.py").read_text() == "def main():\n    print('goodbye')\n"
        assert (tmp_path / "notes" / "todo.md").read_text() == "- first\n- second\n"

        chat.send("/changes\r")
        chat.expect("2 file changes in this session")
        chat.expect("1 .* created +notes/todo.md +\\(write_file\\)")
        chat.expect("2 .* edited +app.py +\\(edit_file\\)")
        chat.expect("›")
        chat.send("/undo\r")
        chat.expect(
            "Undid change 2 \\(edit_file edited app.py\\): app.py holds what it held before."
        )
        chat.expect("›")
        assert (tmp_path / "app.py").read_text() == "def main():\n    print('hello')\n"
        chat.send("/undo\r")
        chat.expect("Undid change 1 \\(write_file created notes/todo.md\\): deleted notes/todo.md")
        chat.expect("›")
        assert not (tmp_path / "notes" / "todo.md").exists()
        chat.send("/changes\r")
        chat.expect("2 file changes in this session, 2 undone")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    assert tool_result(requests[1]) == "created notes/todo.md (0 lines removed, 2 lines added)"
    assert tool_result(requests[2]) == "edited app.py (1 line removed, 1 line added)"


def test_declined_changes_leave_the_files_alone_and_the_model_hears_the_reason(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    turns = [
        call("c1", "write_file", path="new.txt", content="no\n"),
        call("c2", "write_file", path="app.py", content="x = 2\n"),
        call("c3", "edit_file", path="app.py", old_text="x = 1", new_text="x = 3"),
        call("c4", "edit_file", path="app.py", old_text="x = 1", new_text="x = 4"),
        {"text": "Nothing changed then."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("try changes\r")
        chat.expect("file: new.txt \\(new file")
        chat.expect("Approve\\?")
        chat.send("n")
        chat.expect("file: app.py \\(overwrite all of it")
        chat.expect("Approve\\?")
        chat.send("r")
        chat.expect("Reason for the model:")
        chat.send("keep app.py as it is\r")
        chat.expect("\\+x = 3")
        chat.expect("Approve\\?")
        chat.send("n")
        chat.expect("\\+x = 4")
        chat.expect("Approve\\?")
        chat.send("r")
        chat.expect("Reason for the model:")
        chat.send("not that either\r")
        chat.expect("Nothing changed then.")
        chat.expect("›")
        chat.send("/undo\r")
        chat.expect("Nothing to undo")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    assert [tool_result(r) for r in requests[1:5]] == [
        DECLINED,
        f"{DECLINED} Their reason: keep app.py as it is",
        DECLINED,
        f"{DECLINED} Their reason: not that either",
    ]
    assert (tmp_path / "app.py").read_text() == "x = 1\n"
    assert not (tmp_path / "new.txt").exists()


def test_undo_refuses_a_file_changed_since_and_works_after_continue(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    (tmp_path / "a.txt").write_text("alpha\n")
    (tmp_path / "b.txt").write_text("beta\n")
    turns = [
        call("c1", "edit_file", path="a.txt", old_text="alpha", new_text="ALPHA"),
        call("c2", "write_file", path="b.txt", content="BETA\n"),
        {"text": "Done."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, _fake):
        chat.expect("›")
        chat.send("shout\r")
        for path in ("a.txt", "b.txt"):  # each dialog by its own path: a redraw is not one
            chat.expect(f"file: {path} ")
            chat.expect("Approve\\?")
            chat.send("y")
        chat.expect("Done.")
        chat.expect("›")
        (tmp_path / "b.txt").write_text("BETA\nmy own line\n")  # the person edits it meanwhile
        chat.send("/undo\r")
        chat.expect("Cannot undo change 2 \\(write_file overwrote b.txt\\): b.txt changed since")
        chat.expect("\\+my own line")
        chat.expect("›")
        assert (tmp_path / "b.txt").read_text() == "BETA\nmy own line\n"
        (tmp_path / "b.txt").write_text("BETA\n")  # put back as the change left it
        finish(chat)

    # A new run of agent continues the session: its changes can still be undone.
    scripts = tmp_path / "second-run"
    scripts.mkdir()
    fake = FakeModelProcess(scripts, [])
    try:
        chat = spawn_agent([*model_args(fake.base_url), "--continue"], chat_env, tmp_path)
        chat.expect("›")
        chat.send("/undo\r")
        chat.expect("Undid change 2 \\(write_file overwrote b.txt\\)")
        chat.expect("›")
        chat.send("/undo\r")
        chat.expect("Undid change 1 \\(edit_file edited a.txt\\)")
        chat.expect("›")
        finish(chat)
    finally:
        fake.stop()
    assert (tmp_path / "a.txt").read_text() == "alpha\n"
    assert (tmp_path / "b.txt").read_text() == "beta\n"


def test_one_shot_in_a_terminal_asks_and_writes_and_without_one_denies(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    (tmp_path / "app.py").write_text("x = 1\n")
    turns = [
        call("c1", "edit_file", path="app.py", old_text="x = 1", new_text="x = 2"),
        {"text": "Edited."},
    ]
    with FakeOpenAI(turns) as fake:
        agent = oneshot_in_terminal(fake.base_url, "edit it", chat_env, tmp_path)
        agent.expect("Approve\\?")
        assert "file: app.py (edit: 6 bytes → 6 bytes)" in agent.before
        assert "+x = 2" in agent.before
        agent.send("y")
        agent.expect("Edited.")
        agent.expect(pexpect.EOF)
        agent.close()
    assert agent.exitstatus == 0
    assert (tmp_path / "app.py").read_text() == "x = 2\n"

    turns = [
        call("c1", "write_file", path="app.py", content="x = 3\n"),
        {"text": "Could not write."},
    ]
    with FakeOpenAI(turns) as fake:
        done = oneshot_without_terminal(fake.base_url, "write it", chat_env, tmp_path)
        requests = fake.requests
    assert done.returncode == 3, done.stderr
    assert tool_result(requests[1]) == f"{DECLINED} Their reason: {NO_TERMINAL_REASON}"
    assert (tmp_path / "app.py").read_text() == "x = 2\n"


def test_one_shot_in_a_terminal_declines_with_a_reason(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    turns = [call("c1", "write_file", path="new.txt", content="hi\n"), {"text": "Not written."}]
    with FakeOpenAI(turns) as fake:
        agent = oneshot_in_terminal(fake.base_url, "write it", chat_env, tmp_path)
        agent.expect("Approve\\?")
        agent.send("r")
        agent.expect("Reason for the model:")
        agent.send("not in this folder\r")
        agent.expect("Not written.")
        agent.expect(pexpect.EOF)
        agent.close()
        requests = fake.requests
    assert agent.exitstatus == 3
    assert tool_result(requests[1]) == f"{DECLINED} Their reason: not in this folder"
    assert not (tmp_path / "new.txt").exists()


def test_undo_of_a_created_file_takes_away_the_folders_its_write_made(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    """write_file made notes/ and notes/2026/ for the new file: /undo takes them away too (they
    are empty again), and says so; docs/, there before, stays."""
    (tmp_path / "docs").mkdir()
    turns = [
        {"tool_calls": [{"id": "c1", "name": "write_file",
                         "arguments": {"path": "notes/2026/plan.md", "content": "# Plan\n"}}]},
        {"tool_calls": [{"id": "c2", "name": "write_file",
                         "arguments": {"path": "docs/new/a.md", "content": "# A\n"}}]},
        {"text": "Written."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, _fake):
        chat.expect("›")
        chat.send("write them\r")
        for path in ("notes/2026/plan.md", "docs/new/a.md"):
            chat.expect(f"file: {path} \\(new file")
            chat.expect("Approve\\?")
            chat.send("y")
        chat.expect("Written.")
        chat.expect("›")
        assert (tmp_path / "notes" / "2026" / "plan.md").is_file()
        chat.send("/undo\r")
        chat.expect(
            "deleted docs/new/a.md, which it created, and the folder its write made: docs/new"
        )
        chat.expect("›")
        chat.send("/undo\r")
        chat.expect(
            "deleted notes/2026/plan.md, which it created, and the folders its write made: "
            "notes/2026, notes"
        )
        chat.expect("›")
        finish(chat)
    assert not (tmp_path / "notes").exists()
    assert (tmp_path / "docs").is_dir() and list((tmp_path / "docs").iterdir()) == []
