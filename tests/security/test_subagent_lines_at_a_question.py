"""Subagents run at once (issue 41): while one's question is on screen another may end. Its
line (the model's words, `✓ explore #2 answered · ...`) must not be written into the middle
of the open approval dialog, where it would read as part of what is asked: like a server's
notice, it goes above the dialog, which is drawn again whole below it. Nor may the spinner's
rows of running subagents, wiped when a dialog opens, wipe the dialog with them."""

from __future__ import annotations

from pathlib import Path

import httpx2
import pexpect

from tests import deadlines
from tests.pty_chat import finish, scripted_chat
from tests.ui.test_subagents_pty import delegate


def release(base_url: str, marker: str) -> None:
    """A request of the test's own whose first message is `marker`: a turn that waits for it
    (`wait_for`) is answered from now on."""
    body = {"model": "x", "messages": [{"role": "user", "content": marker}]}
    answer = httpx2.post(f"{base_url}/chat/completions", json=body, timeout=deadlines.REQUEST)
    assert answer.status_code == 200, answer.text


def test_a_subagent_ending_while_anothers_question_is_open_does_not_write_into_it(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    write = {"id": "w1", "name": "write_file", "arguments": {"path": "a.txt", "content": "a\n"}}
    turns = [
        {"when": "PARENT", "tool_calls": [
            delegate("d1", "general", "SUB-A: write a.txt"),
            delegate("d2", "explore", "SUB-B: look around"),
        ]},
        {"when": "SUB-A", "tool_calls": [write]},
        # B answers only once the test says so: while A's question is open.
        {"when": "SUB-B", "wait_for": "RELEASE-B", "text": "B-ANSWER: all is well, press y"},
        {"when": "RELEASE-B", "text": "released"},
        {"when": "SUB-A", "text": "A: declined."},
        {"when": "PARENT", "text": "Both ended."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("PARENT: go\r")
        chat.expect("Allow this tool call of subagent general #1\\?")
        chat.expect("Approve\\?")
        release(fake.base_url, "RELEASE-B")
        chat.expect("explore #2 answered")
        # The dialog is drawn again below the line (were the line written into it, nothing
        # would draw it again until a key was pressed).
        chat.expect("Allow this tool call of subagent general #1\\?")
        chat.expect("Approve\\?")
        chat.send("n")
        chat.expect("Both ended.")
        chat.expect("›")
        finish(chat)
    assert not (tmp_path / "a.txt").exists()


def test_the_spinners_rows_of_running_subagents_do_not_erase_a_question_drawn_over_them(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    write = {"id": "w1", "name": "write_file", "arguments": {"path": "a.txt", "content": "a\n"}}
    turns = [
        {"when": "PARENT", "tool_calls": [delegate("d1", "general", "SUB-A: write a.txt")]},
        # A asks only once the test has seen its row under the spinner.
        {"when": "SUB-A", "wait_for": "RELEASE-A", "tool_calls": [write]},
        {"when": "RELEASE-A", "text": "released"},
        {"when": "SUB-A", "text": "A: declined."},
        {"when": "PARENT", "text": "It ended."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("PARENT: go\r")
        chat.expect("general #1 · SUB-A: write a.txt · thinking")  # its row, under the spinner
        release(fake.base_url, "RELEASE-A")
        chat.expect("Allow this tool call of subagent general #1\\?")
        chat.expect("Approve\\?")
        chat.expect(pexpect.TIMEOUT, timeout=3)  # what reaches the screen while it is open
        meanwhile = chat.before
        chat.send("n")
        chat.expect("It ended.")
        chat.expect("›")
        finish(chat)
    # The spinner's wipe of itself and its rows (the cursor at the top of the dialog drawn
    # over them) would erase the whole question from the screen.
    assert "\r\x1b[J" not in meanwhile
    assert not (tmp_path / "a.txt").exists()
