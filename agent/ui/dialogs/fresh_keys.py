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
- The kernel's terminal buffer (read, the rest of a flood flushed).
- Our type-ahead reader during a turn (agent.ui.typeahead): the line being typed is set
  aside; complete lines queued as the next messages stay queued.

What those keys typed is not lost: it goes back to the chat's prompt (typeahead.keep_typed),
after the line the type-ahead reader set aside, as do the keys typed at the question that
answered nothing and the keys after the one that answered it (`yy`: the second y never
reaches the next dialog, which needs a key of its own).

An answer is a lone key. A question that appears while keys are still arriving (some were
just taken, or our reader read one a moment ago) is not armed at once: the person is typing
and has not seen it. And a key that is not an answer, at any time, is a letter of a word: typing
goes on. Either way the question shows a hint in its place (it is a question, these are its
keys, the typing is kept) and takes no answer until no key has come for quiet_seconds(); then
it is drawn, so what it asks is on screen exactly when a key can answer it. An answer key
itself counts only once no key has followed it for quiet_seconds(): the n of "no", the y of
"yes", a bounced `yy` answer nothing, since a word never answers. Esc, Ctrl-C and Ctrl-D say
no at once. Peers do the like (charmbracelet/crush ignores keys for 350 ms after a permission
dialog opens; Qubes delays its confirmations). A question that appears with the keyboard quiet
is armed at once: no delay for a person who is reading, but the pause after the key.

What the chat's prompt leaves behind is no dialog's: see TypeAhead.take_prompt_leftovers.
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import termios
import time
from collections.abc import Callable, Iterable, Iterator, Mapping
from typing import Any, TypeVar

from prompt_toolkit.application import Application
from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import clear_typeahead, get_typeahead
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.keys import Keys
from prompt_toolkit.shortcuts import PromptSession

from agent.ui.typeahead import dialog_keys, keep_typed, keys_as_typed, typed_within

T = TypeVar("T")

# Reading a question and deciding takes longer than this, so no key within it of the question
# appearing answers it; a typist's keys come closer together than this (a held key too).
ARMING_QUIET_SECONDS = 0.3
# A slow link spreads a burst of keys wider apart: the person may set a longer pause (tests
# set one too, so a loaded machine cannot stretch their typist's gap past it).
QUIET_SECONDS_VARIABLE = "AGENT_QUESTION_QUIET_SECONDS"
_QUIET_BOUNDS = (0.1, 10.0)
# At most this much of what waits in the kernel's buffer as a question appears goes back to
# the prompt; the rest of a flood is dropped.
_KEPT_BYTES = 1 << 16
# How the hint names keys that are not a letter.
KEY_NAMES = {" ": "space", "enter": "Enter"}


def quiet_seconds() -> float:
    """How long the keyboard must be quiet before a question that appeared mid-typing counts
    keys: AGENT_QUESTION_QUIET_SECONDS when it is a number (kept within 0.1-10 s), else 0.3."""
    return _seconds_setting(QUIET_SECONDS_VARIABLE, ARMING_QUIET_SECONDS, _QUIET_BOUNDS)


def _seconds_setting(variable: str, default: float, bounds: tuple[float, float]) -> float:
    # A number of seconds from the environment, kept within bounds; anything else: default.
    try:
        value = float(os.environ.get(variable, default))
    except ValueError:
        return default
    if value != value:  # NaN
        return default
    return min(max(value, bounds[0]), bounds[1])


# A key read this soon after a question was drawn was pressed before the person could have
# seen it: over a link with latency (ssh) the drawing reaches the screen, and the key comes
# back, half a round trip late each, so such a key arrives after the drawing with the keyboard
# quiet before it. It is typing, not an answer. A person reading the question loses nothing.
REACTION_SECONDS_VARIABLE = "AGENT_QUESTION_REACTION_SECONDS"
REACTION_SECONDS = 0.25
_REACTION_BOUNDS = (0.0, 5.0)


def reaction_seconds() -> float:
    """How long after a question is drawn (or drawn again after a pause) before a key may
    answer it: AGENT_QUESTION_REACTION_SECONDS when it is a number (kept within 0-5 s), else
    0.25."""
    return _seconds_setting(REACTION_SECONDS_VARIABLE, REACTION_SECONDS, _REACTION_BOUNDS)


