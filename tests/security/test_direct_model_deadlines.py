"""A model server spoken to directly (agent/model/openai_compatible.py) that keeps the request
alive without ever finishing it: a keep-alive comment every fraction of a second, the answer
trickled one byte at a time, its headers trickled, a Retry-After of most of a minute on every
try. Each byte resets the chunk timeout, so only the request's own deadline
(model_limits.request_timeout_seconds) can end it: the real `agent -p` must end within it,
with a clear error, and let go of the connection."""

from __future__ import annotations

import os
import signal
import subprocess
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from tests.pty_chat import AGENT, pty_env
from tests.security.test_hostile_model_server import _Server, model_server, stream_headers

DEADLINE = 3  # model_limits.request_timeout_seconds in these runs
CHUNK_TIMEOUT = 5  # longer than the deadline: a byte every 0.3 s resets it anyway
GRACE = 15  # start-up and a loaded machine; far below the hour a trickle could last


def run_with_deadline(
    server: _Server, tmp_path: Path, agent_home: Path, retries: int = 0
) -> tuple[int, bytes, float]:
    """`agent -p hi` against `server` with a 3 s deadline: exit code, stderr, seconds taken.
    A run still going after the grace period is killed (its whole group) and fails the test."""
    agent_home.mkdir(parents=True, exist_ok=True)
    (agent_home / "settings.yaml").write_text(
        f"model_limits:\n  retries: {retries}\n  request_timeout_seconds: {DEADLINE}\n"
        f"  chunk_timeout_seconds: {CHUNK_TIMEOUT}\n"
    )
    argv = [AGENT, "--model", "openai/hostile", "--api-base", server.base_url, "-p", "hi"]
    started = time.monotonic()
    process = subprocess.Popen(
        argv,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        env=pty_env(agent_home, tmp_path),
        cwd=tmp_path,
        start_new_session=True,
    )
    try:
        _, stderr = process.communicate(timeout=DEADLINE + GRACE)
    except subprocess.TimeoutExpired:
        os.killpg(process.pid, signal.SIGKILL)
        process.communicate()
        raise AssertionError(f"agent -p was still waiting after {DEADLINE + GRACE} s") from None
    return process.returncode, stderr, time.monotonic() - started


def keep_alive_forever(handler: BaseHTTPRequestHandler) -> None:
    stream_headers(handler)
    handler.wfile.write(b'data: {"choices": [{"index": 0, "delta": {"content": "Hello"}}]}\n\n')
    while True:
        handler.wfile.write(b": ping\n\n")
        time.sleep(0.3)


def trickle_forever(handler: BaseHTTPRequestHandler) -> None:
    stream_headers(handler)
    handler.wfile.write(b'data: {"choices": [{"index": 0, "delta": {"content": "')
    while True:
        handler.wfile.write(b"a")
        time.sleep(0.3)


def trickle_headers_forever(handler: BaseHTTPRequestHandler) -> None:
    handler.wfile.write(b"HTTP/1.1 200 OK\r\nX-Slow: ")
    while True:
        handler.wfile.write(b"a")
        time.sleep(0.3)


def busy_for_most_of_a_minute(handler: BaseHTTPRequestHandler) -> None:
    handler.send_response(429)
    handler.send_header("Retry-After", "50")
    handler.send_header("Content-Length", "0")
    handler.end_headers()


def test_keep_alive_comments_cannot_outlast_the_request_deadline(
    tmp_path: Path, agent_home: Path
) -> None:
    with model_server(keep_alive_forever) as server:
        code, stderr, took = run_with_deadline(server, tmp_path, agent_home)

    assert code == 1
    assert f"did not finish its answer within {DEADLINE} s".encode() in stderr
    assert took < DEADLINE + GRACE


def test_an_answer_trickled_a_byte_at_a_time_cannot_outlast_the_request_deadline(
    tmp_path: Path, agent_home: Path
) -> None:
    with model_server(trickle_forever) as server:
        code, stderr, _ = run_with_deadline(server, tmp_path, agent_home)

    assert code == 1
    assert f"did not finish its answer within {DEADLINE} s".encode() in stderr


def test_headers_trickled_a_byte_at_a_time_cannot_outlast_the_request_deadline(
    tmp_path: Path, agent_home: Path
) -> None:
    with model_server(trickle_headers_forever) as server:
        code, stderr, _ = run_with_deadline(server, tmp_path, agent_home)

    assert code == 1
    assert f"did not finish its answer within {DEADLINE} s".encode() in stderr


def test_a_retry_after_longer_than_the_deadline_ends_the_request_at_once(
    tmp_path: Path, agent_home: Path
) -> None:
    with model_server(busy_for_most_of_a_minute) as server:
        code, stderr, took = run_with_deadline(server, tmp_path, agent_home, retries=2)
        tries = len(server.requests)

    assert code == 1
    assert b"rate-limiting requests for openai/hostile" in stderr
    assert tries == 1  # waiting 50 s would outlast the 3 s deadline: no point
    assert took < DEADLINE + GRACE
