"""Sessions as a person meets them in the chat: the real `agent` in a pseudo-terminal, the
scripted model server as a process, session files on disk.

Resuming draws the conversation again; a chat that ends says how to continue it; the
--resume chooser is not split by a server's notice; one-shot runs are listed after the chats;
/compact and /export say plainly what they did."""

from __future__ import annotations

import json
import os
import re
import stat
import subprocess
import time
from pathlib import Path

import pexpect
import pytest

from tests import deadlines
from tests.pty_chat import (
    AGENT,
    FakeModelProcess,
    finish,
    model_args,
    scripted_chat,
    spawn_agent,
)
from tests.ui.session_files import tool_turn, turn, write_session

SESSION = "20261129-143501-3f9a2c"
NOWHERE = "http://127.0.0.1:9/v1"  # a model address for chats that send nothing


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / ".git").mkdir(parents=True)
    return folder


def attachment(server: str, uri: str) -> str:
    """An attached resource's text part, as agent/chat/attachments.py delimits it."""
    label = f"server={json.dumps(server)} uri={json.dumps(uri)}"
    return (
        f'<attachment boundary="0123456789abcdef" {label} note="data">\nhello\n'
        '</attachment boundary="0123456789abcdef">'
    )


def screen_lines(output: str) -> list[str]:
    """The lines of `output` without the terminal's control sequences (prompt_toolkit's)."""
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", output)
    text = re.sub(".\x08", "", text)  # a character its backspace took back
    return [line.replace("\r", "").rstrip() for line in text.split("\n")]


def long_session() -> list[dict[str, object]]:
    """Twelve plain turns, one with a tool call and a Markdown answer, one that attached a
    resource and whose call the person declined."""
    events: list[dict[str, object]] = []
    for number in range(12):
        events += turn(f"question {number}", f"answer {number}")
    events += tool_turn(
        "read the readme",
        "c1",
        "read_file",
        '{"path": "README.md"}',
        "line one\nline two\nline three",
        "# Plan\n\n- **first** step\n- second step",
    )
    events += [
        {
            "type": "user",
            "content": "summarise @fx:doc://notes",
            "parts": [{"type": "text", "text": attachment("fx", "doc://notes")}],
        },
        {
            "type": "assistant",
            "content": None,
            "tool_calls": [{"id": "c2", "name": "mcp__fx__echo", "arguments": '{"text": "hi"}'}],
        },
        {
            "type": "approval",
            "tool_call_id": "c2",
            "tool": "mcp__fx__echo",
            "approved": False,
            "reason": "not now",
        },
        {
            "type": "tool_result",
            "tool_call_id": "c2",
            "content": "Error: The person declined this tool call. Their reason: not now",
        },
        {"type": "assistant", "content": "Fine, I will not."},
    ]
    return events


