"""Streaming Markdown: the model's text rendered with rich, one finished block at a time.

A block (paragraph, heading, list, quote, table, fenced code) is rendered once, when the
next block begins or, for a fence, when it is closed; only the open block waits. The
concatenated output equals rich's rendering of the whole answer at once.

Model text is sanitized before rich sees it, and rich gets it only as Markdown: no console
markup, no emoji codes, no OSC 8 hyperlinks (a link shows its address). What markdown-it makes
of it is sanitized again: a character reference (`&#x202e;`, `&rlm;`) decodes to the very
characters the first pass removed. Imported lazily:
rich and markdown-it cost about 80 ms, which the prompt must not wait for.
"""

from __future__ import annotations

import re
import shutil
from io import StringIO

from markdown_it import MarkdownIt
from markdown_it.token import Token
from rich.console import Console
from rich.markdown import Markdown

from agent.text import StreamSanitizer, sanitize, sanitize_line

# The same parser rich.markdown.Markdown uses, so block boundaries agree with its rendering.
_PARSER = MarkdownIt().enable("strikethrough").enable("table")

# How each rendered chunk is joined to the one before: rich puts a blank line before a block
# unless the block before it was a horizontal rule. Rendering a one-line stand-in for the
# previous block plus the new one, minus the stand-in alone, reproduces exactly that.
_STAND_IN = {"hr": "---\n\n", "other": "x\n\n"}

# Blocks that nothing can continue after a blank line (a list or indented code still can).
_ENDED_BY_A_BLANK_LINE = ("paragraph_open", "blockquote_open", "table_open")
# An open block longer than this is parsed again only once it has grown by a quarter: each line
# of a paragraph or list used to parse the whole block (a 2,000-line paragraph took 25 s, so a
# model could freeze the chat with one). Its end then shows a little later; nothing is lost.
_SMALL_BLOCK = 8192
_REPARSE_GROWTH = 1.25


def make_console(*, color: bool, width: int | None = None) -> Console:
    """A console that renders into strings; `color=False` means no escape sequence at all."""
    return Console(
        file=StringIO(),
        force_terminal=True,
        color_system="auto" if color else None,
        no_color=not color,
        width=width or shutil.get_terminal_size().columns,
        markup=False,
        emoji=False,
        highlight=False,
        legacy_windows=False,
    )


def render_markdown(console: Console, text: str) -> str:
    """`text` (already sanitized) rendered by rich as one Markdown document."""
    markdown = Markdown(text, hyperlinks=False)
    for token in markdown.parsed:
        _sanitize_token(token)
    with console.capture() as capture:
        console.print(markdown, end="")
    # rich pads every line to the full width; unstyled padding only gets in the way of copying
    # and of a narrower window, so it goes (styled padding, such as a code block's, stays).
    return "\n".join(line.rstrip(" ") for line in capture.get().split("\n"))


def _sanitize_token(token: Token) -> None:
    """Sanitize what rich will print of a parsed token: its text, code language and links."""
    token.content = sanitize(token.content)
    token.info = sanitize_line(token.info)
    for key, value in token.attrs.items():
        if isinstance(value, str):
            token.attrs[key] = sanitize_line(value)
    for child in token.children or ():
        _sanitize_token(child)


class _OpenFence:
    """A fenced code block still waiting for its closing line."""

    def __init__(self, markup: str) -> None:
        char = re.escape(markup[0])
        self._closing = re.compile(rf" {{0,3}}{char}{{{len(markup)},}}[ \t]*\n?")
        self.scanned = 0  # lines already known not to close it

    def closes(self, line: str) -> bool:
        return self._closing.fullmatch(line) is not None


