"""Attack: a hostile model (or one steered by injected text) writes its task list to reach the
terminal: steps whose text holds a title-setting OSC, a screen clear, a carriage return drawing
`✓ approved` over the line, a bidi override; or a list of thousands of steps, or one step of
200,000 characters, to bury the chat and the model's own context. Step text is model text: it
reaches the screen (the transcript, `/todos`, the spinner's label) only sanitised, one line per
step; a list over the bounds is refused whole with a short error, nothing kept. The real
`agent` in a pty against the scripted model as a process."""

from __future__ import annotations

import io
from pathlib import Path

import pexpect

from tests.pty_chat import scripted_chat

INJECTED = ["\x1b]0;pwned", "\x1b[2J", "\x07", "\u202e"]
HOSTILE = "Read \x1b]0;pwned\x07 the \x1b[2J code\r  ✓ approved \u202eevil"


def todos_call(call_id: str, steps: list[dict[str, str]]) -> dict[str, object]:
    return {"id": call_id, "name": "update_todos", "arguments": {"todos": steps}}


def test_escape_sequences_in_a_step_are_shown_as_visible_escapes_on_one_line(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    steps = [{"text": HOSTILE, "status": "in_progress"}, {"text": "next", "status": "pending"}]
    turns = [{"tool_calls": [todos_call("t1", steps)]}, {"text": "Planned.", "delay_before": 1.5}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, _fake):
        log = io.StringIO()
        chat.logfile_read = log
        chat.expect("›")
        chat.send("plan\r")
        chat.expect("Planned.")
        chat.expect("›")
        chat.send("/todos\r")
        chat.expect("○ next")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    drawn = log.getvalue()
    for sequence in INJECTED:
        assert sequence not in drawn, repr(sequence)
    shown = "▸ Read \\x1b]0;pwned\\x07 the \\x1b[2J code\\x0d  ✓ approved \\u202eevil"
    assert drawn.count(shown) >= 2  # the transcript and /todos, each on one line


def test_a_list_of_thousands_of_steps_or_one_huge_step_is_refused_short_and_kept_out(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    many = [{"text": f"step {n} " + "x" * 200, "status": "pending"} for n in range(5000)]
    huge = [{"text": "y" * 200_000, "status": "in_progress"}]
    turns = [
        {"tool_calls": [todos_call("t1", many), todos_call("t2", huge)]},
        {"text": "Refused, then."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        log = io.StringIO()
        chat.logfile_read = log
        chat.expect("›")
        chat.send("plan\r")
        chat.expect("Refused, then.")
        chat.expect("›")
        chat.send("/todos\r")
        chat.expect("No task list yet")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    drawn = log.getvalue()
    assert len(drawn) < 20_000, len(drawn)
    results = [m for m in requests[1]["body"]["messages"] if m["role"] == "tool"]
    assert [len(m["content"]) < 400 for m in results] == [True, True], results
    assert "at most 50 steps; this list has 5000" in results[0]["content"]
    assert "step 1's text is 200,000 characters" in results[1]["content"]
    assert "step 0 xxx" not in requests[1]["body"]["messages"][0]["content"]