def test_resume_draws_the_last_turns_as_the_chat_drew_them(
    project: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    write_session(agent_home, SESSION, project, long_session())
    chat = spawn_agent([*model_args(NOWHERE), "--resume", SESSION], chat_env, project)
    try:
        chat.expect(f"Resumed {SESSION}: 32 messages.")
        screen = chat.before
        chat.expect("›")
        finish(chat)
    finally:
        chat.close(force=True)

    lines = screen_lines(screen)
    start = lines.index(
        f"… 4 earlier turns not shown (agent sessions show {SESSION} prints the whole session)"
    )
    assert lines[start + 1 : start + 3] == ["› question 4", "answer 4"]
    assert "› question 3" not in lines
    drawn = lines[lines.index("› read the readme") :]
    assert drawn[:3] == [
        "› read the readme",
        '⏺ read_file {"path": "README.md"}',
        "  ⎿ 3 lines, 28 characters",
    ]
    # The answer as Markdown: a heading centred, bullets drawn, no ** left.
    assert drawn[3].strip() == "Plan"
    assert [line for line in drawn if "•" in line] == [" • first step", " • second step"]
    assert "**" not in screen and "# Plan" not in screen
    # Blank lines left out: on a loaded machine more of them came before the "Resumed" line.
    assert [line for line in drawn if line][-5:] == [
        "› summarise @fx:doc://notes",
        "  ⎿ attached @fx:doc://notes",
        "⏺ fx › echo (mcp__fx__echo)",  # as the chat titled it: arguments were in the dialog
        "  ✗ declined: not now",
        "Fine, I will not.",
    ]


def test_a_chat_ends_with_how_to_continue_it_and_that_brings_it_back(
    tmp_path: Path, project: Path, chat_env: dict[str, str]
) -> None:
    answers = [{"text": "The answer is **blue**."}, {"text": "You asked about colours."}]
    with scripted_chat(tmp_path, answers, chat_env, project) as (chat, fake):
        chat.expect("›")
        chat.send("which colour?\r")
        chat.expect("The answer is blue.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(r"to continue: agent --resume (\d{8}-\d{6}-[0-9a-f]{6})\r\n")
        session_id = chat.match.group(1)
        chat.expect(pexpect.EOF)

        again = spawn_agent([*model_args(fake.base_url), "--resume", session_id], chat_env, project)
        try:
            again.expect(f"Resumed {session_id}: 2 messages.")
            replayed = again.before
            again.expect("›")
            again.send("what did I ask?\r")
            again.expect("You asked about colours.")
            finish(again)
        finally:
            again.close(force=True)
        requests = fake.requests()

    assert "› which colour?" in replayed and "The answer is blue." in replayed
    assert [m["content"] for m in requests[-1]["body"]["messages"][1:]] == [
        "which colour?",
        "The answer is **blue**.",
        "what did I ask?",
    ]


def test_a_chat_with_nothing_said_ends_without_a_session_to_continue(
    project: Path, chat_env: dict[str, str]
) -> None:
    chat = spawn_agent(model_args(NOWHERE), chat_env, project)
    try:
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    finally:
        chat.close(force=True)
    assert "to continue" not in chat.before


def _children_running(pid: int, name: str) -> bool:
    """Whether a descendant of `pid` runs a command line holding `name`."""
    parents: dict[int, int] = {}
    lines: dict[int, str] = {}
    for entry in Path("/proc").iterdir():
        if not entry.name.isdigit():
            continue
        try:
            fields = (entry / "stat").read_text().rsplit(")", 1)[1].split()
            parents[int(entry.name)] = int(fields[1])
            lines[int(entry.name)] = (entry / "cmdline").read_bytes().decode(errors="replace")
        except (OSError, IndexError, ValueError):
            continue
    for child, line in lines.items():
        ancestor = parents.get(child)
        while ancestor is not None and ancestor > 1:
            if ancestor == pid and name in line:
                return True
            ancestor = parents.get(ancestor)
    return False


def test_the_resume_chooser_holds_a_servers_notice_until_it_closes(
    project: Path, agent_home: Path, chat_env: dict[str, str], trusted_fixture_server: None
) -> None:
    write_session(agent_home, SESSION, project, turn("earlier question", "earlier answer"))
    chat = spawn_agent([*model_args(NOWHERE), "--resume"], chat_env, project)
    try:
        chat.expect("Resume which one \\(number or id, Enter to cancel\\)\\?")
        listed = chat.before
        # The server starts while the chooser is open, and says it is ready soon after.
        deadline = time.monotonic() + 30
        while not _children_running(chat.pid, "tools_server.py"):
            assert time.monotonic() < deadline, "the MCP server never started"
            time.sleep(0.2)
        chat.expect(pexpect.TIMEOUT, timeout=3)  # what reaches the screen meanwhile
        meanwhile = chat.before
        chat.send("1\r")
        chat.expect(f"Resumed {SESSION}: 2 messages.")
        chat.expect("MCP server fx ready")
        chat.expect("›")
        finish(chat)
    finally:
        chat.close(force=True)
    # The list comes through patch_stdout's thread, so it may be drawn after the question.
    assert f"1. {SESSION}" in listed + meanwhile and "earlier question" in listed + meanwhile
    assert "ready" not in listed + meanwhile


def run_one_shot(env: dict[str, str], cwd: Path, base_url: str, prompt: str) -> None:
    done = subprocess.run(
        [AGENT, *model_args(base_url), "-p", prompt],
        env=env,
        cwd=cwd,
        capture_output=True,
        text=True,
        timeout=60,
        start_new_session=True,
        check=False,
    )
    assert done.returncode == 0, done.stderr


def session_headers(agent_home: Path) -> dict[str, dict[str, object]]:
    """Each session file's header by its id."""
    headers = {}
    for path in (agent_home / "sessions").glob("*.jsonl"):
        header = json.loads(path.read_text().splitlines()[0])
        headers[header["id"]] = header
    return headers


def test_one_shot_runs_are_saved_marked_and_listed_after_the_chats(
    tmp_path: Path, project: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    answers = [
        {"text": "Chat answer."},
        {"text": "Hello."},
        {"text": "Hello again."},
    ]
    fake = FakeModelProcess(tmp_path, answers)
    try:
        chat = spawn_agent(model_args(fake.base_url), chat_env, project)
        try:
            chat.expect("›")
            chat.send("plan the release of version two with the changelog\r")
            chat.expect("Chat answer.")
            chat.expect("›")
            # Both runs are newer than the chat, and still listed after it.
            run_one_shot(chat_env, project, fake.base_url, "hi")
            run_one_shot(chat_env, project, fake.base_url, "hi again")
            chat.send("/sessions\r")
            chat.expect(r"3\. .*\r\n")
            listed = chat.before + chat.after
            # No wait for the prompt here: on a loaded machine its redraw can come between the
            # listing's rows (it was consumed before row 3 and the wait timed out); /exit is
            # read once the listing is done either way.
            finish(chat)
        finally:
            chat.close(force=True)
    finally:
        fake.stop()

    headers = session_headers(agent_home)
    marked = sorted(h.get("one_shot") is True for h in headers.values())
    assert marked == [False, True, True]
    assert all("one_shot" not in h for h in headers.values() if h.get("one_shot") is not True)
    rows = [line.strip() for line in screen_lines(listed) if re.match(r"\s+\d\. ", line)]
    assert rows[0].startswith("1. ") and rows[0].endswith(
        "plan the release of version two with the changelog (current)"
    )
    assert rows[1].endswith("[-p] hi again") and rows[2].endswith("[-p] hi")

    listing = subprocess.run(
        [AGENT, "sessions", "list"],
        env={**chat_env, "COLUMNS": "140"},
        cwd=project,
        capture_output=True,
        text=True,
        timeout=deadlines.PROCESS,
        check=True,
    ).stdout.splitlines()
    assert listing[1].endswith("plan the release of version two with the changelog")
    assert listing[2].endswith("[-p] hi again") and listing[3].endswith("[-p] hi")


def test_compact_on_a_short_chat_is_a_note_not_an_error(
    tmp_path: Path, project: Path, chat_env: dict[str, str]
) -> None:
    with scripted_chat(tmp_path, [{"text": "Short answer."}], chat_env, project) as (chat, fake):
        chat.expect("›")
        chat.send("a short question\r")
        chat.expect("Short answer.")
        chat.expect("›")
        chat.send("/compact\r")
        chat.expect("Nothing to compact yet: the last 2 turns always stay as they are")
        shown = chat.before + chat.after
        chat.expect("›")
        finish(chat)
        assert len(fake.requests()) == 1  # no summary was asked for
    assert "Compacting" not in shown and "error" not in shown


def test_export_says_where_it_wrote_and_takes_a_path(
    tmp_path: Path, project: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    (project / "notes").mkdir()
    with scripted_chat(tmp_path, [{"text": "Exported soon."}], chat_env, project) as (chat, _):
        chat.expect("›")
        chat.send("/export\r")
        chat.expect("Nothing to export yet: this chat has no messages.")
        chat.send("keep this\r")
        chat.expect("Exported soon.")
        chat.expect("›")
        chat.send("/export\r")
        chat.expect(r"Exported this session \(Markdown\) to (\S+) \(readable by you only\)\.")
        default = Path(chat.match.group(1))
        chat.send("/export notes/chat.json\r")
        chat.expect(r"Exported this session \(JSON\) to (\S+) \(readable by you only\)\.")
        chosen = Path(chat.match.group(1))
        chat.send("/export md notes/chat.txt\r")
        chat.expect(r"Exported this session \(Markdown\) to (\S+) ")
        as_markdown = Path(chat.match.group(1))
        chat.send("/export missing/chat.md\r")
        chat.expect(r"error: cannot write \S+: the folder \S+ does not exist; create it first")
        chat.expect("›")
        finish(chat)

    assert default.parent == agent_home / "exports" and default.suffix == ".md"
    assert chosen == project / "notes" / "chat.json"
    assert as_markdown == project / "notes" / "chat.txt"
    for path in (default, chosen, as_markdown):
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert "keep this" in default.read_text() and "keep this" in as_markdown.read_text()
    events = json.loads(chosen.read_text())["events"]
    assert [e.get("content") for e in events if e["type"] == "user"] == ["keep this"]
    assert not (project / "missing").exists()
    assert set(os.listdir(project / "notes")) == {"chat.json", "chat.txt"}  # no temp left


def test_continue_goes_on_from_the_latest_chat_not_a_newer_one_shot_run(
    project: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    chat_id, run_id = "20261129-100000-aaaaaa", "20261130-100000-bbbbbb"
    write_session(agent_home, chat_id, project, turn("the real conversation", "yes"))
    write_session(
        agent_home,
        run_id,
        project,
        turn("hi", "hello"),
        one_shot=True,
        header={"started_at": "2026-11-30T10:00:00.000+00:00"},
    )
    (agent_home / "sessions" / f"{run_id}.jsonl").write_text(
        (agent_home / "sessions" / f"{run_id}.jsonl")
        .read_text()
        .replace("2026-11-29", "2026-11-30")
    )
    chat = spawn_agent([*model_args(NOWHERE), "--continue"], chat_env, project)
    try:
        chat.expect(r"Resumed (\S+): 2 messages\.")
        resumed = chat.match.group(1)
        replayed = chat.before
        chat.expect("›")
        finish(chat)
    finally:
        chat.close(force=True)
    assert resumed == chat_id
    assert "› the real conversation" in replayed


def test_clear_starts_a_new_conversation_and_keeps_the_last_one_to_resume(
    tmp_path: Path, project: Path, chat_env: dict[str, str]
) -> None:
    """`/clear` does what Claude Code's does: a new conversation (the screen cleared too), said
    so, the previous one saved with the id that brings it back."""
    answers = [
        {"text": "The answer is blue."},
        {"text": "Nothing before this."},
        {"text": "You asked about colours."},
    ]
    with scripted_chat(tmp_path, answers, chat_env, project) as (chat, fake):
        chat.expect("›")
        chat.send("which colour?\r")
        chat.expect("The answer is blue.")
        chat.expect("›")
        chat.send("/clear\r")
        chat.expect(
            r"New conversation; the previous one is saved: /resume (\d{8}-\d{6}-[0-9a-f]{6}) "
            "brings it back"
        )
        first_id = chat.match.group(1)
        chat.expect("›")
        chat.send("what did I ask?\r")
        chat.expect("Nothing before this.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(r"to continue: agent --resume (\d{8}-\d{6}-[0-9a-f]{6})\r\n")
        second_id = chat.match.group(1)
        chat.expect(pexpect.EOF)

        again = spawn_agent([*model_args(fake.base_url), "--resume", first_id], chat_env, project)
        try:
            again.expect(f"Resumed {first_id}: 2 messages.")
            again.expect("›")
            again.send("what did I ask?\r")
            again.expect("You asked about colours.")
            finish(again)
        finally:
            again.close(force=True)
        requests = fake.requests()

    assert second_id != first_id
    assert [m["content"] for m in requests[1]["body"]["messages"][1:]] == ["what did I ask?"]
    assert [m["content"] for m in requests[2]["body"]["messages"][1:]] == [
        "which colour?",
        "The answer is blue.",
        "what did I ask?",
    ]
