"""The chat's prompt, driven by keys as a terminal sends them: Enter sends, Esc Enter adds a
line, a bracketed paste of several lines stays one message, Ctrl-R searches the history,
Tab completes a command; and /show prints a kept tool result whole."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

import anyio
import pytest
from prompt_toolkit.application import create_app_session
from prompt_toolkit.buffer import Buffer
from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.input import create_pipe_input
from prompt_toolkit.output import DummyOutput

from agent.chat.events import ToolCallStarted, ToolFinished
from agent.messages import ToolCall, ToolResult
from agent.ui.chat import prompt_session
from agent.ui.render import RECENT_RESULTS, EventRenderer
from agent.ui.slash.commands import run_slash
from tests.ui.ui_helpers import chat_state

pytestmark = pytest.mark.anyio


async def typed(keys: str, tmp_path: Path, history: Sequence[str] = ()) -> str:
    """What the chat's prompt returns after these keys."""
    remembered = InMemoryHistory()
    for entry in history:
        remembered.append_string(entry)
    with create_pipe_input() as keyboard, create_app_session(input=keyboard, output=DummyOutput()):
        chat = chat_state(tmp_path)
        session = prompt_session(remembered, lambda: chat)
        keyboard.send_text(keys)
        with anyio.fail_after(5):
            return await session.prompt_async("› ")


async def test_enter_sends_and_escape_enter_adds_a_line(tmp_path: Path) -> None:
    assert await typed("first\x1b\rsecond\r", tmp_path) == "first\nsecond"


async def test_a_pasted_block_of_several_lines_stays_one_message(tmp_path: Path) -> None:
    paste = "\x1b[200~line one\r\nline two\rline three\x1b[201~"
    assert await typed(paste + " and more\r", tmp_path) == "line one\nline two\nline three and more"


async def test_ctrl_r_finds_an_earlier_message_in_the_history(tmp_path: Path) -> None:
    history = ["explain the build", "write the tests", "fix the flaky one"]
    assert await typed("\x12build\r\r", tmp_path, history) == "explain the build"


async def test_tab_completes_a_slash_command(tmp_path: Path) -> None:
    with create_pipe_input() as keyboard, create_app_session(input=keyboard, output=DummyOutput()):
        chat = chat_state(tmp_path)
        session = prompt_session(InMemoryHistory(), lambda: chat)
        offered, completed = anyio.Event(), anyio.Event()

        def menu_filled(buffer: Buffer) -> None:
            if buffer.complete_state and buffer.complete_state.completions:
                offered.set()

        def text_changed(buffer: Buffer) -> None:
            if buffer.text == "/show":
                completed.set()

        session.default_buffer.on_completions_changed += menu_filled
        session.default_buffer.on_text_changed += text_changed
        answer: list[str] = []

        async def prompt() -> None:
            answer.append(await session.prompt_async("› "))

        async with anyio.create_task_group() as group:
            group.start_soon(prompt)
            with anyio.fail_after(5):
                keyboard.send_text("/sho")
                await offered.wait()  # the menu opens as you type
                keyboard.send_text("\t")
                await completed.wait()
                keyboard.send_text("\r")
    assert answer == ["/show"]


async def test_show_prints_a_kept_tool_result_whole(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    long_text = "\n".join(f"line {n} \x1b[2J" for n in range(1, 31))
    renderer = EventRenderer()  # the chat's: it keeps results where /show finds them
    for number, text in enumerate([long_text, "short"], start=1):
        call = ToolCall(f"c{number}", "read_file", '{"path": "x"}')
        renderer.render(ToolCallStarted(call, None))
        renderer.render(ToolFinished(call, ToolResult(text)))
    preview = capsys.readouterr().out
    chat = chat_state(tmp_path)

    await run_slash(chat, "/show 2")
    whole = capsys.readouterr().out
    await run_slash(chat, "/show")
    latest = capsys.readouterr().out
    await run_slash(chat, f"/show {len(RECENT_RESULTS) + 1}")
    missing = capsys.readouterr().out

    assert "… 26 more lines (/show for all)" in preview
    assert whole.splitlines() == [
        '⏺ read_file {"path": "x"}',
        *(f"line {n} \\x1b[2J" for n in range(1, 31)),
    ]
    assert latest.splitlines() == ['⏺ read_file {"path": "x"}', "short"]
    assert missing.startswith("No such tool result;")
