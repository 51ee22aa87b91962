"""A hostile session file's subagent events (issue 41): a resumed session lists its subagents
(`/agents`, `/agents N`) from the file, which anyone who could write it chose. Every field of
theirs that reaches the terminal is someone else's text: none may draw escape sequences or
break a line of ours, the status an end event gives included."""

from __future__ import annotations

from pathlib import Path

from tests.pty_chat import finish, model_args, spawn_agent
from tests.ui.session_files import turn, write_session

SESSION = "20261129-143501-5ab7c1"
NOWHERE = "http://127.0.0.1:9/v1"  # nothing is sent: the chat only resumes and lists
# A window title set, the screen cleared, and a line break forging a row of /agents.
FORGED = "\x1b]0;FORGED-TITLE\x07\x1b[2J\nFORGED-ROW"


def forged_subagent() -> list[dict[str, object]]:
    return [
        *turn("look around", "done"),
        {"type": "subagent_start", "agent": 1, "label": f"explore #1{FORGED}",
         "agent_kind": "explore", "task": f"a task{FORGED}", "model": f"m{FORGED}",
         "parent": None, "call_id": "d1"},
        {"type": "subagent", "agent": 1, "event": {"type": "user", "content": "a task"}},
        {"type": "subagent", "agent": 1, "event": {"type": "assistant", "content": f"hm{FORGED}"}},
        {"type": "subagent_end", "agent": 1, "status": f"answered{FORGED}",
         "answer": f"an answer{FORGED}", "prompt_tokens": 1, "completion_tokens": 1},
    ]  # fmt: skip


def test_a_forged_subagent_in_a_resumed_session_draws_nothing_on_the_terminal(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write_session(agent_home, SESSION, project, forged_subagent())
    chat = spawn_agent([*model_args(NOWHERE), "--resume", SESSION], chat_env, project)
    try:
        chat.expect(f"Resumed {SESSION}")
        chat.expect("›")
        chat.send("/agents\r")
        chat.expect("1 subagent in this session")
        chat.expect("›")
        listing = chat.before
        chat.send("/agents 1\r")
        chat.expect("answer given to its parent:")
        chat.expect("›")
        shown = listing + chat.before
        finish(chat)
    finally:
        chat.close(force=True)
    assert "FORGED-TITLE" in shown  # the fields were shown, as visible text
    assert "\x1b]0;" not in shown and "\x1b[2J" not in shown
    # In the listing each forged break stays on the line of ours it is in (escaped as \n).
    rows = [line for line in listing.splitlines() if "FORGED-ROW" in line]
    assert rows and all("\\nFORGED-ROW" in line for line in rows)
