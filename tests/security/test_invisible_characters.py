"""Invisible, direction-changing and line-breaking characters are shown, never obeyed.

The attack: text from a model, a server, a skill or a session file holds characters a
terminal does not show (zero-width, tags, fillers) or that reorder what it shows (bidi
controls), so a person reads something other than what is there.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import unicodedata
from pathlib import Path

import pytest

from agent.text import sanitize, sanitize_line

AGENT = str(Path(sys.executable).with_name("agent"))

# The characters the review named, one of each kind.
NAMED = (
    [chr(c) for c in range(0x202A, 0x202F)]  # bidi embeddings and overrides
    + [chr(c) for c in range(0x2066, 0x206A)]  # bidi isolates
    + ["\u061c", "\u200b", "\u200c", "\u200d", "\u200e", "\u200f"]
    + ["\u2060", "\u2061", "\u2062", "\u2063", "\u2064", "\ufeff", "\u00ad", "\u180e"]
    + ["\u3164", "\u115f", "\u1160", "\uffa0", "\ufff9", "\ufffa", "\ufffb"]
    + ["\U000e0000", "\U000e0001", "\U000e0041", "\U000e007f"]  # tag characters
    + ["\ud800", "\udfff"]  # lone surrogates
    + ["\x00", "\x1b", "\x7f", "\x85", "\x9b"]  # C0 and C1 controls
)
LINE_BREAKS = ["\n", "\r", "\x0b", "\x0c", "\x85", "\u2028", "\u2029", "\x1c", "\x1d", "\x1e"]


def _escape(char: str) -> str:
    code = ord(char)
    if code <= 0xFF:
        return f"\\x{code:02x}"
    return f"\\u{code:04x}" if code <= 0xFFFF else f"\\U{code:08x}"


@pytest.mark.parametrize("char", NAMED, ids=[f"U+{ord(c):04X}" for c in NAMED])
def test_each_named_invisible_character_is_shown_as_an_escape(char: str) -> None:
    assert sanitize(f"a{char}b") == f"a{_escape(char)}b"
    assert sanitize_line(f"a{char}b") == f"a{_escape(char)}b"


def test_every_format_control_and_separator_character_of_unicode_is_shown() -> None:
    for code in range(0x110000):
        char = chr(code)
        if unicodedata.category(char) in ("Cf", "Cc", "Cs", "Zl", "Zp") and char not in "\n\t":
            assert sanitize(char) == _escape(char), f"U+{code:04X}"


def test_one_line_text_shows_every_line_break_so_it_stays_one_line() -> None:
    for char in LINE_BREAKS:
        shown = sanitize_line(f"name{char}agent: trusted")
        assert shown.splitlines() == [shown], repr(char)
        assert len(shown.split("\n")) == 1
    assert sanitize_line("a\nb\tc") == "a\\nb\\tc"
    assert sanitize("kept\nand\tkept") == "kept\nand\tkept"


def test_sessions_list_show_and_json_export_show_a_hostile_title_escaped(
    agent_home: Path, tmp_path: Path
) -> None:
    from agent.session.events import UserEvent
    from agent.session.store import SessionWriter

    title = "fix \u202eexe.txt\u2028agent: session trusted\u200b\U000e0041"
    writer = SessionWriter.create(tmp_path, "openai/fake-model")
    writer.record(UserEvent(title))
    writer.close()
    session_id = writer.header.id

    listed = _agent("sessions", "list", "--all", cwd=tmp_path)
    shown = _agent("sessions", "show", session_id, cwd=tmp_path)
    exported = _agent("sessions", "export", session_id, "--format", "json", cwd=tmp_path)

    for output in (listed, shown, exported):
        for char in ("\u202e", "\u2028", "\u200b", "\U000e0041"):
            assert char not in output
    title_lines = [line for line in listed.splitlines() if "fix " in line]
    assert len(title_lines) == 1
    assert "fix \\u202eexe.txt" in title_lines[0]  # the title ends at the first line break
    assert not any(line.startswith("agent:") for line in shown.splitlines())
    events = json.loads(exported)["events"]
    assert events[0]["content"] == title  # still the same string, only spelled with escapes


def _agent(*args: str, cwd: Path) -> str:
    done = subprocess.run(
        [AGENT, *args], cwd=cwd, capture_output=True, text=True, timeout=60, check=False
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.parametrize("output_format", ["json", "stream-json"])
def test_one_shot_json_output_spells_invisible_characters_as_escapes(
    output_format: str, tmp_path: Path
) -> None:
    from tests.fake_openai import FakeOpenAI

    answer = "run \u202eexe.txt\u200b now\U000e0041\u2028done"
    env = {**os.environ, "OPENAI_API_KEY": "sk-test", "HOME": str(tmp_path)}
    env.pop("AGENT_MODEL", None)
    with FakeOpenAI([{"text": answer}]) as fake:
        done = subprocess.run(
            [AGENT, "--model", "openai/fake-model", "--api-base", fake.base_url,
             "--output-format", output_format, "-p", "go"],
            cwd=tmp_path, env=env, capture_output=True, text=True, timeout=60, check=False,
            start_new_session=True,
        )  # fmt: skip

    assert done.returncode == 0, done.stderr
    for char in ("\u202e", "\u200b", "\U000e0041", "\u2028"):
        assert char not in done.stdout
    objects = [json.loads(line) for line in done.stdout.splitlines() if line.strip()]
    assert answer in json.dumps(objects, ensure_ascii=False)  # the same text, only escaped
