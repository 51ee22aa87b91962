"""Several tool calls of one model answer in one dialog, as a person meets it: the real `agent`
chat in a pty, the scripted model answering with several tool calls, the annotated MCP server
(tests/fixtures/servers/annotated_server.py) and the built-in file tools. Also: no raw call
line repeats what the approval shows, and a key that does nothing at a long approval says
why."""

from __future__ import annotations

import io
import re
from pathlib import Path
from typing import Any

from tests.pty_chat import finish, page_to, pty_env, scripted_chat
from tests.ui.dialogs.approval_helpers import (
    FETCH_PAGE,
    LOOKUP,
    SAVE_NOTE,
    save_trusted_annotated_server,
)

PAGER = "-- lines [0-9]+-[0-9]+ of [0-9]+: space shows more"


def results(request: dict[str, Any]) -> dict[str, str]:
    """The tool results a request carried, by call id."""
    messages = request["body"]["messages"]
    return {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}


def plain(drawn: str) -> str:
    """What the terminal shows, without escape sequences."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn)


def test_three_calls_show_in_one_dialog_each_with_its_arguments_and_its_own_answer(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    save_trusted_annotated_server(agent_home, env)
    calls = [
        {"id": "c1", "name": LOOKUP, "arguments": {"key": "alpha"}},
        {"id": "c2", "name": FETCH_PAGE, "arguments": {"url": "https://example.com/x"}},
        {"id": "c3", "name": SAVE_NOTE, "arguments": {"path": "n.md", "content": "one\ntwo\n"}},
    ]
    turns = [{"tool_calls": calls}, {"text": "Did what you allowed."}]
    with scripted_chat(tmp_path, turns, env) as (chat, fake):
        chat.logfile_read = everything = io.StringIO()
        chat.expect("MCP server an ready")
        chat.expect("›")
        chat.send("three things\r")
        chat.expect("Approve call 1 of 3 \\(an · lookup\\)\\?")
        dialog = chat.before
        chat.send("y")
        chat.expect("Approve call 2 of 3 \\(an · fetch_page\\)\\?")
        chat.send("n")
        chat.expect("Approve call 3 of 3 \\(an · save_note\\)\\?")
        chat.send("r")
        chat.expect("Reason for the model:")
        chat.send("not that file\r")
        chat.expect("Did what you allowed.")
        finish(chat)
        after = everything.getvalue()
        requests = fake.requests()
    dialog = plain(dialog)
    assert dialog.count("Allow these 3 tool calls?") == 1
    for row in (
        "── call 1 of 3",
        'key: "alpha"',
        "── call 2 of 3",
        'url: "https://example.com/x"',
        "⚠ reaches outside this machine",
        "── call 3 of 3",
        'path: "n.md"',
        "1 │ one",
        "2 │ two",
        "may delete or overwrite things",
    ):
        assert row in dialog, row
    after = plain(after)
    assert "Call 1 of 3 (an · lookup): ✓ yes" in after
    assert "Call 2 of 3 (an · fetch_page): ✗ no" in after
    assert "Call 3 of 3 (an · save_note): ✗ no, with a reason" in after
    got = results(requests[1])
    assert list(got) == ["c1", "c2", "c3"]  # the model's order
    assert "alpha" in got["c1"]
    assert got["c2"] == "Error: The person declined this tool call."
    assert got["c3"] == "Error: The person declined this tool call. Their reason: not that file"


def test_no_raw_call_line_comes_before_the_approval_and_the_outcome_follows_it(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    turns = [
        {"tool_calls": [{"id": "c1", "name": "write_file",
                         "arguments": {"path": "notes.txt", "content": "hello\n"}}]},
        {"text": "Written."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, _fake):
        chat.expect("›")
        chat.send("write it\r")
        chat.expect("Allow this tool call\\?")
        before_dialog = chat.before
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("⏺ write_file")
        chat.expect("✓ approved")
        chat.expect("Written.")
        after = chat.before
        finish(chat)
    assert "⏺" not in plain(before_dialog)  # no raw line repeating what the dialog shows
    assert '{"path"' not in plain(after)
    assert (tmp_path / "notes.txt").read_text() == "hello\n"


def test_y_on_a_page_before_the_end_of_a_long_approval_says_why_it_did_nothing(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    save_trusted_annotated_server(agent_home, env)
    content = "".join(f"line {n}\n" for n in range(80)) + "THE-END\n"
    arguments = {"path": "long.md", "content": content}
    turns = [{"tool_calls": [{"id": "c1", "name": SAVE_NOTE, "arguments": arguments}]},
             {"text": "Saved."}]  # fmt: skip
    with scripted_chat(tmp_path, turns, env) as (chat, fake):
        chat.expect("MCP server an ready")
        chat.expect("›")
        chat.send("save the long note\r")
        chat.expect(PAGER)
        chat.send("y")  # before the end: no answer, and it says why and what to do
        chat.expect("y counts once the whole call has been shown: space shows more")
        chat.send(" ")
        page_to(chat, "Approve\\?", pressed=1)
        chat.send("y")
        chat.expect("Saved.")
        finish(chat)
        requests = fake.requests()
    assert results(requests[1])["c1"].startswith("saved long.md")


def test_an_edit_of_text_an_earlier_call_writes_is_asked_in_its_turn_and_a_changed_diff_again(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    (tmp_path / "app.txt").write_text("one\ntwo\nthree\n")
    edits = [
        ("c1", "one\n", "one\nextra\n"),  # moves the lines after it down
        ("c2", "extra", "EXTRA"),  # edits what c1 writes: refused until c1 ran
        ("c3", "three", "THREE"),  # its diff against the file as it was changes
    ]
    calls = [
        {"id": i, "name": "edit_file",
         "arguments": {"path": "app.txt", "old_text": old, "new_text": new}}
        for i, old, new in edits
    ]  # fmt: skip
    turns = [{"tool_calls": calls}, {"text": "Edited."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("edit it\r")
        chat.expect("Approve call 1 of 3")
        dialog = plain(chat.before)
        chat.send("a")  # yes to the two calls shown
        chat.expect("call 2 of 3 in this answer")  # asked on its own, now that it can run
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("asked again: an earlier call of this answer changed what this one will do")
        chat.expect("Approve\\?")
        again = plain(chat.before)
        chat.send("y")
        chat.expect("Edited.")
        finish(chat)
        requests = fake.requests()
    assert "Allow these 2 tool calls?" in dialog
    assert "── call 2 of 3: edit_file: refused, not asked" in dialog
    assert "+THREE" in again and "EXTRA" in again  # the diff as the file is now
    assert (tmp_path / "app.txt").read_text() == "one\nEXTRA\ntwo\nTHREE\n"
    assert list(results(requests[1])) == ["c1", "c2", "c3"]
