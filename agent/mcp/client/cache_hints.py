"""A server's cache hint (`ttlMs`, 2026-07-28) as a bounded number of seconds.

The hint is the server's word: an int of any size in JSON. `ttl_ms / 1000` of one with
hundreds of digits raises OverflowError (a start that failed on a number), and a merely huge
one would keep a server's answers (its tools, its discover result with its instructions) from
being asked again for years, so every use of a hint goes through `hint_seconds`.
"""

from __future__ import annotations

# A cache hint longer than this is taken as this: a mistaken (or hostile) hint must not keep
# a server's upgrade from the model for longer than a day.
MAX_FRESH_SECONDS = 24 * 60 * 60


def hint_seconds(ttl_ms: int) -> float:
    """`ttl_ms` in seconds, at least 0 and at most MAX_FRESH_SECONDS (compared as ints first,
    so no size of hint overflows a float)."""
    return max(0, min(ttl_ms, MAX_FRESH_SECONDS * 1000)) / 1000


def within_bound(until: object, now: float) -> bool:
    """Whether a stored "fresh until" moment still holds at `now`: a number after now and not
    further off than the bound (a clock set back, or a hand-edited file, cannot pin it)."""
    return (
        isinstance(until, int | float)
        and not isinstance(until, bool)
        and (now < until <= now + MAX_FRESH_SECONDS)
    )
