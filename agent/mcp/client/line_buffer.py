"""Splitting a byte stream into lines in linear time, with a cap on one line's length.

Joining each chunk onto the unfinished line and splitting the whole again (what the SDK's
stdio client does) copies and rescans the line once per chunk: quadratic in a long line.
Here a bytearray grows by each chunk and only the new bytes are searched for b"\\n". A
line over the cap is reported once, with its first bytes, the moment it passes the cap;
the rest of it is dropped as it arrives, so a flood costs no memory.
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Overlong:
    """A line that passed the cap: its first bytes and how many bytes it had by then."""

    head: bytes
    size: int


class LineBuffer:
    """Feed it chunks; it returns the complete lines (without b"\\n") and Overlong marks."""

    def __init__(self, limit: int, head_bytes: int) -> None:
        self._limit = limit
        self._head_bytes = head_bytes
        self._buffer = bytearray()
        self._searched = 0  # bytes at the start of the buffer known to hold no newline
        self._dropping = False  # inside an overlong line: discard up to its newline

    def feed(self, chunk: bytes) -> list[bytes | Overlong]:
        """The lines that `chunk` completes, in order."""
        lines: list[bytes | Overlong] = []
        if self._dropping:
            newline = chunk.find(b"\n")
            if newline < 0:
                return lines
            chunk = chunk[newline + 1 :]
            self._dropping = False
        buffer = self._buffer
        buffer += chunk
        start = 0
        search = self._searched
        while (newline := buffer.find(b"\n", search)) >= 0:
            if newline - start > self._limit:
                head = bytes(buffer[start : start + self._head_bytes])
                lines.append(Overlong(head, newline - start))
            else:
                lines.append(bytes(buffer[start:newline]))
            start = search = newline + 1
        if start:
            del buffer[:start]  # cheap: CPython moves the bytearray's start, copying nothing
        if len(buffer) > self._limit:
            lines.append(Overlong(bytes(buffer[: self._head_bytes]), len(buffer)))
            buffer.clear()
            self._dropping = True
        self._searched = len(buffer)
        return lines

    def rest(self) -> bytes:
        """The unfinished last line, at the end of the stream."""
        return b"" if self._dropping else bytes(self._buffer)
