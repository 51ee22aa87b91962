"""The spinner: a status line while the model thinks or a tool runs, wiped before anything
else is written, carrying an MCP server's progress, and absent off a terminal."""

from __future__ import annotations

import asyncio
import io
from dataclasses import replace
from pathlib import Path

import anyio
import pytest

from agent.chat.events import TextDelta, ToolCallStarted, ToolFinished, TurnEnded
from agent.mcp.config.definitions import fingerprint
from agent.mcp.store import McpStore
from agent.mcp.toolset import McpToolset
from agent.messages import ToolCall, ToolResult
from agent.tools.base import ToolSpec
from agent.ui.render import EventRenderer, RecentResults
from agent.ui.spinner import FRAMES, mcp_progress
from tests.mcp.runtime_helpers import ScriptedTrust, runtime, save, stdio_server
from tests.ui.ui_helpers import TerminalText, screen

pytestmark = pytest.mark.anyio

READ = ToolSpec("read_file", "Read a file.", {"type": "object"}, False, "built-in")


class WatchedTerminal(TerminalText):
    """A terminal whose writes can be awaited: `await seen("text")`."""

    def __init__(self) -> None:
        super().__init__()
        self._changed = asyncio.Event()

    def write(self, text: str) -> int:
        self._changed.set()
        return super().write(text)

    async def seen(self, text: str) -> None:
        with anyio.fail_after(5):
            while text not in self.getvalue():
                self._changed.clear()
                await self._changed.wait()


def quick_renderer(out: TerminalText) -> EventRenderer:
    renderer = EventRenderer(out, results=RecentResults())
    assert renderer.spinner is not None
    renderer.spinner.delay = 0  # show the first frame at once
    return renderer


async def test_the_spinner_waits_for_the_model_and_is_wiped_before_the_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    out = WatchedTerminal()
    renderer = quick_renderer(out)

    renderer.begin()
    await out.seen("Waiting for the model…")
    renderer.render(TextDelta("Hello **there**.\n\nMore"))
    renderer.render(TurnEnded("answered"))
    renderer.end()

    assert [line for line in screen(out.getvalue()) if line] == ["Hello there.", "More"]
    assert not any(frame in out.getvalue().split("Hello")[1] for frame in FRAMES)


async def test_a_running_tool_shows_in_the_spinner_line_with_its_servers_progress(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    out = WatchedTerminal()
    renderer = quick_renderer(out)
    call = ToolCall("c1", "read_file", '{"path": "a.txt"}')

    renderer.render(ToolCallStarted(call, READ))
    await out.seen("Running read_file…")
    renderer.progress(2, 5, "copying \x1b[2J files")
    await out.seen("(2/5 copying \\x1b[2J files)")
    renderer.render(ToolFinished(call, ToolResult("contents")))
    await out.seen("Waiting for the model…")
    renderer.end()

    assert screen(out.getvalue()) == ['⏺ read_file {"path": "a.txt"}', "  ⎿ contents", ""]


def test_off_a_terminal_there_is_no_spinner() -> None:
    assert EventRenderer(io.StringIO()).spinner is None
    assert EventRenderer(TerminalText()).spinner is not None


async def test_mcp_progress_notifications_reach_the_chat_through_the_tool(
    agent_home: Path, tmp_path: Path
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"fx": stdio_server()})
    seen: list[tuple[float, float | None, str | None]] = []

    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        fp = fingerprint(store.load().find("fx"))
        store.update_state("fx", fp, lambda s: replace(s, enabled=True, enabled_tools=("slow",)))
        [slow] = McpToolset(rt).tools()
        with mcp_progress(lambda done, total, message: seen.append((done, total, message))):
            result = await slow.run({"seconds": 0.03, "steps": 3})
        await slow.run({"seconds": 0.01, "steps": 1})  # outside: nobody listens

    assert result == ToolResult("done")
    assert seen == [(1, 3, "step 1/3"), (2, 3, "step 2/3"), (3, 3, "step 3/3")]


async def test_while_a_block_is_being_written_the_spinner_line_shows_its_newest_words(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.setenv("COLUMNS", "40")
    out = WatchedTerminal()
    renderer = quick_renderer(out)

    renderer.render(TextDelta("A first paragraph.\n\nThe second one \x1b[2J"))
    await out.seen("Writing… The second one \\x1b[2J")
    renderer.render(TextDelta(" keeps going well past the width of the screen"))
    await out.seen("Writing… …ast the width of the screen")  # its newest 28 columns
    renderer.end()

    lines = [line for line in screen(out.getvalue()) if line]
    assert lines == [
        "A first paragraph.",
        "The second one \\x1b[2J keeps going well",
        "past the width of the screen",
    ]
    frames = [part for part in out.getvalue().split("\r") if part[:1] in FRAMES]
    assert frames and all(len(frame) < 40 for frame in frames)  # never wraps
