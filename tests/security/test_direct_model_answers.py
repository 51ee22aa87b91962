"""What the direct client (agent/model/openai_compatible.py) makes of a model server's answer,
where it differed from litellm's reading of the same stream: an answer cut off by a closed
connection (a crashed server, a hostile hop on the network) taken as whole, and a tool call's
arguments sent as a JSON object turned into `{}` (the tool called with nothing it was asked)."""

from __future__ import annotations

import asyncio
import json
import subprocess
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any

import pytest

from agent.model import LiteLLMModel, ModelError, ModelSettings, OpenAICompatibleModel
from tests.chat.test_openai_compatible import collect
from tests.pty_chat import AGENT, pty_env
from tests.security.test_hostile_model_server import model_server, stream_headers


def chunk(delta: dict[str, Any], finish_reason: str | None = None) -> bytes:
    event = {"choices": [{"index": 0, "delta": delta, "finish_reason": finish_reason}]}
    return b"data: " + json.dumps(event).encode() + b"\n\n"


def cut_off(*chunks: bytes) -> Any:
    """A server whose connection closes after `chunks`: no finish_reason, no [DONE]. With
    `Connection: close` and no chunked framing, the close is all that marks the end."""

    def behaviour(handler: BaseHTTPRequestHandler) -> None:
        stream_headers(handler)
        for piece in chunks:
            handler.wfile.write(piece)

    return behaviour


def test_an_answer_cut_off_by_a_closed_connection_is_not_taken_as_whole(
    tmp_path: Path, agent_home: Path
) -> None:
    truncated = cut_off(chunk({"content": "To clean up, run: rm -rf ~/projects/build"}))
    with model_server(truncated) as server:
        done = subprocess.run(
            [AGENT, "--model", "openai/m", "--api-base", server.base_url, "-p", "hi"],
            capture_output=True,
            env=pty_env(agent_home, tmp_path),
            cwd=tmp_path,
            timeout=60,
            start_new_session=True,
        )

    assert done.returncode == 1, done.stdout
    assert b"broke off in the middle of the answer" in done.stderr


CALL = {
    "index": 0,
    "id": "call_1",
    "type": "function",
    "function": {"name": "mcp__fx__echo", "arguments": '{"text": "a"}'},
}


@pytest.mark.parametrize("kind", [LiteLLMModel, OpenAICompatibleModel])
def test_a_tool_call_cut_off_by_a_closed_connection_is_never_made(kind: type[LiteLLMModel]) -> None:
    with model_server(cut_off(chunk({"tool_calls": [CALL]}))) as server:
        model = kind(ModelSettings("openai/m", api_base=server.base_url, retries=0))
        with pytest.raises(ModelError, match="broke off in the middle of the answer"):
            asyncio.run(collect(model, []))


def test_tool_arguments_sent_as_an_object_are_the_arguments_called_with() -> None:
    # litellm read them as '{"text": "a"}' (measured in a plain run; under this suite's
    # warnings-as-errors its pydantic serializer warning drops the call, so it is not compared).
    call = CALL | {"function": {"name": "mcp__fx__echo", "arguments": {"text": "a"}}}
    answer = cut_off(chunk({"tool_calls": [call]}), chunk({}, "tool_calls"), b"data: [DONE]\n\n")
    with model_server(answer) as server:
        model = OpenAICompatibleModel(
            ModelSettings("openai/m", api_base=server.base_url, retries=0)
        )
        _, completion = asyncio.run(collect(model, []))

    [made] = completion.tool_calls
    assert json.loads(made.arguments) == {"text": "a"}
