"""A dialog on prompt_toolkit's pipe input: keys prompt_toolkit kept from the last
application (its typeahead store) never answer it, and what the chat's prompt read after its
Enter becomes type-ahead. The pipe stands for the terminal; its keys sent after the store was
filled are the ones a person presses once the dialog is drawn."""

from __future__ import annotations

import io
from pathlib import Path

import anyio
import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.data_structures import Size
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.input.typeahead import get_typeahead
from prompt_toolkit.output import DummyOutput
from prompt_toolkit.output.vt100 import Vt100_Output

from agent.ui.chat import prompt_session
from agent.ui.dialogs.frame import single_key
from agent.ui.dialogs.fresh_keys import quiet_seconds
from agent.ui.typeahead import TypeAhead
from tests.ui.ui_helpers import chat_state

pytestmark = pytest.mark.anyio
YES_NO = {"y": "y", "n": "n"}


async def test_yy_answers_nothing_and_a_lone_key_after_a_pause_answers_only_its_dialog() -> None:
    screen = io.StringIO()
    terminal = Vt100_Output(screen, lambda: Size(24, 80), enable_cpr=False)
    with create_pipe_input() as keyboard, create_app_session(input=keyboard, output=terminal):
        answers: list[str] = []
        with anyio.fail_after(30):
            async with anyio.create_task_group() as group:
                group.start_soon(lambda: _answer(answers, "First? "))
                await _drawn(screen, "First?")
                keyboard.send_text("yy")  # a bounced key, or a word: two keys are no answer
                await _drawn(screen, "(a question is open: stop typing, then press y or n;")
                await _drawn(screen, "First?")  # back after the pause
                keyboard.send_text("y")
        assert answers == ["y"]
        assert get_typeahead(keyboard) == []  # nothing left for the next dialog
        keyboard.send_text("n")
        with anyio.fail_after(30):
            assert await single_key("Second? ", YES_NO) == "n"


async def _drawn(screen: io.StringIO, text: str) -> None:
    """Wait until `text` is drawn after what was drawn so far."""
    start = len(screen.getvalue())
    while text not in screen.getvalue()[start:]:
        await anyio.sleep(0.01)


async def test_what_the_prompt_read_after_its_enter_is_queued_or_typed_ahead(
    tmp_path: Path,
) -> None:
    lines: list[str] = []
    kept: list[str] = []
    typeahead = TypeAhead(lines.append, lambda draft: None, lambda: None, kept.append)
    with create_pipe_input() as keyboard, create_app_session(input=keyboard, output=DummyOutput()):
        chat = chat_state(tmp_path)
        session = prompt_session(InMemoryHistory(), lambda: chat)
        keyboard.send_text("first\rsecond\ry")
        with anyio.fail_after(5):
            assert await session.prompt_async("› ") == "first"
        typeahead.take_prompt_leftovers(session.app.input)
        screen = io.StringIO()  # the dialog is drawn here: keys go in once the question is
        terminal = Vt100_Output(screen, lambda: Size(24, 80), enable_cpr=False)
        answers: list[str] = []
        with typeahead.serving(), create_app_session(input=keyboard, output=terminal):
            with anyio.fail_after(5):
                async with anyio.create_task_group() as group:
                    group.start_soon(lambda: _answer(answers, "Approve? "))
                    # Typed a moment ago (the leftovers): the question waits for a pause.
                    while "Approve?" not in screen.getvalue():
                        await anyio.sleep(0.01)
                    keyboard.send_text("n")
    assert answers == ["n"]
    assert lines == ["second"]  # a whole line waits as the next message
    assert typeahead.take() == "second"
    # The line being typed answered nothing: it was set aside while the dialog was open, then
    # put back (and the person told), so nothing typed is lost.
    assert kept == ["y"]
    assert typeahead.take_draft() == "y"


async def _answer(answers: list[str], question: str) -> None:
    answers.append(await single_key(question, YES_NO))


def test_the_quiet_pause_is_the_persons_number_within_bounds_else_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for value, expected in [("2", 2.0), ("0", 0.1), ("1e9", 10.0), ("nan", 0.3), ("x", 0.3)]:
        monkeypatch.setenv("AGENT_QUESTION_QUIET_SECONDS", value)
        assert quiet_seconds() == expected
    monkeypatch.delenv("AGENT_QUESTION_QUIET_SECONDS")
    assert quiet_seconds() == 0.3
