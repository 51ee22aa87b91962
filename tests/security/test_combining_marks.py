"""Attack: Zalgo text. A base letter followed by hundreds of combining marks (U+0300-U+036F,
U+1AB0.., U+1DC0.., U+20D0.., U+FE20..) is one cell wide, but many terminals stack the marks
above and below it, far over the rows around it: a tool argument, a result or an answer made
of such letters paints over the approval's own lines (its title, the line above, the
question) or blacks them out, so what seems to be shown is no longer what is asked.

Real text stacks at most three marks on one letter (Hebrew with niqqud, Devanagari, Thai,
Vietnamese written decomposed: tests/test_text.py keeps them untouched), so sanitize keeps
three marks in a row and shows the rest as escapes: nothing that reaches the terminal stacks
higher than real text does. A stream (the answer, arriving a few marks at a time) counts a run
across its chunks. The real `agent` in a pseudo-terminal, the scripted model as a process, a
real MCP server; what is checked is what the terminal received."""

from __future__ import annotations

import io
import unicodedata
from pathlib import Path

import pexpect

from tests.pty_chat import FakeModelProcess, oneshot_in_terminal, scripted_chat

MARKS_ABOVE = "".join(chr(code) for code in range(0x0300, 0x0315))
MARKS_ELSEWHERE = "\u1ab0\u1ab1\u1dc0\u1dc1\u20d0\u20d1\u20dd\ufe20\ufe21\u0489"
# One letter with 300 marks, the way Zalgo generators mix them.
ZALGO = "Z" + ((MARKS_ABOVE + MARKS_ELSEWHERE) * 10)[:300]
KEPT = 3


def tallest_stack(drawn: str) -> int:
    """The longest run of combining marks (Unicode category M) the terminal received."""
    tallest = run = 0
    for char in drawn:
        run = run + 1 if unicodedata.category(char).startswith("M") else 0
        tallest = max(tallest, run)
    return tallest


def shown(zalgo: str) -> str:
    """How `zalgo` reads once sanitized: its letter, three marks, then the rest as escapes."""
    return zalgo[: 1 + KEPT] + "".join(f"\\u{ord(mark):04x}" for mark in zalgo[1 + KEPT :])


def test_a_zalgo_argument_cannot_draw_over_the_approvals_own_lines(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    text = f"the line above\n{ZALGO}\nthe line below"
    call = {"id": "c1", "name": "mcp__fx__echo", "arguments": {"text": text}}
    turns = [{"tool_calls": [call]}, {"text": "Echoed."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("go\r")
        chat.expect("Allow this tool call\\?")
        chat.expect("Approve\\?")
        drawn = chat.before
        chat.send("y")
        chat.expect("Echoed.")
        result = chat.before
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    # The rows around the Zalgo line are drawn, and no stack taller than real text's reached
    # the terminal: the 297 other marks are escapes, readable and one cell each.
    assert "1 │ the line above" in drawn and "3 │ the line below" in drawn
    assert "fx · echo" in drawn
    assert tallest_stack(drawn) <= KEPT, tallest_stack(drawn)
    assert shown(ZALGO)[:60] in drawn
    # The result the server gave back is shown the same way.
    assert tallest_stack(result) <= KEPT, tallest_stack(result)
    # What was approved is what the server received and answered: every mark, as sent.
    assert requests[1]["body"]["messages"][-1]["content"] == text


def test_a_zalgo_answer_streamed_a_few_marks_at_a_time_never_stacks_on_the_terminal(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    # Split into 150 deltas of two marks or so: each delta alone is short enough to pass.
    answer = f"Before. {ZALGO} After."
    turns = [{"text": answer, "text_chunks": 150}]
    fake = FakeModelProcess(tmp_path, turns)
    try:
        oneshot = oneshot_in_terminal(fake.base_url, "hello", chat_env, tmp_path)
        oneshot.expect(pexpect.EOF)
        drawn = oneshot.before
        oneshot.close()
    finally:
        fake.stop()
    assert oneshot.exitstatus == 0, drawn
    assert "Before." in drawn and "After." in drawn
    assert tallest_stack(drawn) <= KEPT, tallest_stack(drawn)


def test_a_zalgo_answer_in_the_chat_never_stacks_on_the_terminal(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    answer = f"Before.\n\n{ZALGO} {ZALGO}\n\nAfter."
    turns = [{"text": answer, "text_chunks": 150}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, _):
        log = io.StringIO()
        chat.logfile_read = log
        chat.expect("›")
        chat.send("hello\r")
        chat.expect("After.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    drawn = log.getvalue()
    assert "Before." in drawn
    assert tallest_stack(drawn) <= KEPT, tallest_stack(drawn)