class MarkdownStream:
    """Feed the model's text chunk by chunk; get back what is ready to print."""

    def __init__(self, console: Console, *, follow_width: bool = True) -> None:
        self._console = console
        self._follow_width = follow_width  # re-read the terminal width before each block
        self._pending = ""  # sanitized text from the start of the open block
        self._parsed_size = 0  # its size when it was last parsed and found unfinished
        self._fence: _OpenFence | None = None
        self._previous: str | None = None  # "hr" / "other": the last block printed, if any
        self._carried_cr = False  # the last chunk ended in "\r" (CRLF line ends are allowed)
        self._sanitizer = StreamSanitizer()  # a run of marks is counted across chunks

    @property
    def pending(self) -> bool:
        """Whether some text is waiting for its block to finish."""
        return bool(self._pending.strip())

    @property
    def preview(self) -> str:
        """The last line being written (sanitized), for a one-line glimpse while it waits."""
        for line in reversed(self._pending[-4096:].splitlines()):  # not the whole block
            if line.strip():
                return line.strip()
        return ""

    def feed(self, text: str) -> str:
        """Take a chunk of model text; returns the rendering of the blocks it completed."""
        if self._carried_cr:
            text, self._carried_cr = "\r" + text, False
        if text.endswith("\r"):  # maybe half of a CRLF: decide with the next chunk
            text, self._carried_cr = text[:-1], True
        text = self._sanitizer.feed(text.replace("\r\n", "\n"))
        self._pending += text
        if "\n" not in text:
            return ""  # a block only ends at the end of a line
        if self._fence is None and _SMALL_BLOCK < len(self._pending) < (
            self._parsed_size * _REPARSE_GROWTH
        ):
            return ""
        lines = self._pending[: self._pending.rfind("\n") + 1].splitlines(keepends=True)
        if self._fence is not None:
            # Inside an open fence only its closing line matters: skip re-parsing until then.
            unseen = lines[self._fence.scanned :]
            self._fence.scanned = len(lines)
            if not any(self._fence.closes(line) for line in unseen):
                return ""
            self._fence = None
        cut, last = self._finished(lines)
        if cut == 0:
            self._parsed_size = len(self._pending)
            return ""
        self._parsed_size = 0
        done = "".join(lines[:cut])
        self._pending = self._pending[len(done) :]
        if self._fence is not None:
            self._fence.scanned -= cut  # its lines are counted from the new start
        return self._render(done, last)

    def flush(self) -> str:
        """Everything still pending, rendered; the next text starts a new document."""
        text, self._pending, self._fence = self._pending, "", None
        self._parsed_size = 0
        if self._carried_cr:
            text, self._carried_cr = text + self._sanitizer.feed("\r"), False
        output = self._render(text, "other") if text.strip() else ""
        self._previous = None
        return output

    def _finished(self, lines: list[str]) -> tuple[int, str]:
        """How many leading lines hold finished blocks, and the kind of the last of them."""
        blocks = _top_level_blocks(_PARSER.parse("".join(lines)))
        if not blocks:
            return 0, "other"
        last = blocks[-1]
        assert last.map is not None
        if last.type == "fence":
            start, end = last.map
            if end - 1 > start and _OpenFence(last.markup).closes(lines[end - 1]):
                return end, "other"  # a closed fence is finished at once
            self._fence = _OpenFence(last.markup)
            self._fence.scanned = len(lines)
        if last.type in ("heading_open", "hr"):
            return len(lines), "hr" if last.type == "hr" else "other"  # one line each
        if last.type in _ENDED_BY_A_BLANK_LINE and not lines[-1].strip():
            return len(lines), "other"
        if len(blocks) == 1:
            return 0, "other"
        before = blocks[-2]
        return last.map[0], "hr" if before.type == "hr" else "other"

    def _render(self, text: str, last: str) -> str:
        if self._follow_width:
            self._console.width = shutil.get_terminal_size().columns
        try:
            if self._previous is None:
                output = render_markdown(self._console, text)
            else:
                stand_in = _STAND_IN[self._previous]
                before = render_markdown(self._console, stand_in)
                whole = render_markdown(self._console, stand_in + text)
                if whole.startswith(before):
                    output = whole[len(before) :]
                else:  # not expected; a blank line between blocks is the usual join
                    output = "\n" + render_markdown(self._console, text)
        except Exception:  # a rendering bug must not lose the answer: show it as it came
            output = text if text.endswith("\n") else text + "\n"
        self._previous = last
        return output


def _top_level_blocks(tokens: list[Token]) -> list[Token]:
    """The opening (or self-contained) token of each top-level block, in order."""
    return [t for t in tokens if t.level == 0 and t.nesting in (0, 1) and t.map is not None]
