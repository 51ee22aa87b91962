"""oauth-tokens.json: OAuth tokens and client registrations, in their own 0600 file.

    {"version": 1,
     "servers": {"<name>": {"url": ..., "tokens": {...} | null, "client": {...} | null,
                            "metadata": {...} | null, "needs_login": bool, "scope": str | null}}}

The file lives in the data home, never in mcp-servers.json, and is keyed by server name and
URL: a record whose URL is not the server's current URL is never used and is dropped at the
next write, as is the record of a removed server. `tokens.expires_at` is absolute (epoch
seconds) so any process can tell whether a token is still good.

Every change is a locked read-modify-write with an atomic replace (agent/home.py). The lock is
held only for file work, never across a request: a refresh re-reads under it and stores its
result only if the record is still the one it started from (oauth/runtime.py). A file that
is damaged or readable by others is reported and never overwritten.
"""

from __future__ import annotations

import json
import os
import stat
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from agent.errors import TokenStoreError
from agent.home import atomic_write, data_home, file_lock

TOKEN_FILE_NAME = "oauth-tokens.json"  # noqa: S105 (a file name)
TOKEN_FILE_VERSION = 1
_RECORD_KEYS = frozenset({"url", "tokens", "client", "metadata", "needs_login", "scope"})
# A token this close to its expiry is refreshed before use: a request should not race the clock.
EXPIRY_MARGIN_SECONDS = 60.0


def token_file_path() -> Path:
    """oauth-tokens.json in the data home."""
    return data_home() / TOKEN_FILE_NAME


@dataclass(frozen=True)
class ServerAuth:
    """What is stored for one server: its URL, tokens, client registration and AS metadata."""

    url: str
    tokens: dict[str, Any] | None = (
        None  # access_token, token_type, refresh_token, scope, expires_at
    )
    client: dict[str, Any] | None = None  # the SDK's OAuthClientInformationFull, as JSON
    metadata: dict[str, Any] | None = None  # issuer, token/revocation endpoints, resource
    needs_login: bool = False
    scope: str | None = None  # the scope the next login asks for (a step-up's union)

    def to_json(self) -> dict[str, Any]:
        """The record as stored in the file."""
        return {
            "url": self.url,
            "tokens": self.tokens,
            "client": self.client,
            "metadata": self.metadata,
            "needs_login": self.needs_login,
            "scope": self.scope,
        }

    def access_token(self) -> str | None:
        """The stored access token, if any."""
        value = (self.tokens or {}).get("access_token")
        return value if isinstance(value, str) and value else None

    def refresh_token(self) -> str | None:
        """The stored refresh token, if any."""
        value = (self.tokens or {}).get("refresh_token")
        return value if isinstance(value, str) and value else None

    def expires_at(self) -> float | None:
        """When the access token expires (epoch seconds), if the server said."""
        value = (self.tokens or {}).get("expires_at")
        return float(value) if isinstance(value, int | float) else None

    def fresh(self, now: float | None = None) -> bool:
        """True when the access token can be sent as it is (not near its expiry)."""
        if self.access_token() is None or self.needs_login:
            return False
        expires = self.expires_at()
        moment = time.time() if now is None else now
        if expires is None:
            return True
        # A short-lived token gets half its life as margin, or it would never count as fresh.
        issued = (self.tokens or {}).get("issued_at")
        lifetime = expires - issued if isinstance(issued, int | float) else None
        margin = (
            EXPIRY_MARGIN_SECONDS if lifetime is None else min(EXPIRY_MARGIN_SECONDS, lifetime / 2)
        )
        return moment < expires - margin


@dataclass(frozen=True)
class AuthStatus:
    """What `agent mcp list` and /mcp show: none, logged in (expiry), needs login."""

    state: str  # "none" | "logged in" | "needs login"
    expires_at: float | None = None
    wanted: str | None = None  # a step-up's scope that the next login asks for

    def describe(self) -> str:
        """One short phrase, e.g. `logged in (expires 14:05)`."""
        more = f"; more access wanted: {self.wanted}" if self.wanted else ""
        if self.state != "logged in" or self.expires_at is None:
            return self.state + more
        moment = time.localtime(self.expires_at)
        shown = time.strftime(
            "%H:%M" if self.expires_at - time.time() < 86400 else "%Y-%m-%d", moment
        )
        word = "expired" if self.expires_at <= time.time() else "expires"
        return f"logged in ({word} {shown}){more}"


@dataclass
class TokenFile:
    """The decoded file: records by server name."""

    servers: dict[str, ServerAuth] = field(default_factory=dict)


