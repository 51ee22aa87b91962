"""A word typed at an open question answers nothing, whatever letters it holds: the person was
typing a message, not looking at the question. Only a lone key, after a pause and followed by
one, answers; the word's letters go back to the prompt, none lost.

The real `agent` in a pseudo-terminal, the scripted model as a process, a real MCP server.
Each word is ONE write, so agent reads it as one burst, as a typist's keys arrive; each test
then answers with a lone key of the opposite meaning to what a letter of the word would have
said, so a question the word had answered would end differently."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pexpect

from tests.pty_chat import scripted_chat
from tests.security.test_dialog_typeahead import (
    DECLINED,
    echo_call,
    finish,
    quiet,
    tool_results,
)

APPROVE = "Approve\\?"
# What a question says while keys that are not its answer arrive (agent/ui/dialogs/fresh_keys.py).
OPEN_QUESTION = re.escape("(a question is open:")
INSTRUCTIONS_QUESTION = r"Use these instruction files in this project\? \[y\] yes  \[n\] no"
RULE = "RULE-BE-BRIEF"


def user_messages(request: dict[str, Any]) -> list[str]:
    return [m["content"] for m in request["body"]["messages"] if m["role"] == "user"]


def instructions_project(tmp_path: Path) -> Path:
    """A git repository whose AGENTS.md needs the person's trust."""
    project = tmp_path / "repo"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text(RULE + "\n")
    return project


def approval_then_word(chat: pexpect.spawn, word: str) -> None:
    """Send a message whose answer is one echo call, then type `word` at its open approval."""
    chat.expect("MCP server fx ready")
    chat.expect("›")
    chat.send("run it\r")
    chat.expect(APPROVE)  # drawn, with the keyboard quiet: armed at once
    chat.send(word)
    chat.expect(OPEN_QUESTION)  # the word says this is a question, and answers nothing
    chat.expect(APPROVE)  # back once the typing stopped


def test_a_y_inside_a_word_typed_at_an_open_approval_approves_nothing(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    turns = [{"tool_calls": [echo_call("c1", "x")]}, {"text": "Not run."}, {"text": "Got it."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        approval_then_word(chat, "okay\r")
        chat.send("n")  # a lone key after the pause answers
        chat.expect("Not run.")
        chat.expect("›")
        chat.send("\r")  # the word is back in the prompt, unsent until now
        chat.expect("Got it.")
        finish(chat)
        requests = fake.requests()
    assert tool_results(requests[1]) == {"c1": DECLINED}
    assert user_messages(requests[2])[-1] == "okay"


def test_a_word_starting_with_y_typed_at_an_open_approval_approves_nothing(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    turns = [{"tool_calls": [echo_call("c1", "x")]}, {"text": "Not run."}, {"text": "Got it."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        approval_then_word(chat, "yes\r")
        chat.send("n")
        chat.expect("Not run.")
        chat.expect("›")
        chat.send("\r")
        chat.expect("Got it.")
        finish(chat)
        requests = fake.requests()
    assert tool_results(requests[1]) == {"c1": DECLINED}
    assert user_messages(requests[2])[-1] == "yes"


def test_the_n_of_again_typed_at_an_open_trust_question_declines_nothing(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    # The case: the question opened after the first message, while the person looked
    # away; "again⏎" typed later said no with its n, and the message was lost.
    project = instructions_project(tmp_path)
    turns = [{"text": "Answered."}, {"text": "Again answered."}]
    with scripted_chat(tmp_path, turns, chat_env, project) as (chat, fake):
        chat.expect("›")
        chat.send("hi\r")
        chat.expect(INSTRUCTIONS_QUESTION)
        chat.send("again\r")
        chat.expect(OPEN_QUESTION)
        chat.expect(INSTRUCTIONS_QUESTION)
        chat.send("y")  # a lone y after the pause: the one answer given
        chat.expect("Answered.")
        chat.expect("›")
        chat.send("\r")
        chat.expect("Again answered.")
        finish(chat)
        requests = fake.requests()
    assert RULE in requests[0]["body"]["messages"][0]["content"]
    assert user_messages(requests[0]) == ["hi"]
    assert user_messages(requests[1])[-1] == "again"


def test_a_word_typed_while_a_question_opens_answers_nothing_and_reaches_the_prompt_whole(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    # The question opens while the word is being typed: the letters before it and after it
    # (the question hidden until a pause) all go back to the prompt, in order.
    project = instructions_project(tmp_path)
    turns = [{"text": "Answered."}, {"text": "Again answered."}]
    with scripted_chat(tmp_path, turns, quiet(chat_env), project) as (chat, fake):
        chat.expect("›")
        chat.send("hi\rag")  # one read: the message, its Enter, and the start of a word
        chat.expect(OPEN_QUESTION)
        chat.send("ain\r")  # still typing: the n says nothing
        chat.expect(INSTRUCTIONS_QUESTION)
        chat.send("y")
        chat.expect("Answered.")
        chat.expect("›")
        chat.send("\r")
        chat.expect("Again answered.")
        finish(chat)
        requests = fake.requests()
    assert RULE in requests[0]["body"]["messages"][0]["content"]
    assert user_messages(requests[1])[-1] == "again"
