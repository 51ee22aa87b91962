"""Where an authorization code comes back: a loopback listener, or a URL pasted in the terminal.

The listener binds 127.0.0.1 only, serves each connection on its own (an idle one delays no
other), answers the browser with a short page and accepts exactly one callback: on the
redirect path, carrying the `state` of the login in progress. Anything else (another path, a
missing or wrong state: a page that is not this flow trying to slip its own code in) gets an
error page and is ignored, and the wait goes on. A pasted redirect URL is held to the same
rules, for a browser on another machine.
"""

from __future__ import annotations

import contextlib
import os
import secrets
import stat
import sys
from collections.abc import Callable
from dataclasses import dataclass
from html import escape
from typing import cast
from urllib.parse import parse_qs, urlsplit

import anyio
import anyio.abc

from agent.errors import LoginError
from agent.text import sanitize_line

CALLBACK_PATH = "/callback"
_REQUEST_LIMIT = 16 * 1024
# Each connection is served on its own, so one that connects and says nothing delays no other;
# it is closed after this long, and no more than _MAX_CONNECTIONS are open at once (more are
# closed at once: a local process flooding the port cannot exhaust our file descriptors).
_REQUEST_TIMEOUT = 5.0
_MAX_CONNECTIONS = 32


@dataclass(frozen=True)
class Callback:
    """What the authorization server sent back: a code (or an error) and its state."""

    code: str | None
    state: str | None
    iss: str | None
    error: str | None


def parse_callback(target: str) -> Callback:
    """The callback parameters of a request target or a whole redirect URL."""
    query = parse_qs(urlsplit(target.strip()).query)

    def first(key: str) -> str | None:
        values = query.get(key)
        return values[0] if values else None

    error = first("error")
    if error is not None:
        description = first("error_description")
        error = f"{error}: {description}" if description else error
    return Callback(first("code"), first("state"), first("iss"), error)


def state_matches(callback: Callback, expected: str) -> bool:
    """Constant-time comparison of the callback's state with the login's."""
    return callback.state is not None and secrets.compare_digest(callback.state, expected)


class CallbackListener:
    """A one-shot HTTP listener on 127.0.0.1 for the authorization redirect."""

    def __init__(self, listener: anyio.abc.SocketListener, port: int) -> None:
        self._listener = listener
        self.port = port
        self.redirect_uri = f"http://127.0.0.1:{port}{CALLBACK_PATH}"

    @classmethod
    async def open(cls, port: int) -> CallbackListener:
        """Bind 127.0.0.1:`port` (0: any free port); OSError when the port is taken."""
        listener = await anyio.create_tcp_listener(
            local_host="127.0.0.1", local_port=port, reuse_port=False
        )
        # One address, so one listener: the socket one, whose accept() we call ourselves.
        only = cast(anyio.abc.SocketListener, listener.listeners[0])
        return cls(only, only.extra(anyio.abc.SocketAttribute.local_port))  # noqa: S610

    async def aclose(self) -> None:
        """Stop listening."""
        await self._listener.aclose()

    async def wait(self, expected_state: str, note: Callable[[str], None]) -> Callback:
        """Serve requests, each in its own task, until one carries the login's state."""
        result: list[Callback] = []
        serving = [0]  # connections open now
        async with anyio.create_task_group() as group:

            async def serve(stream: anyio.abc.SocketStream) -> None:
                try:
                    found = await self._serve(stream, expected_state, note)
                finally:
                    serving[0] -= 1
                if found is not None and not result:
                    result.append(found)
                    group.cancel_scope.cancel()  # the first valid callback ends the others

            while True:
                stream = await self._listener.accept()
                if serving[0] >= _MAX_CONNECTIONS:
                    await stream.aclose()
                    continue
                serving[0] += 1
                group.start_soon(serve, stream)
        return result[0]

    async def _serve(
        self, stream: anyio.abc.SocketStream, expected: str, note: Callable[[str], None]
    ) -> Callback | None:
        async with stream:
            try:
                with anyio.fail_after(_REQUEST_TIMEOUT):
                    target = await _read_request_target(stream)
            except (TimeoutError, OSError, anyio.EndOfStream, anyio.BrokenResourceError):
                return None
            return await self._answer(stream, target, expected, note)

    async def _answer(
        self,
        stream: anyio.abc.SocketStream,
        target: str | None,
        expected: str,
        note: Callable[[str], None],
    ) -> Callback | None:
        if target is None or urlsplit(target).path != CALLBACK_PATH:
            await _respond(stream, 404, "Not found", "This address only takes a login callback.")
            return None
        callback = parse_callback(target)
        if not state_matches(callback, expected):
            note("ignored a callback that is not from this login (its state does not match)")
            await _respond(
                stream,
                400,
                "Not this login",
                "This request is not from the login agent is waiting for; it was ignored.",
            )
            return None
        if callback.error is not None:
            await _respond(stream, 200, "Login refused", "The authorization server said no.")
        else:
            await _respond(stream, 200, "Logged in", "agent has the login; you can close this tab.")
        return callback


