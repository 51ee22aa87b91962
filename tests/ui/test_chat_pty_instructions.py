"""Instruction files as a person meets them: the real `agent` in a pseudo-terminal, the scripted
fake model server recording each request.

AGENTS.md (else CLAUDE.md) from the project root down to the working directory reaches the
model once the person trusted it in the one project dialog; a declined or changed file does
not; `/context` names what stays out and counts what the next request really sends."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pexpect

from tests.pty_chat import FakeModelProcess, finish, scripted_chat, spawn_chat


def make_project(tmp_path: Path) -> Path:
    """A git project with AGENTS.md at its root and CLAUDE.md in sub/ (where the chat runs)."""
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "sub").mkdir()
    (project / "AGENTS.md").write_text("ROOT-RULE: indent with tabs\n")
    (project / "sub" / "CLAUDE.md").write_text("SUB-RULE: answer briefly\n")
    return project


def system_text(request: dict[str, Any]) -> str:
    """The system message of a recorded request."""
    return str(request["body"]["messages"][0]["content"])


def flat(screen: str) -> str:
    """The text of a dialog as drawn, without colour and cursor codes or any white space (a
    long line wraps wherever the terminal's width says)."""
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen)
    return re.sub(r"\s+", "", text)


def squeezed(text: str) -> str:
    return re.sub(r"\s+", "", text)


def one_turn(chat: pexpect.spawn, text: str, answer: str) -> None:
    chat.send(f"{text}\r")
    chat.expect(re.escape(answer))
    chat.expect("›")


