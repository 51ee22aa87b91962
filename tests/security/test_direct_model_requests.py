"""Requests the direct client (agent/model/openai_compatible.py) cannot send: an API key with a
line break (a key file read with its newline, or a header smuggled in after it) or a letter
HTTP headers cannot carry, an address whose port does not exist. Each is a clear error with
nothing sent, as through litellm; before, `agent -p` printed a traceback, or blamed the
server ("nothing answers") and tried again."""

from __future__ import annotations

import gzip
import subprocess
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from tests.fake_openai import FakeOpenAI
from tests.pty_chat import AGENT, pty_env
from tests.security.test_hostile_model_server import model_server, stream_headers


def agent_p(api_base: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [AGENT, "--model", "openai/m", "--api-base", api_base, "-p", "hi"],
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=60,
        start_new_session=True,
    )


@pytest.mark.parametrize(
    "key",
    ["sk-local-0123456789\n", "sk-local-0123456789\r\nX-Forwarded-For: 10.0.0.1", "sk-é-012345"],
)
def test_a_key_headers_cannot_carry_is_refused_naming_its_variable_and_nothing_is_sent(
    key: str, tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path) | {"OPENAI_API_KEY": key}
    with FakeOpenAI([{"text": "never"}]) as fake:
        done = agent_p(fake.base_url, env, tmp_path)
        assert fake.requests == []

    assert done.returncode == 1
    assert done.stderr.startswith(b"error: OPENAI_API_KEY holds a line break or a character")
    assert b"Traceback" not in done.stderr and b"0123456789" not in done.stderr


def test_an_address_with_a_port_that_cannot_exist_is_one_clear_error(
    tmp_path: Path, agent_home: Path
) -> None:
    done = agent_p("http://127.0.0.1:99999/v1", pty_env(agent_home, tmp_path), tmp_path)

    assert done.returncode == 1
    assert b"Traceback" not in done.stderr
    assert done.stderr.startswith(b"error: the request to openai/m failed: ")
    assert b"port must be 0-65535" in done.stderr


def deeply_nested(handler: BaseHTTPRequestHandler) -> None:
    # 100,000 nested arrays: json.loads raises RecursionError (not ValueError) on them.
    stream_headers(handler)
    handler.wfile.write(b"data: " + b"[" * 100_000 + b"\n\n")


def deeply_nested_error(handler: BaseHTTPRequestHandler) -> None:
    body = b'{"error": ' + b"[" * 100_000
    handler.send_response(400)
    handler.send_header("Content-Length", str(len(body)))
    handler.end_headers()
    handler.wfile.write(body)


@pytest.mark.parametrize("behaviour", [deeply_nested, deeply_nested_error])
def test_json_nested_too_deep_to_read_is_one_clear_error(
    behaviour: Any, tmp_path: Path, agent_home: Path
) -> None:
    with model_server(behaviour) as server:
        done = agent_p(server.base_url, pty_env(agent_home, tmp_path), tmp_path)

    assert done.returncode == 1
    assert b"Traceback" not in done.stderr
    assert done.stderr.startswith(b"error: "), done.stderr[-500:]
    assert b"[[[[" in done.stderr and len(done.stderr) < 1000  # the server's words, cut short
    assert b"RecursionError" not in done.stderr


def gzip_error(body: bytes) -> Any:
    def behaviour(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(503)
        handler.send_header("Content-Encoding", "gzip")
        handler.send_header("Content-Length", str(len(body)))
        handler.end_headers()
        handler.wfile.write(body)

    return behaviour


@pytest.mark.parametrize(
    ("body", "said"),
    [
        (gzip.compress(b'{"error": {"message": "model is loading"}}'), b"model is loading"),
        (b"not gzip at all", b"could not be unpacked"),
    ],
    ids=["gzip", "broken-gzip"],
)
def test_an_error_body_in_gzip_is_read_and_a_broken_one_still_names_the_status(
    body: bytes, said: bytes, tmp_path: Path, agent_home: Path
) -> None:
    # A broken body was taken for a broken connection: "nothing answers ... is the model
    # server running there?", after trying again, about a server that had answered 503.
    with model_server(gzip_error(body)) as server:
        done = agent_p(server.base_url, pty_env(agent_home, tmp_path), tmp_path)

    assert done.returncode == 1
    assert b"failed to answer (" in done.stderr and b"(HTTP 503)" in done.stderr
    assert said in done.stderr


def test_an_answer_that_does_not_unpack_is_not_said_as_nothing_answering(
    tmp_path: Path, agent_home: Path
) -> None:
    def broken_gzip(handler: BaseHTTPRequestHandler) -> None:
        handler.send_response(200)
        handler.send_header("Content-Type", "text/event-stream")
        handler.send_header("Content-Encoding", "gzip")
        handler.send_header("Connection", "close")
        handler.end_headers()
        handler.wfile.write(b"data: this is not gzip\n\n")

    with model_server(broken_gzip) as server:
        done = agent_p(server.base_url, pty_env(agent_home, tmp_path), tmp_path)

    assert done.returncode == 1
    assert b"nothing answers" not in done.stderr
    assert b"failed to answer (an answer that could not be unpacked" in done.stderr