async def _read_request_target(stream: anyio.abc.SocketStream) -> str | None:
    data = b""
    while b"\r\n\r\n" not in data and b"\n\n" not in data:
        chunk = await stream.receive(4096)
        data += chunk
        if len(data) > _REQUEST_LIMIT:
            return None
    line = data.split(b"\n", 1)[0].decode("latin-1").strip()
    parts = line.split(" ")
    if len(parts) != 3 or parts[0] != "GET":
        return None
    return parts[1]


async def _respond(stream: anyio.abc.SocketStream, status: int, title: str, text: str) -> None:
    body = (
        f"<!doctype html><meta charset=utf-8><title>{escape(title)}</title>"
        f"<h1>{escape(title)}</h1><p>{escape(text)}</p>"
    ).encode()
    reason = {200: "OK", 400: "Bad Request", 404: "Not Found"}[status]
    head = (
        f"HTTP/1.1 {status} {reason}\r\nContent-Type: text/html; charset=utf-8\r\n"
        f"Content-Length: {len(body)}\r\nCache-Control: no-store\r\nConnection: close\r\n\r\n"
    ).encode()
    with contextlib.suppress(OSError, anyio.BrokenResourceError):
        await stream.send(head + body)


def can_read_paste() -> bool:
    """True when stdin is a terminal, pipe or socket: something a person or a test can type into."""
    try:
        mode = os.fstat(sys.stdin.fileno()).st_mode
    except (OSError, ValueError, AttributeError):
        return False
    return sys.stdin.isatty() or stat.S_ISFIFO(mode) or stat.S_ISSOCK(mode)


async def wait_for_paste(expected_state: str, note: Callable[[str], None]) -> Callback:
    """Read lines from stdin until one is the redirect URL of this login; never at EOF."""
    fd = sys.stdin.fileno()
    pending = b""
    while True:
        await anyio.wait_readable(fd)
        chunk = os.read(fd, 4096)
        if not chunk:
            await anyio.sleep_forever()  # stdin closed: the listener may still finish
        pending += chunk
        while b"\n" in pending:
            raw, pending = pending.split(b"\n", 1)
            line = raw.decode("utf-8", "replace").strip()
            if not line:
                continue
            callback = parse_callback(line)
            if callback.code is None and callback.error is None:
                note("that is not a redirect URL (it has no code); paste the whole URL")
            elif not state_matches(callback, expected_state):
                note("that URL is not from this login (its state does not match); ignored")
            else:
                return callback


def raise_for_error(server: str, callback: Callback) -> str:
    """The authorization code, or a LoginError naming what the authorization server said."""
    if callback.error is not None or not callback.code:
        said = sanitize_line(callback.error or "no code")[:200]
        raise LoginError(f"{server}: the authorization server refused the login ({said})")
    return callback.code
