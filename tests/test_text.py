"""Untrusted text is made safe before it reaches the terminal."""

from __future__ import annotations

import json
import unicodedata

from agent.text import (
    INVISIBLE_RANGES,
    UNICODE_VERSION,
    escape_json_text,
    sanitize,
    sanitize_line,
    scan_invisible_ranges,
)
from agent.ui.dialogs.frame import screen_rows


def test_escape_sequences_and_invisible_reordering_characters_become_visible() -> None:
    assert sanitize("a\x1b[2Jb\x9bc\x07") == "a\\x1b[2Jb\\x9bc\\x07"
    assert sanitize("rm\u202e-rf\u200b /") == "rm\\u202e-rf\\u200b /"
    assert sanitize("tabs\tand\nlines stay") == "tabs\tand\nlines stay"
    assert sanitize_line("one\ntwo\tthree") == "one\\ntwo\\tthree"


def test_long_lines_wrap_to_the_screen_instead_of_running_off_it() -> None:
    assert screen_rows(["x" * 25, "short"], 20) == ["x" * 19, "    " + "x" * 6, "short"]
    assert screen_rows(["日本語" * 4], 12) == [
        "日本語日本",
        "    語日本",
        "    語日本",
        "    語",
    ]


def test_the_invisible_table_is_this_pythons_unicode_data() -> None:
    # Generated from Unicode 14.0.0; a newer Python may add format characters: regenerate
    # with `python -m agent.text` (the table must cover at least what this Python knows).
    scanned = set(_codes(scan_invisible_ranges()))
    table = set(_codes(INVISIBLE_RANGES))
    if unicodedata.unidata_version == UNICODE_VERSION:
        assert scanned == table
    else:
        assert scanned <= table, "run `python -m agent.text` and paste its output into text.py"


def test_text_without_invisible_characters_is_returned_unchanged() -> None:
    text = "Grüße, 日本語, emoji 👍🏽 ⚠️, math ∑, tab\tand\nnewline"
    assert sanitize(text) == text


def test_json_escapes_decode_to_the_same_strings_even_beyond_the_plane() -> None:
    value = {"a": "tag\U000e0041 rlo\u202e lone\ud800 fine é\n"}
    escaped = escape_json_text(json.dumps(value, ensure_ascii=False, indent=2))
    assert "é" in escaped  # printable text stays readable
    assert "\u202e" not in escaped and "\U000e0041" not in escaped
    assert json.loads(escaped) == value


def _codes(ranges: tuple[tuple[int, int], ...]) -> list[int]:
    return [code for low, high in ranges for code in range(low, high + 1)]
