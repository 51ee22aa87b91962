"""Secret values and their redaction: what must never appear in output, logs or errors.

A secret leaks in pieces as often as whole: the password inside a database URL, the cookie
value inside a Cookie header, the credential after "Bearer ", a URL's query values. So each
value a person supplies also yields those parts, and redaction replaces every one of them
(also JSON-escaped, once or nested, or percent-encoded) in a single pass over the text.
"""

from __future__ import annotations

import base64
import binascii
import json
import re
from collections.abc import Iterable
from functools import lru_cache
from urllib.parse import quote, unquote, urlsplit

MASK = "***"
MIN_SECRET_LENGTH = 4  # shorter values ("1", "on", "dev") would mask half of every text


def secret_parts(value: str) -> list[str]:
    """`value` and the secrets embedded in it: auth credentials, URL passwords, query and
    cookie values."""
    parts = [value]
    scheme, _, credential = value.partition(" ")
    if credential and scheme.isalpha():
        credential = credential.strip()
        parts.append(credential)
        if scheme.lower() == "basic":
            parts.extend(_basic_password(credential))
    parts.extend(_url_parts(value))
    for assigned in _assignment_values(value):  # DATABASE_URL=postgres://u:PASS@h;...
        parts.append(assigned)
        parts.extend(_url_parts(assigned))
    return [part for part in dict.fromkeys(parts) if len(part) >= MIN_SECRET_LENGTH]


def secret_values(values: Iterable[str]) -> list[str]:
    """Every secret in `values`, with its embedded parts."""
    found: list[str] = []
    for value in values:
        found.extend(secret_parts(value))
    return list(dict.fromkeys(found))


def _basic_password(credential: str) -> list[str]:
    try:
        decoded = base64.b64decode(credential, validate=True).decode("utf-8")
    except (binascii.Error, ValueError):
        return []
    _user, _, password = decoded.partition(":")
    return [decoded, password] if password else [decoded]


def _url_parts(value: str) -> list[str]:
    if "://" not in value:
        return []
    try:
        url = urlsplit(value.strip())
        password, username = url.password, url.username
    except ValueError:
        return []
    parts = []
    if password:
        parts.append(password)
    elif username:  # https://TOKEN@host: the user name is the credential
        parts.append(username)
    if url.query:
        parts.extend(_assignment_values(url.query))
    return parts


_ASSIGNMENT = re.compile(r"(?:^|[;&,?\s])[^=;&,?\s]+=([^;&,\s]+)")


def _assignment_values(text: str) -> list[str]:
    """The values of `k=v` pairs separated by ; & , or spaces (cookies, query strings)."""
    if "=" not in text:
        return []
    values = []
    for raw in _ASSIGNMENT.findall(text):
        values.append(raw)
        decoded = unquote(raw)
        if decoded != raw:
            values.append(decoded)
    return values


# JSON inside JSON is common: a tool's text result that is itself JSON, sent in a JSON-RPC
# message, shown in a trace line. Each layer escapes " \ and control characters again.
JSON_LAYERS = 3


def _escaped_forms(secret: str) -> set[str]:
    """`secret` as it reads inside up to JSON_LAYERS nested JSON strings (ASCII-escaped or not)."""
    forms = {secret}
    layer = {secret}
    for _ in range(JSON_LAYERS):
        layer = {
            json.dumps(form, ensure_ascii=escape)[1:-1]
            for form in layer
            for escape in (True, False)
        }
        forms |= layer
    return forms


def _repr_forms(secret: str) -> set[str]:
    """`secret` as Python's repr writes it inside a string (an error quoting a server's line, a
    log line of a dict): control characters as \\x01, and `'` escaped as \\' where the whole
    string holds both kinds of quote."""
    plain = repr(secret)[1:-1]
    both_quotes = repr(secret + "'\"")[1:-4]  # the sentinel forces the \\' form; cut it off
    return {plain, both_quotes}


class Redactor:
    """Replaces every form of a fixed set of secrets with ***."""

    def __init__(self, secrets: Iterable[str]) -> None:
        forms: set[str] = set()
        for secret in secrets:
            if len(secret) < MIN_SECRET_LENGTH:
                continue
            forms.update(_escaped_forms(secret))
            forms.update(_repr_forms(secret))
            forms.add(quote(secret, safe=""))
        # Longest first: where one secret contains another, the whole is masked.
        self._forms = sorted((form for form in forms if form), key=len, reverse=True)
        self._pattern = (
            re.compile("|".join(re.escape(form) for form in self._forms)) if self._forms else None
        )

    def __bool__(self) -> bool:
        return self._pattern is not None

    def redact(self, text: str) -> str:
        """`text` with every secret replaced by ***."""
        if self._pattern is None:
            return text
        return self._pattern.sub(MASK, text)

    def redact_cut(self, text: str) -> str:
        """Redact a piece of text that was cut short: also drop a secret's beginning at its
        end, since the rest of that secret was cut off and the mask could not match."""
        text = self.redact(text)
        for form in self._forms:
            for size in range(min(len(form) - 1, len(text)), 0, -1):
                if text.endswith(form[:size]):
                    text = text[:-size]
                    break
        return text

    def clip(self, text: str, limit: int) -> str:
        """At most `limit` characters of `text`, redacted, saying when it was cut."""
        if len(text) <= limit:
            return self.redact(text)
        return self.redact_cut(text[:limit]) + " [cut]"


@lru_cache(maxsize=64)
def _redactor(secrets: tuple[str, ...]) -> Redactor:
    return Redactor(secrets)


def redactor(secrets: Iterable[str]) -> Redactor:
    """A Redactor for `secrets` (cached: building the pattern costs more than using it)."""
    return _redactor(tuple(secrets))


def redact(text: str, secrets: Iterable[str]) -> str:
    """`text` with every secret value replaced by ***, also where JSON escaped it."""
    return redactor(secrets).redact(text)
