"""Making untrusted text safe to print: no escape sequences reach the terminal."""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, C1 controls (0x9b is a one-byte CSI), and the
# invisible characters that reorder or hide text (bidi overrides, zero-width marks): they can
# make an approval dialog show arguments other than those that will be sent.
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u200b-\u200f\u202a-\u202e\u2066-\u2069\ufeff]")


def sanitize(text: str) -> str:
    """`text` with control characters shown as visible escapes such as `\\x1b`."""
    return _CONTROL.sub(_visible, text)


def _visible(match: re.Match[str]) -> str:
    code = ord(match.group(0))
    return f"\\x{code:02x}" if code <= 0xFF else f"\\u{code:04x}"


def sanitize_line(text: str) -> str:
    """Like sanitize, but newlines and tabs are escaped too: for one-line table cells."""
    return sanitize(text).replace("\n", "\\n").replace("\t", "\\t")
