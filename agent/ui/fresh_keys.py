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

What the chat's prompt leaves behind is no dialog's: see TypeAhead.take_prompt_leftovers.
"""

from __future__ import annotations

import contextlib
import os
import termios
from collections.abc import Iterator
from typing import Any, TypeVar

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import clear_typeahead
from prompt_toolkit.shortcuts import PromptSession

from agent.ui.typeahead import dialog_keys

T = TypeVar("T")


def discard_keys(source: Input) -> None:
    """Drop every key `source` holds that arrived before now, in every buffer."""
    clear_typeahead(source)
    source.flush_keys()  # what its parser held; the keys it makes of that are dropped
    with contextlib.suppress(OSError, termios.error, NotImplementedError, ValueError):
        fd = source.fileno()
        if os.isatty(fd):
            termios.tcflush(fd, termios.TCIFLUSH)


@contextlib.contextmanager
def _fresh(source: Input) -> Iterator[None]:
    # The type-ahead reader pauses first: it reads the same terminal.
    with dialog_keys():
        try:
            yield
        finally:
            clear_typeahead(source)  # the keys after the answer are no later dialog's


async def run_dialog(app: Application[T]) -> T:
    """Run a dialog's application; only keys pressed after it is drawn reach it."""
    with _fresh(app.input):
        # The chat owns SIGINT (it cancels the turn); in raw mode Ctrl-C arrives as a key.
        return await app.run_async(pre_run=lambda: discard_keys(app.input), handle_sigint=False)


async def ask_line(session: PromptSession[str], question: str, **options: Any) -> str:
    """One line typed at a question (a reason, a form's field): only keys pressed after the
    question is drawn are part of it."""
    source = session.app.input
    with _fresh(source):
        return await session.prompt_async(
            question, pre_run=lambda: discard_keys(source), handle_sigint=False, **options
        )
