"""Markdown character references cannot bring back the characters sanitizing removed.

The attack: the model writes `&#x202e;` (or `&rlm;`, `&#8203;`) instead of the character
itself. The text holds no bidi control when it is sanitized, but markdown-it decodes the
reference, and rich would print the real U+202E, reordering the line on screen.
"""

from __future__ import annotations

from pathlib import Path

import pexpect

from agent.ui.markdown import MarkdownStream, make_console
from tests.pty_chat import pty_env, scripted_chat

REFERENCES = (
    "Run `cat &#x202e;fdp.exe` please &#x202e;gnp.exe &rlm; zero&#8203;width "
    "&#xE0041;tag &#x2028;sep &#x85;nel &shy;hy [link &#x202e;x](https://e.invalid/&#x202e;)\n\n"
    "```&#x202e;py\ncode &#x202e; stays literal\n```\n\n"
    "# head &#x2067;ing\n\n"
    "| a&#x200b; |\n|---|\n| b&#x202e; |\n"
)
DECODED = ("\u202e", "\u200f", "\u200b", "\U000e0041", "\u2028", "\x85", "\u00ad", "\u2067")


def test_references_in_every_kind_of_markdown_block_stay_escaped() -> None:
    stream = MarkdownStream(make_console(color=False, width=100), follow_width=False)
    shown = stream.feed(REFERENCES) + stream.flush()

    for char in DECODED:
        assert char not in shown, f"U+{ord(char):04X}"
    assert "\\u202egnp.exe" in shown
    assert "\\u200f" in shown and "zero\\u200bwidth" in shown and "\\U000e0041tag" in shown
    assert "head \\u2067ing" in shown.replace("\n", " ") or "HEAD \\u2067ING" in shown
    assert "code &#x202e; stays literal" in shown  # inside code a reference is not decoded


def test_the_chat_shows_references_in_a_model_answer_as_escapes(
    tmp_path: Path, agent_home: Path
) -> None:
    turns = [{"text": REFERENCES, "text_chunks": 7}]
    env = pty_env(agent_home, tmp_path, colours=True)
    with scripted_chat(tmp_path, turns, env) as (chat, _fake):
        chat.expect("›")
        chat.send("show me\r")
        chat.expect(r"tokens \d+ in")
        # After the prompt's drawing (it ends switching bracketed paste off): the answer.
        shown = str(chat.before).split("show me", 1)[1].split("\x1b[?2004l", 1)[1]
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()

    assert chat.exitstatus == 0
    for char in DECODED:
        assert char not in shown, f"U+{ord(char):04X}"
    assert "\\u202egnp.exe" in shown
