"""Making untrusted text safe to print: no escape sequences reach the terminal."""

from __future__ import annotations

import re

# C0 controls except tab and newline, DEL, and C1 controls (0x9b is a one-byte CSI).
_CONTROL = re.compile(r"[\x00-\x08\x0b-\x1f\x7f-\x9f]")


def sanitize(text: str) -> str:
    """`text` with control characters shown as visible escapes such as `\\x1b`."""
    return _CONTROL.sub(lambda m: f"\\x{ord(m.group(0)):02x}", text)


def sanitize_line(text: str) -> str:
    """Like sanitize, but newlines and tabs are escaped too: for one-line table cells."""
    return sanitize(text).replace("\n", "\\n").replace("\t", "\\t")
