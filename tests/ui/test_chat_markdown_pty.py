"""The real `agent` in a pseudo-terminal against the fake model server: a Markdown answer is
rendered, and escape sequences the model writes never reach the screen."""

from __future__ import annotations

import re
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from tests.pty_chat import FakeModelProcess, pty_env, spawn_chat
from tests.ui.ui_helpers import screen

ANSWER = (
    "# Release plan\n\n"
    "Ship it **carefully** \x1b]0;pwned\x07 today \x1b[2J now.\n\n"
    "- build the wheel\n"
    "- run the tests \x1b[201~\n\n"
    "```python\n"
    "print('hello')\n"
    "```\n\n"
    "Done."
)
INJECTED = ["\x1b]0;pwned", "\x1b[2J", "\x07", "\x1b[201~"]


@pytest.fixture
def fake_model(tmp_path: Path) -> Iterator[FakeModelProcess]:
    fake = FakeModelProcess(tmp_path, [{"text": ANSWER, "text_chunks": 15}])
    yield fake
    fake.stop()


def answer_on_screen(
    fake: FakeModelProcess, tmp_path: Path, agent_home: Path, **env_changes: str
) -> str:
    """Everything the chat wrote between sending one message and its usage line."""
    env = pty_env(agent_home, tmp_path, colours=True) | env_changes
    chat = spawn_chat(fake.base_url, env, tmp_path, dimensions=(40, 100))
    chat.expect("›")
    chat.send("plan the release\r")
    chat.expect(r"tokens \d+ in")
    shown = chat.before
    chat.expect("›")
    chat.send("/exit\r")
    chat.expect(pexpect.EOF)
    chat.close()
    assert chat.exitstatus == 0
    # The prompt's own drawing ends by switching bracketed paste off; the answer follows,
    # while the type-ahead reader keeps bracketed paste on (our switches, not the model's).
    answer = str(shown).split("plan the release", 1)[1].split("\x1b[?2004l", 1)[1]
    return answer.replace("\x1b[?2004h", "").replace("\x1b[?2004l", "")


def test_a_markdown_answer_is_rendered_in_color_without_the_models_escape_sequences(
    fake_model: FakeModelProcess,
    tmp_path: Path,
    agent_home: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("NO_COLOR", raising=False)
    shown = answer_on_screen(fake_model, tmp_path, agent_home)

    for sequence in INJECTED:
        assert sequence not in shown
    plain = re.sub(r"\x1b\[[0-9;]*m", "", shown)  # our (rich's) colors and styles only
    assert "\x1b" not in plain
    assert "\x1b[1m" in shown  # bold: the Markdown was rendered, not printed
    assert "Release plan" in plain and "# Release plan" not in plain
    assert "Ship it carefully \\x1b]0;pwned\\x07 today \\x1b[2J now." in plain
    assert "• build the wheel" in plain and "• run the tests \\x1b[201~" in plain
    assert "print('hello')" in plain
    assert "Done." in plain


def test_with_no_color_the_answer_has_no_escape_sequence_at_all(
    fake_model: FakeModelProcess, tmp_path: Path, agent_home: Path
) -> None:
    shown = answer_on_screen(fake_model, tmp_path, agent_home, NO_COLOR="1")

    assert "\x1b" not in shown
    assert [line.strip() for line in screen(shown.replace("\r\n", "\n")) if line.strip()] == [
        "Release plan",
        "Ship it carefully \\x1b]0;pwned\\x07 today \\x1b[2J now.",
        "• build the wheel",
        "• run the tests \\x1b[201~",
        "print('hello')",
        "Done.",
    ]
