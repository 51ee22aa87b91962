"""Which values of a launch are secrets: what redaction masks in everything a server sends.

Masking a value that is not a secret corrupts every text it occurs in ("text" masked in
every result, the home folder in every path), so not every value counts:

- a value the child inherits anyway (HOME, PATH, USER...) is the person's ordinary
  environment, seen by every process: never a secret, even when a `${VAR}` repeats it;
- a literal env value is in the store in plain text already; it is a secret when its name
  says so (API_KEY, DB_PASSWORD) or it looks like a credential, not when it is one plain
  word or number ("text", "debug", "8080");
- every other `${VAR}` expansion and every header value is a secret by its place.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping

from agent.redaction import secret_values

_SECRET_NAME = re.compile(
    r"pass|pwd|secret|token|key|auth|cred|cookie|session|private|signature|cert|dsn|conn",
    re.IGNORECASE,
)
_PLAIN = re.compile(r"[A-Za-z]{1,24}|[0-9][0-9.]{0,23}")


def env_secrets(env: Mapping[str, str], inherited: Mapping[str, str]) -> list[str]:
    """The secrets among a stdio definition's (expanded) env values, with their parts."""
    ordinary = set(inherited.values())
    return secret_values(
        value
        for name, value in env.items()
        if value not in ordinary and (_SECRET_NAME.search(name) or not _PLAIN.fullmatch(value))
    )


def without_ordinary(values: Iterable[str], inherited: Mapping[str, str]) -> list[str]:
    """`values` less those the child inherits anyway (a `${HOME}` is no secret)."""
    ordinary = set(inherited.values())
    return [value for value in values if value not in ordinary]
