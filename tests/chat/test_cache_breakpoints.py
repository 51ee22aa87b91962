"""Cache breakpoints: litellm marks the system prompt and the last message for providers that
cache only up to explicit marks (Anthropic's Claude), and nothing for the others. The real
LiteLLMModel sends real HTTP to a local server that records each request body."""

from __future__ import annotations

import json
import threading
from collections.abc import Iterator
from contextlib import contextmanager
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from typing import Any

import pytest

from agent.model import LiteLLMModel, ModelError, ModelSettings
from tests.fake_openai import FakeOpenAI

pytestmark = pytest.mark.anyio

MESSAGES = [
    {"role": "system", "content": "You are agent."},
    {"role": "user", "content": "first question"},
    {"role": "assistant", "content": "first answer"},
    {"role": "user", "content": "second question"},
]


@contextmanager
def recording_server() -> Iterator[tuple[str, list[dict[str, Any]]]]:
    """A local HTTP server that records each POSTed JSON body and refuses it with a 400."""
    bodies: list[dict[str, Any]] = []

    class Handler(BaseHTTPRequestHandler):
        disable_nagle_algorithm = True

        def do_POST(self) -> None:
            length = int(self.headers.get("content-length", 0))
            bodies.append(json.loads(self.rfile.read(length)))
            answer = json.dumps(
                {"type": "error", "error": {"type": "invalid_request_error", "message": "no"}}
            ).encode()
            self.send_response(400)
            self.send_header("content-type", "application/json")
            self.send_header("content-length", str(len(answer)))
            self.end_headers()
            self.wfile.write(answer)

        def log_message(self, *args: object) -> None:
            pass

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    try:
        yield f"http://127.0.0.1:{server.server_address[1]}", bodies
    finally:
        server.shutdown()
        server.server_close()
        thread.join(timeout=5)


async def send(model: LiteLLMModel) -> None:
    async for _item in model.stream(MESSAGES, []):
        pass


async def test_a_claude_request_marks_the_system_prompt_and_the_last_message_for_caching(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-test-key")
    with recording_server() as (url, bodies):
        model = LiteLLMModel(ModelSettings("anthropic/claude-sonnet-4-5", api_base=url, retries=0))
        with pytest.raises(ModelError):
            await send(model)

    [body] = bodies
    mark = {"type": "ephemeral"}
    assert body["system"] == [{"type": "text", "text": "You are agent.", "cache_control": mark}]
    last = body["messages"][-1]
    assert last["role"] == "user"
    assert last["content"][-1] == {"type": "text", "text": "second question", "cache_control": mark}
    marked = [m for m in body["messages"][:-1] if "cache_control" in json.dumps(m)]
    assert marked == []  # only the two breakpoints: the system prompt and the last message


async def test_an_openai_compatible_request_carries_no_cache_marks(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    with FakeOpenAI([{"text": "ok"}]) as fake:
        model = LiteLLMModel(ModelSettings("openai/fake-model", api_base=fake.base_url))
        await send(model)
        body = fake.requests[0]["body"]

    assert "cache_control" not in json.dumps(body)
    assert body["messages"] == MESSAGES
