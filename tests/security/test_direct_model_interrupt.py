"""Ctrl-C in the real chat while a model server spoken to directly
(agent/model/openai_compatible.py) is mid-answer: the connection must close then, not when the
chat ends or the garbage collector gets to it. A server left holding the stream keeps
generating (a local model's GPU stays busy) and could go on streaming into a socket nobody
reads."""

from __future__ import annotations

import threading
import time
from http.server import BaseHTTPRequestHandler
from pathlib import Path

from tests.pty_chat import finish, spawn_chat
from tests.security.test_hostile_model_server import model_server, stream_headers


def test_ctrl_c_mid_answer_closes_the_connection_while_the_chat_goes_on(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    closed = threading.Event()

    def half_an_answer_then_wait(handler: BaseHTTPRequestHandler) -> None:
        stream_headers(handler)
        event = b'data: {"choices": [{"index": 0, "delta": {"content": "Streaming and then"}}]}'
        handler.wfile.write(event + b"\n\n")
        while handler.rfile.read(1):  # the client sends nothing more; b"" once it closes
            pass
        closed.set()

    with model_server(half_an_answer_then_wait) as server:
        chat = spawn_chat(server.base_url, chat_env, tmp_path)
        try:
            chat.expect("›")
            chat.send("first question\r")
            chat.expect("Streaming and then")
            time.sleep(0.3)
            assert not closed.is_set()
            chat.sendintr()
            chat.expect("interrupted")
            assert closed.wait(5), "the connection was still open 5 s after Ctrl-C"
            assert chat.isalive()
            finish(chat)
        finally:
            chat.close(force=True)
