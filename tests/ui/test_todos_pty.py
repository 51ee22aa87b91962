"""The task list as a person meets it: the real `agent` in a pseudo-terminal against the
scripted model server. The model's update_todos draws the list in the transcript (the current
step highlighted) and names the current step in the spinner while the turn goes on; `/todos`
shows it (and /context counts it); `agent --resume` brings it back, and the next request has it
in its system prompt. `agent -p` keeps stdout for the answer."""

from __future__ import annotations

import re
from pathlib import Path

import pexpect
import pytest

from tests.pty_chat import (
    FakeModelProcess,
    finish,
    model_args,
    oneshot_without_terminal,
    pty_env,
    scripted_chat,
    spawn_agent,
)

STEPS = [
    {"text": "Read the code", "status": "done"},
    {"text": "Write the tests", "status": "in_progress"},
    {"text": "Fix the bug", "status": "pending"},
]
PLAIN = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def plain(screen: str) -> str:
    return PLAIN.sub("", screen).replace("\r", "")


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    (folder / ".git").mkdir(parents=True)
    return folder


def test_the_list_is_drawn_shown_by_slash_todos_and_restored_on_resume(
    tmp_path: Path, project: Path, agent_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    env = pty_env(agent_home, tmp_path, colours=True)
    turns = [
        {"tool_calls": [{"id": "t1", "name": "update_todos", "arguments": {"todos": STEPS}}]},
        # Long enough for the spinner to be drawn with the current step as its label.
        {"text": "Working on the tests.", "delay_before": 2.0},
        {"text": "Going on with the tests."},
    ]
    with scripted_chat(tmp_path, turns, env, project) as (chat, fake):
        chat.expect("›")
        chat.send("fix the bug\r")
        chat.expect("Working on the tests.")
        drawn = chat.before
        chat.expect("›")
        chat.send("/todos\r")
        chat.expect("Fix the bug")
        shown = chat.before + chat.after
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(r"to continue: agent --resume (\d{8}-\d{6}-[0-9a-f]{6})")
        session_id = chat.match.group(1)
        chat.expect(pexpect.EOF)

        again = spawn_agent([*model_args(fake.base_url), "--resume", session_id], env, project)
        try:
            again.expect(f"Resumed {session_id}")
            again.expect("›")
            again.send("/todos\r")
            again.expect("Fix the bug")
            restored = again.before + again.after
            again.expect("›")
            again.send("/context\r")
            again.expect(r"task list\s+0 tokens  3 steps \(in the messages; here once compacted\)")
            again.expect("›")
            again.send("go on\r")
            again.expect("Going on with the tests.")
            finish(again)
        finally:
            again.close(force=True)
        requests = fake.requests()

    lines = plain(drawn).split("\n")
    at = next(i for i, line in enumerate(lines) if "✓ Read the code" in line)
    assert [line.strip() for line in lines[at : at + 3]] == [
        "✓ Read the code",
        "▸ Write the tests",
        "○ Fix the bug",
    ]
    assert "\x1b[1;36m▸ Write the tests\x1b[0m" in drawn  # the current step stands out
    assert re.search(r"[⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏] Write the tests…", plain(drawn))  # the spinner's label
    assert "Task list kept: 3 steps" in plain(drawn)
    for screen in (shown, restored):
        assert re.search(r"✓ Read the code\n\s*▸ Write the tests\n\s*○ Fix the bug", plain(screen))
    # After the resume the model reads the list where it was kept, in the update_todos call
    # of its history; the system prompt stays as it was, so its cached prefix holds.
    last = requests[-1]["body"]["messages"]
    assert "Write the tests" not in last[0]["content"]
    calls = [c for m in last if m["role"] == "assistant" for c in m.get("tool_calls") or []]
    assert [c["function"]["name"] for c in calls] == ["update_todos"]
    assert "Write the tests" in calls[0]["function"]["arguments"]
    # The first request went out before any list was kept: no section yet.
    assert "Write the tests" not in requests[0]["body"]["messages"][0]["content"]


def test_slash_todos_says_when_there_is_no_list_and_new_clears_it(
    tmp_path: Path, project: Path, chat_env: dict[str, str]
) -> None:
    turns = [
        {"tool_calls": [{"id": "t1", "name": "update_todos", "arguments": {"todos": STEPS}}]},
        {"text": "Planned."},
    ]
    with scripted_chat(tmp_path, turns, chat_env, project) as (chat, _fake):
        chat.expect("›")
        chat.send("/todos\r")
        chat.expect("No task list yet")
        chat.expect("›")
        chat.send("plan it\r")
        chat.expect("Planned.")
        chat.expect("›")
        chat.send("/new\r")
        chat.expect("New conversation")
        chat.expect("›")
        chat.send("/todos\r")
        chat.expect("No task list yet")
        finish(chat)


def test_agent_p_keeps_stdout_for_the_answer_and_says_the_update_on_stderr(
    tmp_path: Path, project: Path, chat_env: dict[str, str]
) -> None:
    turns = [
        {"tool_calls": [{"id": "t1", "name": "update_todos", "arguments": {"todos": STEPS}}]},
        {"text": "Done planning."},
    ]
    fake = FakeModelProcess(tmp_path, turns)
    try:
        done = oneshot_without_terminal(fake.base_url, "plan it", chat_env, project)
    finally:
        fake.stop()

    assert done.returncode == 0, done.stderr
    assert done.stdout == "Done planning.\n"
    assert "Task list kept: 3 steps: 1 done, 1 in progress, 1 pending." in done.stderr
