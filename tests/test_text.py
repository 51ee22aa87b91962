"""Untrusted text is made safe before it reaches the terminal."""

from __future__ import annotations

import ast
import itertools
import json
import re
import unicodedata
from pathlib import Path

from agent.text import (
    INVISIBLE_RANGES,
    MARK_RANGES,
    UNICODE_VERSION,
    StreamSanitizer,
    escape_json_text,
    noun_for,
    plural,
    sanitize,
    sanitize_line,
    sanitize_name,
    scan_invisible_ranges,
    scan_mark_ranges,
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


def test_the_mark_table_is_this_pythons_unicode_data() -> None:
    scanned = set(_codes(scan_mark_ranges()))
    table = set(_codes(MARK_RANGES))
    if unicodedata.unidata_version == UNICODE_VERSION:
        assert scanned == table
    else:
        assert scanned <= table, "run `python -m agent.text` and paste its output into text.py"


# Real text in scripts that stack marks, at its tallest (three marks on one letter).
REAL_TEXT = {
    "Vietnamese, decomposed": unicodedata.normalize("NFD", "Tiếng Việt: người, được, Nguyễn"),
    "Hindi": "हिन्दी में क़ुँवर, कुँआ और क्षत्रिय",
    "Thai": "ภาษาไทย ปู่ กี่ น้ำ ก็ ผู้",
    "Arabic with harakat": "بِسْمِ ٱللَّهِ ٱلرَّحْمَٰنِ ٱلرَّحِيمِ",
    "Hebrew with niqqud": "בְּרֵאשִׁית בָּרָא אֱלֹהִים אֵת הַשָּׁמַיִם",
    "polytonic Greek, decomposed": unicodedata.normalize("NFD", "ᾄδω Ἀθηνᾶ ᾗ"),
    "Tibetan": "བསྒྲུབས ཧཱུྃ",
    "emoji": "👍🏽 ❤️ 1️⃣ 🇫🇷 ⚠️ 🎉🚀✨👍🏽🇫🇷",
}


def test_real_text_in_every_script_that_stacks_marks_is_untouched() -> None:
    for script, text in REAL_TEXT.items():
        assert sanitize(text) == text, script
        assert sanitize_line(text) == text, script
    # A zero-width joiner was an escape before marks were counted, and still is.
    assert sanitize("👨\u200d👩\u200d👧") == "👨\\u200d👩\\u200d👧"


def test_a_run_of_marks_keeps_three_and_shows_the_rest_as_escapes() -> None:
    zalgo = "Z\u0301\u0302\u0303\u0304\u1ab0\U0001d167e"
    assert sanitize(zalgo) == "Z\u0301\u0302\u0303\\u0304\\u1ab0\\U0001d167e"
    # An invisible character between marks is an escape: the marks after it stand on it.
    assert sanitize("a\u0301\u0302\u034f\u0303") == "a\u0301\u0302\\u034f\u0303"
    escaped = escape_json_text(json.dumps({"z": zalgo}, ensure_ascii=False))
    assert "\u0304" not in escaped and json.loads(escaped) == {"z": zalgo}


def test_a_stream_counts_a_run_of_marks_across_its_pieces() -> None:
    text = "one Z" + "\u0301\u0302\u20dd" * 40 + " two \u202e" + "e\u0301" * 5
    for size in (1, 2, 3, 5, 7):
        stream = StreamSanitizer()
        pieces = [text[at : at + size] for at in range(0, len(text), size)]
        assert "".join(stream.feed(piece) for piece in pieces) == sanitize(text), size


def test_a_name_is_one_line_cut_with_an_ellipsis() -> None:
    assert sanitize_name("short\nname") == "short\\nname"
    assert sanitize_name("n" * 100_000, 10) == "n" * 10 + "…"
    assert sanitize_name("n" * 10, 10) == "n" * 10


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


def test_a_count_and_its_noun_agree_in_number() -> None:
    assert [plural(n, "tool") for n in (0, 1, 2, 1234)] == [
        "0 tools",
        "1 tool",
        "2 tools",
        "1,234 tools",
    ]
    assert plural(1, "entry", "entries") == "1 entry"
    assert plural(3, "entry", "entries") == "3 entries"
    assert [noun_for(n, "server") for n in (1, 2)] == ["server", "servers"]


def _counted_nouns(path: Path) -> list[str]:
    """Places in `path` that print a count followed by a noun fixed in the plural, or a
    `word(s)` that leaves the number to the reader (`http(s)` is a scheme, not a count)."""
    found = []
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.Constant) and isinstance(node.value, str):
            if re.search(r"[a-z]\(s\)", node.value.replace("http(s)", "")):
                found.append(f"{path}:{node.lineno}: {node.value!r}")
        elif isinstance(node, ast.JoinedStr):
            for value, after in itertools.pairwise(node.values):
                counted = isinstance(value, ast.FormattedValue) and ast.unparse(
                    value.value
                ).startswith("len(")
                text = after.value if isinstance(after, ast.Constant) else None
                if counted and isinstance(text, str) and re.match(r" (more )?[a-z]+s\b", text):
                    found.append(f"{path}:{node.lineno}: {ast.unparse(node)}")
    return found


def test_agent_never_prints_a_counted_noun_in_a_fixed_number() -> None:
    """`1 tools` and `skill(s)` read badly: counts go through agent.text.plural."""
    root = Path(__file__).resolve().parent.parent / "agent"
    found = [line for path in sorted(root.rglob("*.py")) for line in _counted_nouns(path)]
    assert found == []
