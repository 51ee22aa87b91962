"""A hostile model server at the address a person gave (`openai/NAME --api-base URL`), against
the real `agent -p`, which speaks to it directly (agent/openai_compatible.py): an endless line,
an endless stream of small chunks, an endless error page, a redirect that would carry the
conversation to another server, escape sequences in its error. Each run ends with a clear
error, in bounded time and memory, and nothing goes anywhere else."""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

from tests.pty_chat import AGENT, pty_env

# agent -p's own peak, measured by a parent that waits for it (RUSAGE_CHILDREN of that parent).
RUN_MEASURED = (
    "import resource, subprocess, sys\n"
    "done = subprocess.run(sys.argv[1:])\n"
    "print('PEAK_KIB', resource.getrusage(resource.RUSAGE_CHILDREN).ru_maxrss, file=sys.stderr)\n"
    "sys.exit(done.returncode)\n"
)
PEAK_LIMIT_KIB = 400 * 1024  # agent -p is ~110 MiB; an answer held whole would be far more

Behaviour = Callable[[BaseHTTPRequestHandler], None]


class _Handler(BaseHTTPRequestHandler):
    server: _Server
    protocol_version = "HTTP/1.1"

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: the tests read the recorded requests."""

    def do_POST(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length)
        self.server.requests.append({"path": self.path, "body": body})
        try:
            self.server.behaviour(self)
        except OSError:  # the client gave up: what the test wants
            self.close_connection = True


class _Server(ThreadingHTTPServer):
    daemon_threads = True

    def __init__(self, behaviour: Behaviour) -> None:
        super().__init__(("127.0.0.1", 0), _Handler)
        self.behaviour = behaviour
        self.requests: list[dict[str, Any]] = []

    @property
    def base_url(self) -> str:
        return f"http://127.0.0.1:{self.server_address[1]}/v1"


@contextmanager
def model_server(behaviour: Behaviour) -> Iterator[_Server]:
    server = _Server(behaviour)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield server
    finally:
        server.shutdown()
        server.server_close()


def stream_headers(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(200)
    handler.send_header("Content-Type", "text/event-stream")
    handler.send_header("Connection", "close")
    handler.end_headers()


def endless_line(handler: BaseHTTPRequestHandler) -> None:
    stream_headers(handler)
    handler.wfile.write(b'data: {"choices": [{"index": 0, "delta": {"content": "')
    piece = b"a" * 65536
    while True:
        handler.wfile.write(piece)


def endless_chunks(handler: BaseHTTPRequestHandler) -> None:
    stream_headers(handler)
    event = {"choices": [{"index": 0, "delta": {"content": "word " * 200}}]}
    line = b"data: " + json.dumps(event).encode() + b"\n\n"
    while True:
        handler.wfile.write(line * 64)


def endless_error_page(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(500)
    handler.send_header("Content-Type", "text/html")
    handler.send_header("Connection", "close")
    handler.end_headers()
    handler.wfile.write(b"<html>the page never ends\n")
    piece = b"x" * 65536
    while True:
        handler.wfile.write(piece)


def run_agent_p(
    server: _Server, tmp_path: Path, agent_home: Path, retries: int = 0
) -> tuple[subprocess.CompletedProcess[bytes], int]:
    """`agent -p hi` against `server`; its result and its peak RSS in KiB."""
    agent_home.mkdir(parents=True, exist_ok=True)
    (agent_home / "settings.yaml").write_text(
        f"model_limits:\n  retries: {retries}\n  request_timeout_seconds: 120\n"
    )
    argv = [AGENT, "--model", "openai/hostile", "--api-base", server.base_url, "-p", "hi"]
    done = subprocess.run(
        [sys.executable, "-c", RUN_MEASURED, *argv],
        capture_output=True,
        env=pty_env(agent_home, tmp_path),
        cwd=tmp_path,
        timeout=120,
        start_new_session=True,
    )
    peak = [line for line in done.stderr.decode().splitlines() if line.startswith("PEAK_KIB")]
    return done, int(peak[-1].split()[1])


def test_an_endless_line_ends_the_answer_with_an_error_in_bounded_memory(
    tmp_path: Path, agent_home: Path
) -> None:
    with model_server(endless_line) as server:
        done, peak = run_agent_p(server, tmp_path, agent_home)

    assert done.returncode == 1
    assert b"the answer grew past 16 MiB; refused" in done.stderr
    assert peak < PEAK_LIMIT_KIB


def test_an_endless_stream_of_chunks_ends_with_an_error_in_bounded_memory(
    tmp_path: Path, agent_home: Path
) -> None:
    with model_server(endless_chunks) as server:
        done, peak = run_agent_p(server, tmp_path, agent_home)

    assert done.returncode == 1
    assert b"the answer grew past 16 MiB; refused" in done.stderr
    assert done.stdout.startswith(b"word word")  # what came before the cap was shown
    assert peak < PEAK_LIMIT_KIB


def test_an_endless_error_page_is_read_only_as_far_as_its_message(
    tmp_path: Path, agent_home: Path
) -> None:
    with model_server(endless_error_page) as server:
        done, peak = run_agent_p(server, tmp_path, agent_home, retries=1)
        assert len(server.requests) == 2  # a 500 is tried again, as litellm did

    assert done.returncode == 1
    assert b"failed to answer (<html>the page never ends" in done.stderr
    assert peak < PEAK_LIMIT_KIB


def test_a_redirect_never_carries_the_conversation_to_another_server(
    tmp_path: Path, agent_home: Path
) -> None:
    def answer(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.end_headers()
        handler.wfile.write(b'data: {"choices": [{"index": 0, "delta": {"content": "hi"}}]}\n\n')

    with model_server(answer) as elsewhere:

        def redirect(handler: BaseHTTPRequestHandler) -> None:
            handler.send_response(307)
            handler.send_header("Location", f"{elsewhere.base_url}/chat/completions")
            handler.send_header("Content-Length", "0")
            handler.end_headers()

        with model_server(redirect) as server:
            done, _ = run_agent_p(server, tmp_path, agent_home)
        assert elsewhere.requests == []

    assert done.returncode == 1
    assert b"HTTP 307" in done.stderr


def test_escape_sequences_in_a_servers_error_reach_the_terminal_harmless(
    tmp_path: Path, agent_home: Path
) -> None:
    def error(handler: BaseHTTPRequestHandler) -> None:
        body = json.dumps(
            {"error": {"message": "bad \x1b]0;pwned\x07 request \x1b[2J\rforged line"}}
        ).encode()
        handler.send_response(400)
        handler.send_header("Content-Type", "application/json")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    with model_server(error) as server:
        done, _ = run_agent_p(server, tmp_path, agent_home)

    assert done.returncode == 1
    assert b"rejected the request for openai/hostile: bad" in done.stderr
    assert b"\x1b" not in done.stderr and b"\r" not in done.stderr
