"""Run the real `agent mcp console --no-browser` and talk to it over real HTTP (http.client, so
every header is exactly what the test wrote)."""

from __future__ import annotations

import http.client
import json
import os
import re
import selectors
import signal
import subprocess
import time
from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from tests import deadlines
from tests.commands.test_cli_mcp_console import AGENT
from tests.fixtures.mcp_fixtures import stop_child

START_TIMEOUT = deadlines.SERVER_START
REQUEST_TIMEOUT = deadlines.REQUEST
STOP_TIMEOUT = deadlines.STOP
LINK = re.compile(r"Console: http://127\.0\.0\.1:(\d+)/open\?token=([A-Za-z0-9_-]+)")


@dataclass
class Answer:
    """An HTTP answer: status, headers (lower-case names) and body."""

    status: int
    headers: dict[str, str]
    body: bytes

    def json(self) -> Any:
        """The body as JSON."""
        return json.loads(self.body)

    @property
    def text(self) -> str:
        """The body as text."""
        return self.body.decode()


KEY_SLOT = re.compile(r'<meta name="console-key" content="([A-Za-z0-9_-]*)">')


def page_key(answer: Answer) -> str | None:
    """The key in the console page's key slot (empty: a page without one), or None."""
    found = KEY_SLOT.search(answer.text) if answer.status == 200 else None
    return found[1] if found else None


def goes_on_to_the_console(answer: Answer) -> bool:
    """Whether GET /open answered with the console page holding its key (its cookie now set)."""
    return bool(page_key(answer)) and "set-cookie" in answer.headers


@dataclass
class Console:
    """A running console bridge: its process, port, token and (once opened) cookie and the
    page's key (sent as the page sends it, in the X-Console-Key header)."""

    process: subprocess.Popen[bytes]
    port: int
    token: str
    cookie: str | None = None
    key: str | None = None
    stderr_path: Path | None = None
    returncode: int | None = field(default=None)

    @property
    def host(self) -> str:
        """The Host header the bridge accepts."""
        return f"127.0.0.1:{self.port}"

    def request(
        self,
        method: str,
        path: str,
        body: bytes | None = None,
        headers: Mapping[str, str] | None = None,
        *,
        cookie: bool = True,
        key: bool = True,
    ) -> Answer:
        """One request on a fresh connection; Host and (unless told) the cookie and the key
        are added."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT)
        try:
            sent = {"Host": self.host, **(headers or {})}
            if cookie and self.cookie and "Cookie" not in sent:
                sent["Cookie"] = f"agent_console={self.cookie}"
            if key and self.key and "X-Console-Key" not in sent:
                sent["X-Console-Key"] = self.key
            connection.putrequest(method, path, skip_host=True, skip_accept_encoding=True)
            for name, value in sent.items():
                connection.putheader(name, value)
            if body is not None and "Content-Length" not in sent:
                connection.putheader("Content-Length", str(len(body)))
            connection.endheaders(body)
            response = connection.getresponse()
            found = {name.lower(): value for name, value in response.getheaders()}
            return Answer(response.status, found, response.read())
        finally:
            connection.close()

    def post(self, path: str, value: object) -> Answer:
        """POST a JSON body."""
        body = json.dumps(value).encode()
        return self.request("POST", path, body, {"Content-Type": "application/json"})

    def post_with(self, headers: Mapping[str, str], path: str, value: object = None) -> Answer:
        """POST a JSON body (default {}) with these extra headers."""
        body = json.dumps({} if value is None else value).encode()
        return self.request("POST", path, body, {"Content-Type": "application/json", **headers})

    def repeat(
        self,
        method: str,
        path: str,
        count: int,
        headers: Mapping[str, str] | None = None,
        *,
        key: bool = True,
    ) -> list[int]:
        """The statuses of `count` requests sent one after another on one connection (with
        the cookie, the key unless told, and these extra headers)."""
        connection = http.client.HTTPConnection("127.0.0.1", self.port, timeout=REQUEST_TIMEOUT)
        statuses = []
        try:
            for _ in range(count):
                connection.putrequest(method, path, skip_host=True)
                connection.putheader("Host", self.host)
                connection.putheader("Cookie", f"agent_console={self.cookie}")
                if key:
                    connection.putheader("X-Console-Key", self.key or "")
                for name, value in (headers or {}).items():
                    connection.putheader(name, value)
                connection.endheaders()
                response = connection.getresponse()
                response.read()
                statuses.append(response.status)
        finally:
            connection.close()
        return statuses

    def open_link(self) -> Answer:
        """GET the one-time link; keep the cookie it sets and the key in the page it serves."""
        answer = self.request("GET", f"/open?token={self.token}", cookie=False, key=False)
        match = re.match(r"agent_console=([^;]+)", answer.headers.get("set-cookie", ""))
        if match:
            self.cookie = match[1]
        self.key = page_key(answer) or self.key
        return answer

    def stderr(self) -> str:
        """What the bridge wrote to stderr so far."""
        assert self.stderr_path is not None
        return self.stderr_path.read_text(encoding="utf-8", errors="replace")


def launch_console(
    env: Mapping[str, str],
    stderr_path: Path,
    *args: str,
    browser: bool = False,
    cwd: Path | None = None,
    terminal: bool = False,
) -> tuple[subprocess.Popen[bytes], str]:
    """Start the real `agent mcp console ARGS` (with --no-browser unless `browser`), wait
    (bounded) for its one "Console: URL" line and return the process and the URL; on failure
    stop it and say why, with its stderr. With `terminal`, its stdin is a pipe the test types
    into (`new_link`); otherwise it is empty."""
    flags = [] if browser else ["--no-browser"]
    with stderr_path.open("wb") as stderr:
        process = subprocess.Popen(
            [AGENT, "mcp", "console", *flags, *args],
            stdin=subprocess.PIPE if terminal else subprocess.DEVNULL,
            stdout=subprocess.PIPE,
            stderr=stderr,
            env=dict(env),
            cwd=cwd,
        )
    try:
        line = read_line(process, START_TIMEOUT)
    except TimeoutError:
        line = ""
    if LINK.fullmatch(line.strip()) is None:
        stop_child(process, timeout=STOP_TIMEOUT)
        close_terminal(process)
        stderr_text = stderr_path.read_text(encoding="utf-8", errors="replace")
        raise AssertionError(f"not the console's link line: {line!r}; stderr:\n{stderr_text}")
    return process, line.strip().removeprefix("Console: ")


@contextmanager
def running_console(
    home: Path,
    *args: str,
    opened: bool = True,
    browser: bool = False,
    env: Mapping[str, str] | None = None,
) -> Iterator[Console]:
    """Start `agent mcp console ARGS` with AGENT_HOME=home (and `env` added), wait for its
    link line, open the link (unless told not to), and stop it with SIGTERM at the end."""
    environ = {**os.environ, "AGENT_HOME": str(home), **(env or {})}
    stderr_path = home.parent / f"console-stderr-{time.monotonic_ns()}.log"
    process, url = launch_console(environ, stderr_path, *args, browser=browser)
    try:
        match = LINK.fullmatch(f"Console: {url}")
        assert match is not None
        console = Console(process, int(match[1]), match[2], stderr_path=stderr_path)
        if opened:
            assert goes_on_to_the_console(console.open_link())
        yield console
    finally:
        stop(process)


def new_link(process: subprocess.Popen[bytes]) -> str:
    """Press Enter in the console's terminal (a `terminal` launch) and return the new link."""
    assert process.stdin is not None
    process.stdin.write(b"\n")
    process.stdin.flush()
    line = read_line(process, START_TIMEOUT).strip()
    assert LINK.fullmatch(line), f"not a new link: {line!r}"
    return line.removeprefix("Console: ")


