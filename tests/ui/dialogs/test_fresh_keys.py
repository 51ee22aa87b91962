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


async def test_the_second_key_of_yy_never_answers_the_next_dialog() -> None:
    with create_pipe_input() as keyboard, create_app_session(input=keyboard, output=DummyOutput()):
        keyboard.send_text("yy")  # one read: the first y answers, the second is left over
        with anyio.fail_after(5):
            assert await single_key("First? ", YES_NO) == "y"
        assert get_typeahead(keyboard) == []  # dropped when the dialog ended
        keyboard.send_text("n")
        with anyio.fail_after(5):
            assert await single_key("Second? ", YES_NO) == "n"


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
                    group.start_soon(lambda: _answer(answers))
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


async def _answer(answers: list[str]) -> None:
    answers.append(await single_key("Approve? ", YES_NO))


def test_the_quiet_pause_is_the_persons_number_within_bounds_else_the_default(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    for value, expected in [("2", 2.0), ("0", 0.1), ("1e9", 10.0), ("nan", 0.3), ("x", 0.3)]:
        monkeypatch.setenv("AGENT_QUESTION_QUIET_SECONDS", value)
        assert quiet_seconds() == expected
    monkeypatch.delenv("AGENT_QUESTION_QUIET_SECONDS")
    assert quiet_seconds() == 0.3
