"""Untrusted text is made safe before it reaches the terminal."""

from __future__ import annotations

from agent.text import sanitize, sanitize_line
from agent.ui.approval_dialog import wrap_for_screen


def test_escape_sequences_and_invisible_reordering_characters_become_visible() -> None:
    assert sanitize("a\x1b[2Jb\x9bc\x07") == "a\\x1b[2Jb\\x9bc\\x07"
    assert sanitize("rm\u202e-rf\u200b /") == "rm\\u202e-rf\\u200b /"
    assert sanitize("tabs\tand\nlines stay") == "tabs\tand\nlines stay"
    assert sanitize_line("one\ntwo\tthree") == "one\\ntwo\\tthree"


def test_long_lines_wrap_to_the_screen_instead_of_running_off_it() -> None:
    assert wrap_for_screen(["x" * 25, "short"], 20) == ["x" * 19, "    " + "x" * 6, "short"]
    assert wrap_for_screen(["日本語" * 4], 12) == [
        "日本語日本",
        "    語日本",
        "    語日本",
        "    語",
    ]
