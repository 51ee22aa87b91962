"""A resumed session is drawn again from its file, and anyone could have written that file (or
the model text it keeps): nothing in it reaches the terminal as an escape sequence.

Attack: a hand-written session file whose header id, messages, attachment labels, answer text
(raw escapes, C1 controls, Markdown character references that decode to escapes), tool names,
arguments, error results and decline reasons all carry terminal escapes (a window title, a
screen clear, a hyperlink). Also a session file with a malformed event among them: the replay
goes on without it.
"""

from __future__ import annotations

import json
import re
from pathlib import Path

from tests.pty_chat import finish, model_args, spawn_agent
from tests.ui.session_files import turn, write_session

SESSION = "20261129-143501-3f9a2c"
TITLE = "\x1b]0;pwned\x07"
CLEAR = "\x1b[2J"
LINK = "\x1b]8;;https://example.invalid\x07"
RAW = ("\x1b]0;pwned", "\x1b[2J", "\x1b]8;;", "\x9b", "\x07")


def hostile_attachment() -> str:
    label = f"server={json.dumps('fx' + TITLE)} uri={json.dumps('doc://' + CLEAR)}"
    return f'<attachment boundary="0123456789abcdef" {label} note="x">\nhi\n</attachment>'


def hostile_events() -> list[dict[str, object]]:
    events: list[dict[str, object]] = []
    for number in range(10):  # the 11th turn back is left out: its line names the header's id
        events += turn(f"filler {number}", "ok")
    events += [
        {
            "type": "user",
            "content": f"hello {TITLE} there{CLEAR}\nsecond {LINK}line",
            "parts": [{"type": "text", "text": hostile_attachment()}],
        },
        {
            "type": "assistant",
            "content": f"# Head {CLEAR}\n\ntext \x9b31m red &#x1b;]0;pwned&#7; and &#27;[2J",
            "tool_calls": [
                {"id": "c1", "name": f"read{CLEAR}_file", "arguments": json.dumps({"p": LINK})},
                {"id": "c2", "name": "mcp__fx__echo", "arguments": "{}"},
            ],
        },
        {"type": "tool_result", "tool_call_id": "c1", "content": f"Error: {TITLE} failed"},
        {
            "type": "approval",
            "tool_call_id": "c2",
            "tool": "x",
            "approved": False,
            "reason": f"no {CLEAR}{TITLE}",
        },
        {"type": "tool_result", "tool_call_id": "c2", "content": "Error: declined"},
        {"type": "assistant", "content": 5},  # malformed: left out of the replay
        {"type": "assistant", "content": f"done {LINK}here\x1b[0m"},
    ]
    return events


def test_a_hostile_session_file_is_replayed_with_every_escape_shown_escaped(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    write_session(agent_home, SESSION, project, hostile_events(), header={"id": f"x{TITLE}"})
    chat = spawn_agent(
        [*model_args("http://127.0.0.1:9/v1"), "--resume", SESSION], chat_env, project
    )
    try:
        chat.expect(f"Resumed {SESSION}: ")
        screen = chat.before
        chat.expect("›")
        finish(chat)
    finally:
        chat.close(force=True)

    for raw in RAW:
        assert raw not in screen, repr(raw)
    # Every escape sequence left on screen is prompt_toolkit's own drawing (CSI with only
    # digits, ; and ?), none from the file (whose CSI 2J and 0m are shown escaped).
    ours = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen)
    assert "\x1b" not in ours
    # ... and each piece is there, visibly escaped.
    assert "hello \\x1b]0;pwned\\x07 there\\x1b[2J" in ours
    assert "attached @fx\\x1b]0;pwned\\x07:doc://\\x1b[2J" in ours
    assert "⏺ read\\x1b[2J_file" in ours
    assert "✗ declined: no \\x1b[2J\\x1b]0;pwned\\x07" in ours
    assert "done \\x1b]8;;https://example.invalid\\x07here\\x1b[0m" in ours
    # The way to the whole session names the file, not the header's forged id.
    assert f"agent sessions show {SESSION} prints" in ours and "pwned\\x07 prints" not in ours