def discard_keys(source: Input) -> None:
    """Take every key `source` holds that arrived before now, in every buffer, out of the way
    of the question about to be drawn; their text goes back to the chat's prompt."""
    keep_typed(_take_keys(source)[1])


def _take_keys(source: Input) -> tuple[bool, str]:
    # Whether there were any (someone is typing as the dialog appears), and what they typed.
    held = [*get_typeahead(source), *source.flush_keys()]  # the store; what the parser held
    typed = keys_as_typed(held)
    waiting = False
    with contextlib.suppress(OSError, termios.error, NotImplementedError, ValueError):
        fd = source.fileno()
        if os.isatty(fd):
            unread = _read_waiting(fd)
            waiting = bool(unread)
            typed += unread.decode("utf-8", errors="ignore")
            termios.tcflush(fd, termios.TCIFLUSH)  # the rest of a flood, unread
    return bool(held) or waiting, typed


def _read_waiting(fd: int) -> bytes:
    """The bytes the kernel holds unread on terminal `fd`, a half-typed line included: the
    terminal may still be in line mode (the prompt just ended), where they are not readable."""
    mode = termios.tcgetattr(fd)
    now = termios.tcgetattr(fd)
    now[3] &= ~termios.ICANON
    now[6][termios.VMIN], now[6][termios.VTIME] = 0, 0  # a read never waits
    termios.tcsetattr(fd, termios.TCSANOW, now)
    try:
        with contextlib.suppress(BlockingIOError):
            return os.read(fd, _KEPT_BYTES)
        return b""
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, mode)


class Arming:
    """When a one-key question takes its answer, and what was typed at it instead.

    An answer is a lone key: the keyboard quiet before it (at once when it was quiet as the
    question appeared, else once no key came for quiet_seconds()) and after it (it counts only
    when no key follows it within quiet_seconds()). Any other key is typing that goes on: the
    question gives way to a hint saying it is a question and what its keys are, ignores keys
    until a pause, and keeps them, as the terminal sent them, for the prompt."""

    def __init__(self, keys: Iterable[str] = ()) -> None:
        self.armed = False
        self.hint = open_question_hint(keys)
        self._app: Application[Any] | None = None
        self._timer: asyncio.TimerHandle | None = None
        self._pending: tuple[str, str] | None = None  # an answer and its key, not yet counted
        self._armed_at = 0.0  # when the question was last drawn armed (time.monotonic)
        self._typed: list[str] = []

    def start(self, app: Application[Any], typing: bool, dropped: str = "") -> None:
        """The question is being drawn; `typing`: keys were arriving as it appeared
        (`dropped`: those keys, which go back to the prompt)."""
        self._app, self.armed = app, not typing
        self._armed_at = time.monotonic()
        if dropped:
            self._typed.append(dropped)
        if typing:
            self._wait(self._arm)

    def answer(self, result: str, typed: str) -> None:
        """An answer key: it decides once no key has followed it for quiet_seconds(); a key
        that does makes it a letter of a word ("no", "yes", "again"). One read within
        reaction_seconds() of the drawing was pressed before the question could be seen: typing."""
        too_soon = time.monotonic() - self._armed_at < reaction_seconds()
        if not self.armed or self._pending is not None or too_soon:
            self.absorb(typed)
            return
        self._pending = (result, typed)
        self._wait(self._decide)

    def absorb(self, typed: str) -> None:
        """A key that answers nothing, or comes too soon: it is kept for the prompt, and the
        question waits for a pause in the typing, showing the hint meanwhile."""
        if self._pending is not None:
            self._typed.append(self._pending[1])  # the first letter of a word, not an answer
            self._pending = None
        self._typed.append(typed)
        was_armed, self.armed = self.armed, False
        self._wait(self._arm)
        if was_armed and self._app is not None:
            self._app.invalidate()  # the hint takes the question's place

    def stop(self) -> str:
        """The question is gone: what was typed at it that answered nothing."""
        if self._timer is not None:
            self._timer.cancel()
            self._timer = None
        typed, self._typed = "".join(self._typed), []
        return typed

    def _wait(self, then: Callable[[], None]) -> None:
        if self._timer is not None:
            self._timer.cancel()
        self._timer = asyncio.get_running_loop().call_later(quiet_seconds(), then)

    def _arm(self) -> None:
        self._timer, self.armed = None, True
        self._armed_at = time.monotonic()  # drawn again: the reaction floor starts anew
        if self._app is not None:
            self._app.invalidate()  # draws the question

    def _decide(self) -> None:
        self._timer, pending, self._pending = None, self._pending, None
        if pending is not None and self._app is not None and not self._app.is_done:
            self._app.exit(result=pending[0])


