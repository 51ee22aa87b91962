"""The text formats a form's string field may name (MCP's StringSchema: email, uri, date,
date-time), checked before an answer is sent, so a person hears what to fix instead of a
server's refusal after the form is gone.

The checks are the shapes the formats' standards give, by plain regular expressions of our
own (never a server's) and the standard library's date parser: an email is one `@` between a
name and a dotted domain (RFC 5322's addr-spec, without its rarely used quoted forms); a URI has
a scheme and something after its colon (RFC 3986); a date is RFC 3339's full-date and a
date-time its date-time, with the time zone it requires. Other formats are not checked.
"""

from __future__ import annotations

import datetime
import re

_EMAIL = re.compile(r"[^@\s]+@[^@\s.]+(\.[^@\s.]+)+")
_URI = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*:[^\s]+")
_DATE = re.compile(r"(\d{4})-(\d{2})-(\d{2})")
_DATE_TIME = re.compile(
    r"(\d{4}-\d{2}-\d{2})[Tt ](\d{2}):(\d{2}):(\d{2})(\.\d+)?([Zz]|[+-]\d{2}:\d{2})"
)

# What to enter, said to the person after the field's title.
EXPECTED = {
    "email": "enter an email address, like name@example.com",
    "uri": "enter a full address with its scheme, like https://example.com/page",
    "date": "enter a date as YYYY-MM-DD, like 2026-03-31",
    "date-time": "enter a date and time with its zone, like 2026-03-31T14:30:00Z",
}


def format_problem(form_format: str, text: str) -> str | None:
    """What to enter instead of `text` for a field of `form_format`; None when it fits (or the
    format is not one of MCP's four)."""
    if form_format not in EXPECTED or _fits(form_format, text):
        return None
    return EXPECTED[form_format]


def _fits(form_format: str, text: str) -> bool:
    if form_format == "email":
        return _EMAIL.fullmatch(text) is not None
    if form_format == "uri":
        return _URI.fullmatch(text) is not None
    if form_format == "date":
        return _DATE.fullmatch(text) is not None and _real_date(text)
    match = _DATE_TIME.fullmatch(text)
    if match is None or not _real_date(match.group(1)):
        return False
    hour, minute, second = (int(match.group(n)) for n in (2, 3, 4))
    return hour < 24 and minute < 60 and second <= 60  # 60: a leap second, as RFC 3339 allows


def _real_date(text: str) -> bool:
    try:
        datetime.date.fromisoformat(text)
    except ValueError:
        return False
    return True