def close_terminal(process: subprocess.Popen[bytes]) -> None:
    """Close the pipe a `terminal` launch types into (once the console has stopped)."""
    if process.stdin is not None:
        process.stdin.close()


def read_line(process: subprocess.Popen[bytes], timeout: float) -> str:
    """The next line of the process's stdout, waiting at most `timeout` s."""
    assert process.stdout is not None
    with selectors.DefaultSelector() as selector:
        selector.register(process.stdout, selectors.EVENT_READ)
        if not selector.select(timeout=timeout):
            raise TimeoutError(f"no line from the console within {timeout:g} s")
        return process.stdout.readline().decode()


def stop(process: subprocess.Popen[bytes], signum: int = signal.SIGTERM) -> int:
    """Signal the bridge and wait (bounded) for it to exit; failing if it had to be killed."""
    return stop_child(process, signum, STOP_TIMEOUT, strict=True)


class EventStream:
    """An open GET /api/events: read its events one by one (each read bounded)."""

    def __init__(self, console: Console, timeout: float = REQUEST_TIMEOUT) -> None:
        self.connection = http.client.HTTPConnection("127.0.0.1", console.port, timeout=timeout)
        self.connection.putrequest("GET", "/api/events", skip_host=True)
        self.connection.putheader("Host", console.host)
        self.connection.putheader("Cookie", f"agent_console={console.cookie}")
        if console.key:
            self.connection.putheader("X-Console-Key", console.key)
        self.connection.endheaders()
        self.response = self.connection.getresponse()
        self.seen: list[tuple[str, Any]] = []

    def next_event(self) -> tuple[str, Any]:
        """The next event (type, data); ping comments are skipped."""
        kind, data = "message", ""
        while True:
            raw = self.response.fp.readline()
            if not raw:
                raise EOFError("the event stream ended")
            line = raw.decode().rstrip("\n")
            if line.startswith("event: "):
                kind = line[len("event: ") :]
            elif line.startswith("data: "):
                data = line[len("data: ") :]
            elif line == "" and data:
                event = (kind, json.loads(data))
                self.seen.append(event)
                return event

    def wait_for(
        self, wanted: Callable[[str, Any], bool], timeout: float = REQUEST_TIMEOUT
    ) -> tuple[str, Any]:
        """Read events until one is `wanted`, for at most `timeout` s (pings and unwanted
        events do not extend it; each read is bounded by the socket's timeout)."""
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            kind, data = self.next_event()
            if wanted(kind, data):
                return kind, data
        raise AssertionError(f"no wanted event within {timeout:g} s; seen: {self.seen[-5:]}")

    def find(self, wanted: Callable[[str, Any], bool], since: int = 0) -> tuple[str, Any]:
        """The first event read so far (from the `since`-th on) that is `wanted`."""
        found = [event for event in self.seen[since:] if wanted(*event)]
        assert found, f"no such event among {len(self.seen)}"
        return found[0]

    def close(self) -> None:
        """Close the stream."""
        self.connection.close()