class TokenStore:
    """Reads and changes oauth-tokens.json; every change is locked, re-read and atomic."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = token_file_path() if path is None else path

    def load(self) -> TokenFile:
        """The whole file; missing is empty; damaged or loose permissions raise TokenStoreError."""
        try:
            fd = os.open(self.path, os.O_RDONLY | os.O_NOFOLLOW)
        except FileNotFoundError:
            return TokenFile()
        except OSError as error:
            raise TokenStoreError(f"{self.path}: cannot read: {error.strerror}") from error
        with os.fdopen(fd, "rb") as handle:
            mode = os.fstat(handle.fileno()).st_mode
            if stat.S_IMODE(mode) & 0o077:
                raise TokenStoreError(
                    f"{self.path}: holds OAuth tokens but others can read or change it "
                    f"(mode {stat.S_IMODE(mode):o}); run chmod 600 {self.path} if it is yours, "
                    "else delete it and log in again"
                )
            raw = handle.read()
        return _decode(raw, self.path)

    def get(self, name: str, url: str) -> ServerAuth | None:
        """The record for `name`, only if it was made for this same `url`."""
        record = self.load().servers.get(name)
        return record if record is not None and record.url == url else None

    def status(self, name: str, url: str) -> AuthStatus:
        """Auth state from the file alone (no network, no mcp import)."""
        record = self.get(name, url)
        if record is None:
            return AuthStatus("none")
        if record.needs_login:
            return AuthStatus("needs login")
        if record.access_token() is None:
            return AuthStatus("none")
        expires = record.expires_at()
        if expires is not None and expires <= time.time() and record.refresh_token() is None:
            return AuthStatus("needs login")
        return AuthStatus("logged in", expires, record.scope)

    @contextmanager
    def locked(self) -> Iterator[None]:
        """Hold the file's cross-process lock (only for file work, never across a request)."""
        with file_lock(self.path):
            yield

    def update(
        self, name: str, url: str, change: Callable[[ServerAuth], ServerAuth | None]
    ) -> ServerAuth | None:
        """Change one server's record under the lock; `change` gets a fresh record if none."""
        with self.locked():
            return self.update_locked(name, url, change)

    def update_locked(
        self, name: str, url: str, change: Callable[[ServerAuth], ServerAuth | None]
    ) -> ServerAuth | None:
        """As update, for a caller that already holds `locked()`."""
        current = self.load()
        record = current.servers.get(name)
        if record is None or record.url != url:
            record = ServerAuth(url=url)  # another URL's tokens are never carried over
        after = change(record)
        servers = dict(current.servers)
        if after is None:
            servers.pop(name, None)
        else:
            servers[name] = after
        self._write(servers)
        return after

    def forget(self, name: str) -> ServerAuth | None:
        """Drop everything stored for `name`; return what was there."""
        with self.locked():
            current = self.load()
            servers = dict(current.servers)
            dropped = servers.pop(name, None)
            if dropped is not None:
                self._write(servers)
            return dropped

    def keep_only(self, servers_by_name: Mapping[str, str | None]) -> None:
        """Drop records of servers no longer configured, or configured with another URL.

        A URL of None (a variable in it is unset) keeps the server's record: it may match.
        """
        if not self.path.exists():
            return
        with self.locked():
            current = self.load()
            kept = {
                name: record
                for name, record in current.servers.items()
                if name in servers_by_name and servers_by_name[name] in (None, record.url)
            }
            if kept != current.servers:
                self._write(kept)

    def mark_needs_login(self, name: str, url: str, scope: str | None = None) -> None:
        """Record that the server needs a login (tokens dropped); keep the registration."""

        def change(record: ServerAuth) -> ServerAuth:
            wanted = scope if scope is not None else record.scope
            return replace(record, tokens=None, needs_login=True, scope=wanted)

        self.update(name, url, change)

    def _write(self, servers: Mapping[str, ServerAuth]) -> None:
        payload = {
            "version": TOKEN_FILE_VERSION,
            "servers": {name: record.to_json() for name, record in servers.items()},
        }
        text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
        atomic_write(self.path, text.encode("utf-8"), mode=0o600)


def _decode(raw: bytes, path: Path) -> TokenFile:
    advice = (
        "move it away (you will need to log in again) or fix it by hand; "
        "agent will not overwrite it"
    )
    try:
        data = json.loads(raw.decode("utf-8"))
    except (UnicodeDecodeError, json.JSONDecodeError, RecursionError) as error:
        raise TokenStoreError(
            f"{path}: not valid JSON ({type(error).__name__}); {advice}"
        ) from None
    if not isinstance(data, dict) or data.get("version") != TOKEN_FILE_VERSION:
        raise TokenStoreError(f"{path}: not a version {TOKEN_FILE_VERSION} token file; {advice}")
    servers = data.get("servers")
    if set(data) != {"version", "servers"} or not isinstance(servers, dict):
        raise TokenStoreError(f"{path}: expected exactly version and servers; {advice}")
    decoded = {}
    for name, record in servers.items():
        if not _valid_record(record):
            # Never quote a value: the record holds tokens.
            raise TokenStoreError(f"{path}: servers.{name}: malformed record; {advice}")
        decoded[name] = ServerAuth(**record)
    return TokenFile(decoded)


def _valid_record(record: object) -> bool:
    if not isinstance(record, dict) or set(record) != _RECORD_KEYS:
        return False
    return (
        isinstance(record["url"], str)
        and all(isinstance(record[key], dict | None) for key in ("tokens", "client", "metadata"))
        and isinstance(record["needs_login"], bool)
        and isinstance(record["scope"], str | None)
    )
