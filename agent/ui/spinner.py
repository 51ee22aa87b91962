"""A one-line status spinner: drawn in place with \\r, wiped before anything else is written.

Only on a terminal. It is animated by event-loop timers, not a task, so showing and hiding
are plain calls the renderer makes between two writes: the spinner can never land in the
middle of streamed text. While any prompt_toolkit application (a dialog) is on screen it
stays out of the way.
"""

from __future__ import annotations

import asyncio
import shutil
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TextIO

from prompt_toolkit.utils import get_cwidth

from agent.mcp.progress import ProgressSink, progress_sink
from agent.text import sanitize_line
from agent.ui.style import styled

FRAMES = "⠋⠙⠹⠸⠼⠴⠦⠧⠇⠏"
_TYPED_SHOWN = 1000  # characters: more than the widest line shows of the end of a draft

# The spinners animating now. A line from outside the renderer (a server's notice, reported
# from anywhere) must not land after a half-drawn frame: write_clear_of_spinners wipes them.
_ANIMATING: list[Spinner] = []


class Spinner:
    """`show(label)` animates `⠋ label… 3s`; `hide()` wipes it; `detail(text)` adds progress."""

    def __init__(self, out: TextIO, *, interval: float = 0.1, delay: float = 0.2) -> None:
        self.out = out
        self.interval = interval
        self.delay = delay  # short waits show nothing at all
        self.label = ""
        self._detail = ""
        self._typed = ""  # the next message being typed ahead, shown at the end
        self._since = 0.0
        self._frame = 0
        self._drawn = 0  # width of what is on screen now
        self._rows: list[str] = []  # lines drawn under the spinner's (running subagents)
        self._rows_drawn = 0  # how many of them are on screen now
        self._timer: asyncio.TimerHandle | None = None

    @property
    def shown(self) -> bool:
        return self._timer is not None

    def show(self, label: str) -> None:
        """Start (or relabel) the spinner; the first frame comes after `delay`."""
        if self.label != label or self._timer is None:
            self._detail = ""
            self._since = time.monotonic()
        self.label = label
        if self._timer is not None:
            return
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return  # no event loop, nothing to animate with
        self._timer = loop.call_later(self.delay, self._tick)
        _ANIMATING.append(self)

    def detail(self, text: str) -> None:
        """Extra words after the label, such as an MCP server's progress."""
        self._detail = sanitize_line(text)

    def typed(self, text: str) -> None:
        """The message being typed ahead (shown instead of the detail while there is one).
        Only its end is ever drawn: sanitizing all of a long paste at every read would cost
        more than the line can show."""
        self._typed = ("…" if len(text) > _TYPED_SHOWN else "") + sanitize_line(
            text[-_TYPED_SHOWN:]
        )
        if self._timer is not None and self._drawn:
            self._draw()

    def rows(self, lines: list[str]) -> None:
        """Lines drawn under the spinner's own, one per running subagent (sanitised here:
        they quote the model's words); [] takes them away at the next frame."""
        self._rows = [sanitize_line(line) for line in lines]

    def resume(self, label: str) -> None:
        """Show `label` again after a line was printed, keeping its elapsed time."""
        since = self._since
        self.show(label)
        if self.label == label:
            self._since = since

    def hide(self) -> None:
        """Stop and wipe the line, synchronously, so the next write starts on a clean line."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
            _ANIMATING.remove(self)
        self._wipe()

    def _wipe(self) -> None:
        if self._rows_drawn:  # the spinner's line and every row under it, at once
            self.out.write("\r\x1b[J")
            self.out.flush()
            self._drawn = self._rows_drawn = 0
            return
        if self._drawn:
            self.out.write("\r" + " " * self._drawn + "\r")
            self.out.flush()
            self._drawn = 0

    def _tick(self) -> None:
        loop = asyncio.get_running_loop()
        self._timer = loop.call_later(self.interval, self._tick)
        if dialog_on_screen():
            if self._rows_drawn:
                # Drawn with rows, the spinner left the cursor at the start of its line, where
                # the dialog began drawing and cleared what was below: nothing of it is left,
                # and its wipe (a clear to the end of the screen) would erase the dialog.
                self._drawn = self._rows_drawn = 0
            self._wipe()
            return
        self._draw()

    def _draw(self) -> None:
        elapsed = int(time.monotonic() - self._since)
        head = f"{FRAMES[self._frame % len(FRAMES)]} {self.label}…"
        tail = f" {elapsed}s" if elapsed >= 1 else ""
        self._frame += 1
        width = max(shutil.get_terminal_size().columns - 1, 10)  # never wrap: \r must reach it
        if self._typed:  # where the person's eyes are: the end of what they type
            typed = _newest(self._typed, width - get_cwidth(head + tail) - 9)
            text = _oldest(head + tail + f" · next: {typed}", width)
        else:
            detail = _newest(self._detail, width - get_cwidth(head + tail) - 1)
            text = _oldest(head + (f" {detail}" if detail else "") + tail, width)
        drawn = get_cwidth(text)
        if self._rows or self._rows_drawn:
            self._draw_with_rows(text, width)
            return
        pad = " " * max(self._drawn - drawn, 0)  # leftovers of a longer frame
        self.out.write("\r" + styled(text, "dim") + pad)
        self.out.flush()
        self._drawn = drawn + len(pad)

    def _draw_with_rows(self, text: str, width: int) -> None:
        """The spinner's line, then its rows below it (the old ones cleared first), the
        cursor back at the start of the spinner's line, where the next write begins."""
        frame = "\r\x1b[J" + styled(text, "dim")
        rows = _fitting(self._rows, shutil.get_terminal_size().lines)
        for row in rows:
            frame += "\n" + styled(_oldest(row, width), "dim")
        if rows:
            frame += f"\x1b[{len(rows)}A\r"
        self.out.write(frame)
        self.out.flush()
        self._drawn, self._rows_drawn = max(get_cwidth(text), 1), len(rows)


