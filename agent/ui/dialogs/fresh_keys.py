"""A dialog hears only keys pressed after it was drawn.

Keys typed before a dialog is on screen can wait in four places, and the dialog empties
all of them at the moment it starts: just before it draws (nothing is read between that and
the drawing, so the first read a dialog makes holds only keys that came after).

- prompt_toolkit's typeahead store (`prompt_toolkit.input.typeahead`): the keys an
  application had read but not handled when it ended, which the next application on the same
  input handles first. That is the rest of the read that held the prompt's Enter
  (`run it⏎y` in one read) or the answer to the last dialog (`yy`). It is kept per input
  (the chat's stdin, or /dev/tty in one-shot mode), and a kernel flush never reaches it.
- The input's own parser: bytes read but not yet made keys (the start of an escape sequence).
- The kernel's terminal buffer (tcflush).
- Our type-ahead reader during a turn (agent.ui.typeahead): the line being typed is dropped;
  complete lines queued as the next messages stay queued.

When a dialog ends, the keys after the one that answered it are dropped too (`yy`: the
second y never reaches the next dialog, which needs a key of its own).

A one-key question that appears while keys are still arriving (some were just dropped, or our
reader read one a moment ago) is not armed at once: the person is typing and has not seen it.
Its answer keys count only once no key has come for quiet_seconds(), and the question
itself is drawn only then, so what it asks is on screen exactly when a key can answer it.
Until then every key is absorbed and restarts the wait (a held or bouncing key included);
Esc, Ctrl-C and Ctrl-D still say no. Peers do the same (charmbracelet/crush ignores keys for
350 ms after a permission dialog opens; Qubes delays its confirmations). A question that
appears with the keyboard quiet is armed at once: no delay for a person who is reading.

What the chat's prompt leaves behind is no dialog's: see TypeAhead.take_prompt_leftovers.
"""

from __future__ import annotations

import array
import asyncio
import contextlib
import fcntl
import os
import termios
from collections.abc import Iterator
from typing import Any, TypeVar

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import clear_typeahead, get_typeahead
from prompt_toolkit.shortcuts import PromptSession

from agent.ui.typeahead import dialog_keys, typed_within

T = TypeVar("T")

# Reading a question and deciding takes longer than this, so no key within it of the question
# appearing answers it; a typist's keys come closer together than this (a held key too).
ARMING_QUIET_SECONDS = 0.3
# A slow link spreads a burst of keys wider apart: the person may set a longer pause (tests
# set one too, so a loaded machine cannot stretch their typist's gap past it).
QUIET_SECONDS_VARIABLE = "AGENT_QUESTION_QUIET_SECONDS"
_QUIET_BOUNDS = (0.1, 10.0)


def quiet_seconds() -> float:
    """How long the keyboard must be quiet before a question that appeared mid-typing counts
    keys: AGENT_QUESTION_QUIET_SECONDS when it is a number (kept within 0.1-10 s), else 0.3."""
    try:
        value = float(os.environ.get(QUIET_SECONDS_VARIABLE, ARMING_QUIET_SECONDS))
    except ValueError:
        return ARMING_QUIET_SECONDS
    if value != value:  # NaN
        return ARMING_QUIET_SECONDS
    return min(max(value, _QUIET_BOUNDS[0]), _QUIET_BOUNDS[1])


def discard_keys(source: Input) -> None:
    """Drop every key `source` holds that arrived before now, in every buffer."""
    _drop_keys(source)


def _drop_keys(source: Input) -> bool:
    # True when there was any: someone is typing as the dialog appears.
    dropped = bool(get_typeahead(source))
    dropped = bool(source.flush_keys()) or dropped  # what its parser held, made keys
    with contextlib.suppress(OSError, termios.error, NotImplementedError, ValueError):
        fd = source.fileno()
        if os.isatty(fd):
            waiting = array.array("i", [0])
            fcntl.ioctl(fd, termios.FIONREAD, waiting)  # bytes the kernel holds unread
            dropped = dropped or waiting[0] > 0
            termios.tcflush(fd, termios.TCIFLUSH)
    return dropped


class Arming:
    """Whether a one-key question may be answered yet: at once when the keyboard was quiet as
    it appeared, else once no key has come for quiet_seconds()."""

    def __init__(self) -> None:
        self.armed = False
        self._app: Application[Any] | None = None
        self._timer: asyncio.TimerHandle | None = None

    def start(self, app: Application[Any], typing: bool) -> None:
        """The question is being drawn; `typing`: keys were arriving as it appeared."""
        self._app, self.armed = app, not typing
        if typing:
            self._wait()

    def absorb(self) -> None:
        """A key came before the question was armed: it decides nothing and the wait restarts."""
        if not self.armed:
            self._wait()

    def stop(self) -> None:
        """The question is gone."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None

    def _wait(self) -> None:
        self.stop()
        self._timer = asyncio.get_running_loop().call_later(quiet_seconds(), self._arm)

    def _arm(self) -> None:
        self._timer, self.armed = None, True
        if self._app is not None:
            self._app.invalidate()  # draws the question


@contextlib.contextmanager
def _fresh(source: Input) -> Iterator[None]:
    # The type-ahead reader pauses first: it reads the same terminal.
    with dialog_keys():
        try:
            yield
        finally:
            clear_typeahead(source)  # the keys after the answer are no later dialog's


async def run_dialog(app: Application[T], arming: Arming | None = None) -> T:
    """Run a dialog's application; only keys pressed after it is drawn reach it, and with
    `arming`, only once the keyboard has been quiet since (when it was not as it appeared)."""

    def start() -> None:
        typing = _drop_keys(app.input)
        if arming is not None:
            arming.start(app, typing or typed_within(quiet_seconds()))

    with _fresh(app.input):
        try:
            # The chat owns SIGINT (it cancels the turn); in raw mode Ctrl-C arrives as a key.
            return await app.run_async(pre_run=start, handle_sigint=False)
        finally:
            if arming is not None:
                arming.stop()


async def ask_line(session: PromptSession[str], question: str, **options: Any) -> str:
    """One line typed at a question (a reason, a form's field): only keys pressed after the
    question is drawn are part of it."""
    source = session.app.input
    with _fresh(source):
        return await session.prompt_async(
            question, pre_run=lambda: discard_keys(source), handle_sigint=False, **options
        )