def open_question_hint(keys: Iterable[str]) -> str:
    """What a question shows while keys that are not its answer arrive."""
    names = [KEY_NAMES.get(key, key) for key in keys]
    press = " or ".join([", ".join(names[:-1]), names[-1]] if len(names) > 1 else names)
    then = f", then press {press}" if press else ""
    return f"(a question is open: stop typing{then}; your typing is kept)"


# Whether the last question was cancelled with Ctrl-C rather than Esc (its answer is the same
# `cancel`): a subagent's question then stops every subagent and the turn, as Ctrl-C does
# while no question is open. Taken (and cleared) by whoever asked.
_CTRL_C_AT_QUESTION = [False]


def took_ctrl_c() -> bool:
    """Whether the question just answered was cancelled with Ctrl-C; clears it."""
    pressed, _CTRL_C_AT_QUESTION[0] = _CTRL_C_AT_QUESTION[0], False
    return pressed


def answer_bindings(arming: Arming, keys: Mapping[str, str], cancel: str) -> KeyBindings:
    """A one-key question's keys: each of `keys` answers through `arming`; Esc, Ctrl-C and
    Ctrl-D answer `cancel` at once (a no needs no pause); every other key is typing."""
    bindings = KeyBindings()

    def answer(result: str) -> Callable[[KeyPressEvent], None]:
        return lambda event: arming.answer(result, keys_as_typed(event.key_sequence))

    def cancelled(event: KeyPressEvent) -> None:
        _CTRL_C_AT_QUESTION[0] = False
        event.app.exit(result=cancel)

    def interrupted(event: KeyPressEvent) -> None:
        _CTRL_C_AT_QUESTION[0] = True
        event.app.exit(result=cancel)

    for key, result in keys.items():
        bindings.add(key)(answer(result))
    bindings.add(Keys.Any)(lambda event: arming.absorb(keys_as_typed(event.key_sequence)))
    bindings.add("enter")(lambda event: arming.absorb(keys_as_typed(event.key_sequence)))
    bindings.add("escape", eager=True)(cancelled)
    bindings.add("c-c")(interrupted)
    bindings.add("c-d")(cancelled)
    return bindings


@contextlib.contextmanager
def _fresh(source: Input) -> Iterator[None]:
    # The type-ahead reader pauses first: it reads the same terminal.
    with dialog_keys():
        try:
            yield
        finally:
            # The keys after the answer are no later dialog's: they go back to the prompt.
            keep_typed(keys_as_typed(get_typeahead(source)))
            clear_typeahead(source)


async def run_dialog(app: Application[T], arming: Arming | None = None) -> T:
    """Run a dialog's application; only keys pressed after it is drawn reach it, and with
    `arming`, only once the keyboard has been quiet since (when it was not as it appeared)."""

    def start() -> None:
        typing, typed = _take_keys(app.input)
        if arming is None:
            keep_typed(typed)
        else:
            arming.start(app, typing or typed_within(quiet_seconds()), typed)

    with _fresh(app.input):
        try:
            # The chat owns SIGINT (it cancels the turn); in raw mode Ctrl-C arrives as a key.
            return await app.run_async(pre_run=start, handle_sigint=False)
        finally:
            if arming is not None:
                keep_typed(arming.stop())


async def ask_line(session: PromptSession[str], question: str, **options: Any) -> str:
    """One line typed at a question (a reason, a form's field): only keys pressed after the
    question is drawn are part of it."""
    source = session.app.input
    with _fresh(source):
        return await session.prompt_async(
            question, pre_run=lambda: discard_keys(source), handle_sigint=False, **options
        )