def test_trusted_instruction_files_reach_the_model_in_order_after_the_persons_own(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    project = make_project(tmp_path)
    (tmp_path / "home" / ".agents").mkdir()
    (tmp_path / "home" / ".agents" / "AGENTS.md").write_text("USER-RULE: be kind\n")
    turns = [{"text": "First answer."}]
    with scripted_chat(tmp_path, turns, chat_env, project / "sub") as (chat, fake):
        chat.expect("›")
        chat.send("hello\r")
        chat.expect(r"Use these instruction files in this project\? \[y\] yes")
        dialog = flat(chat.before)
        assert squeezed("has instruction files that would go into the model's prompt") in dialog
        assert squeezed("new: ./AGENTS.md, ./sub/CLAUDE.md") in dialog
        assert "~/.agents/AGENTS.md" not in dialog  # the person's own file needs no trust
        assert "ROOT-RULE" not in dialog  # the dialog names files; it draws no content
        chat.send("y")
        chat.expect("Project instruction files trusted: ./AGENTS.md, ./sub/CLAUDE.md")
        chat.expect("First answer.")
        chat.expect("›")
        finish(chat)
        system = system_text(fake.requests()[0])
    positions = [system.find(rule) for rule in ("USER-RULE", "ROOT-RULE", "SUB-RULE")]
    assert -1 not in positions and positions == sorted(positions)
    # Base instructions, then the instruction files, then the skills catalog.
    assert system.index("You are agent") < positions[0]
    assert positions[-1] < system.index("<available_skills>")


def test_declined_instruction_files_stay_out_and_context_says_how_to_trust_them(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    project = make_project(tmp_path)
    turns = [{"text": "Without them."}]
    with scripted_chat(tmp_path, turns, chat_env, project / "sub") as (chat, fake):
        chat.expect("›")
        chat.send("hello\r")
        chat.expect(r"Use these instruction files in this project\? \[y\] yes")
        chat.send("n")
        chat.expect("Project instruction files stay off")
        chat.expect("Without them.")
        chat.expect("›")
        chat.send("/context\r")
        chat.expect("not trusted, not in the prompt: ./AGENTS.md, ./sub/CLAUDE.md")
        chat.expect("agent skills trust")
        chat.expect("›")
        finish(chat)
        system = system_text(fake.requests()[0])
    assert "ROOT-RULE" not in system and "SUB-RULE" not in system


def test_a_changed_instruction_file_asks_again_and_the_change_waits_for_the_answer(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    project = make_project(tmp_path)
    fake = FakeModelProcess(tmp_path, [{"text": "One."}, {"text": "Two."}, {"text": "Three."}])
    try:
        chat = spawn_chat(fake.base_url, chat_env, project)
        chat.expect("›")
        chat.send("one\r")
        chat.expect(r"Use these instruction files in this project\?")
        chat.send("y")
        chat.expect("One.")
        chat.expect("›")
        finish(chat)

        (project / "AGENTS.md").write_text("ROOT-RULE: indent with tabs\nNEW-RULE: sneaky\n")
        chat = spawn_chat(fake.base_url, chat_env, project)
        chat.expect("›")
        chat.send("two\r")
        chat.expect(r"Use these instruction files in this project\?")
        dialog = flat(chat.before)
        assert squeezed("changed since you last decided") in dialog
        assert squeezed("changed: ./AGENTS.md") in dialog
        chat.send("n")
        chat.expect("Two.")
        chat.expect("›")
        finish(chat)

        chat = spawn_chat(fake.base_url, chat_env, project)  # declined: not asked again
        chat.expect("›")
        one_turn(chat, "three", "Three.")
        finish(chat)
        requests = fake.requests()
    finally:
        fake.stop()
    assert "ROOT-RULE" in system_text(requests[0])
    assert "NEW-RULE" not in system_text(requests[1]) + system_text(requests[2])
    assert "ROOT-RULE" not in system_text(requests[1]) + system_text(requests[2])


def test_another_folder_asks_only_about_its_own_file_and_a_no_keeps_the_trusted_ones(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    project = make_project(tmp_path)
    fake = FakeModelProcess(tmp_path, [{"text": "One."}, {"text": "Two."}, {"text": "Three."}])
    try:
        chat = spawn_chat(fake.base_url, chat_env, project)  # the root finds ./AGENTS.md alone
        chat.expect("›")
        chat.send("one\r")
        chat.expect(r"Use these instruction files in this project\?")
        chat.send("y")
        chat.expect("One.")
        chat.expect("›")
        finish(chat)

        chat = spawn_chat(fake.base_url, chat_env, project / "sub")
        chat.expect("›")
        chat.send("two\r")
        chat.expect(r"Use these instruction files in this project\?")
        dialog = flat(chat.before)
        assert squeezed("new: ./sub/CLAUDE.md") in dialog
        assert squeezed("already trusted: ./AGENTS.md") in dialog
        assert squeezed("./AGENTS.md: instruction file") not in dialog  # not asked again
        chat.send("n")
        chat.expect("Two.")
        chat.expect("›")
        finish(chat)

        chat = spawn_chat(fake.base_url, chat_env, project / "sub")  # both decided: no question
        chat.expect("›")
        one_turn(chat, "three", "Three.")
        finish(chat)
        requests = fake.requests()
    finally:
        fake.stop()
    for request in requests:
        assert "ROOT-RULE" in system_text(request)
        assert "SUB-RULE" not in system_text(request)


def context_numbers(screen: str) -> dict[str, int]:
    """`/context` rows by name: `  messages     15 tokens  2 messages` -> {"messages": 15}."""
    rows = re.findall(r"^\s*([a-z][a-z -]*?)\s+([\d,]+) tokens?", screen, re.MULTILINE)
    return {name: int(number.replace(",", "")) for name, number in rows}


def test_context_counts_what_the_next_request_sends(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    import litellm

    project = make_project(tmp_path)
    turns = [{"text": "Counted."}, {"text": "Again."}]
    with scripted_chat(tmp_path, turns, chat_env, project / "sub") as (chat, fake):
        chat.expect("›")
        chat.send("hello\r")
        chat.expect(r"Use these instruction files in this project\?")
        chat.send("y")
        chat.expect("Counted.")
        chat.expect("›")
        chat.send("/context\r")
        chat.expect("The next request to openai/fake-model \\(counted by litellm's token counter")
        chat.expect(r"total\s+[\d,]+ tokens +context window unknown")
        shown = context_numbers(chat.before + chat.after)
        assert "./AGENTS.md, ./sub/CLAUDE.md" in chat.before
        chat.expect("›")
        one_turn(chat, "again", "Again.")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        request = fake.requests()[1]["body"]
    sent = request["messages"][:-1]  # the next request, before "again" was typed

    def count(**what: Any) -> int:
        # Another test may have loaded litellm through agent's loader, which turns it off.
        was, litellm.disable_token_counter = litellm.disable_token_counter, False
        try:
            return int(litellm.token_counter(model="openai/fake-model", **what))
        finally:
            litellm.disable_token_counter = was

    assert shown["total"] == count(messages=sent, tools=request["tools"])
    assert shown["system prompt"] == count(messages=sent[:1])
    parts = ("system prompt", "tools", "messages", "attachments")
    assert sum(shown[name] for name in parts) == shown["total"]
    assert shown["instruction files"] > 0
    # read_file, list_files, search_files, write_file, edit_file, run_command, update_todos,
    # delegate and the 2 skill tools
    assert shown["tools"] > 0 and len(request["tools"]) == 10