def write_clear_of_spinners(line: str) -> bool:
    """Write `line` (and a newline) where the animating spinner draws, after wiping it, so the
    line starts at the left edge and the spinner comes back below it at its next frame.

    False, writing nothing, when no spinner animates or a dialog is on screen: the caller
    prints as usual (above the prompt, or through the dialog's application). The write is
    direct, not through patch_stdout's proxy, whose thread would write it some time later,
    possibly right after the next frame.
    """
    if not _ANIMATING or dialog_on_screen():
        return False
    spinner = _ANIMATING[-1]
    for shown in _ANIMATING:
        shown._wipe()
    spinner.out.write(line + "\n")
    spinner.out.flush()
    return True


def _fitting(rows: list[str], lines: int) -> list[str]:
    """The rows that fit below the spinner's line with the line above it kept: past the
    screen's bottom they would scroll it, and the move back up would stop at its top, so
    every frame would push rows into the scrollback. The rest are counted on the last."""
    room = max(lines - 2, 1)
    if len(rows) <= room:
        return rows
    kept = rows[: room - 1]
    return [*kept, f"  … and {len(rows) - len(kept)} more"]


def _newest(text: str, columns: int) -> str:
    """The end of `text` that fits in `columns` cells, marked with … when cut."""
    if get_cwidth(text) <= columns:
        return text
    kept, used = [], 1
    for char in reversed(text):
        used += get_cwidth(char)
        if used > columns:
            break
        kept.append(char)
    return "…" + "".join(reversed(kept)) if columns > 1 else ""


def _oldest(text: str, columns: int) -> str:
    """The start of `text` that fits in `columns` cells."""
    kept, used = [], 0
    for char in text:
        used += get_cwidth(char)
        if used > columns:
            break
        kept.append(char)
    return "".join(kept)


def dialog_on_screen() -> bool:
    from prompt_toolkit.application.current import get_app_or_none

    return get_app_or_none() is not None


@contextmanager
def mcp_progress(sink: ProgressSink) -> Iterator[None]:
    """Progress notifications of MCP tools run in the body go to `sink`.

    The sink lives in a module of its own (agent/mcp/progress.py) so that setting it never
    touches the MCP side, which may still be importing in a background thread.
    """
    token = progress_sink.set(sink)
    try:
        yield
    finally:
        progress_sink.reset(token)
