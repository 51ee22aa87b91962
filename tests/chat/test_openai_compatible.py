"""OpenAICompatibleModel (agent/openai_compatible.py) against the scripted OpenAI-compatible
server over real HTTP, beside LiteLLMModel on the same scripts: the direct client must send what
litellm sent and make of the answer what litellm made of it, errors included."""

from __future__ import annotations

import asyncio
from typing import Any

import pytest

from agent.messages import Completion
from agent.model import (
    LOADER,
    PLACEHOLDER_KEY,
    LiteLLMLoader,
    LiteLLMModel,
    ModelError,
    ModelSettings,
    OpenAICompatibleModel,
    TextChunk,
    chat_model,
    served_directly,
)
from tests.fake_openai.server import FakeOpenAI

MESSAGES = [{"role": "system", "content": "You are a test."}, {"role": "user", "content": "hi"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "mcp__fx__echo",
            "description": "Echo.",
            "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
        },
    }
]


def settings(fake: FakeOpenAI, retries: int = 0, chunk_timeout: float = 10) -> ModelSettings:
    return ModelSettings(
        "openai/fake-model",
        api_base=fake.base_url,
        retries=retries,
        chunk_timeout_seconds=chunk_timeout,
        request_timeout_seconds=30,
    )


async def collect(model: LiteLLMModel, tools: list[dict[str, Any]]) -> tuple[str, Completion]:
    texts: list[str] = []
    completion: Completion | None = None
    async for item in model.stream(MESSAGES, tools):
        if isinstance(item, TextChunk):
            texts.append(item.text)
        else:
            completion = item
    assert completion is not None
    return "".join(texts), completion


def run_both(turn: dict[str, Any], tools: list[dict[str, Any]]) -> list[Any]:
    """(streamed text, completion, request body) from litellm and from the direct client."""
    results = []
    for kind in (LiteLLMModel, OpenAICompatibleModel):
        with FakeOpenAI([turn]) as fake:
            text, completion = asyncio.run(collect(kind(settings(fake)), tools))
            [request] = fake.requests
        results.append((text, completion, request["body"], request["headers"]["authorization"]))
    return results


def test_only_openai_names_with_an_address_are_spoken_to_directly() -> None:
    assert served_directly("openai/qwen", "http://127.0.0.1:8080/v1")
    assert not served_directly("openai/gpt-4.1", None)  # OpenAI itself: litellm prices it
    assert not served_directly("hosted_vllm/qwen", "http://127.0.0.1:8000/v1")
    assert not served_directly("anthropic/claude-sonnet-4-5", "https://gateway.example/v1")
    direct = chat_model(ModelSettings("openai/qwen", api_base="http://127.0.0.1:8080/v1"))
    assert isinstance(direct, OpenAICompatibleModel)
    assert type(chat_model(ModelSettings("hosted_vllm/qwen", "http://127.0.0.1/v1"))) is (
        LiteLLMModel
    )


@pytest.mark.parametrize(
    "turn",
    [
        {"text": "Hello there, how are you?"},
        {"text": "Calling.", "tool_calls": [{"name": "mcp__fx__echo", "arguments": {"text": "a"}}]},
        {
            "tool_calls": [
                {"id": "call_a", "name": "mcp__fx__echo", "arguments": {"text": "one"}},
                {"id": "call_b", "name": "mcp__fx__echo", "arguments": '{"text": "two"}'},
            ]
        },
        {"text": "No usage from this server.", "omit_usage": True},
        {"text": "Usage as the server counts it.", "usage": {"prompt_tokens": 900}},
    ],
    ids=["text", "text-and-call", "two-calls", "no-usage", "server-usage"],
)
def test_the_direct_client_sends_and_reads_what_litellm_did(turn: dict[str, Any]) -> None:
    (text_a, done_a, body_a, key_a), (text_b, done_b, body_b, key_b) = run_both(turn, TOOLS)

    assert body_b == body_a
    assert key_b == key_a == f"Bearer {PLACEHOLDER_KEY}"
    assert text_b == text_a == turn.get("text", "")
    assert done_b == done_a


def test_a_request_without_tools_sends_no_tools_field() -> None:
    (_, done_a, body_a, _), (_, done_b, body_b, _) = run_both({"text": "Plain."}, [])
    assert "tools" not in body_b
    assert (body_b, done_b) == (body_a, done_a)


def error_of(kind: type[LiteLLMModel], turns: list[dict[str, Any]], retries: int = 0) -> str:
    with FakeOpenAI(turns) as fake:
        with pytest.raises(ModelError) as raised:
            asyncio.run(collect(kind(settings(fake, retries=retries)), []))
        return str(raised.value).replace(fake.base_url, "BASE")  # two fakes, two ports


@pytest.mark.parametrize(
    "turn",
    [
        {"error": {"status": 400}},  # OpenAI's context_length_exceeded, with its numbers
        {"error": {"status": 401}},
        {"error": {"status": 404}},
        {"error": {"status": 429}},
        {
            "stream_error": {
                "code": 400,
                "message": "request (5000 tokens) exceeds the available context size (4096 "
                "tokens), try increasing it",
                "type": "exceed_context_size_error",
                "n_prompt_tokens": 5000,
                "n_ctx": 4096,
            }
        },
        {"stream_error_line": {"code": 400, "message": "the context size (4096 tokens) is full"}},
    ],
    ids=["overflow", "401", "404", "429", "stream-error", "error-line"],
)
def test_errors_say_what_litellms_said(turn: dict[str, Any]) -> None:
    expected = error_of(LiteLLMModel, [turn])

    assert error_of(OpenAICompatibleModel, [turn]) == expected


@pytest.mark.parametrize("status", [500, 502, 503])
def test_a_failing_server_is_named_with_its_words(status: int) -> None:
    message = error_of(OpenAICompatibleModel, [{"error": {"status": status, "message": "down"}}])

    assert message == f"BASE failed to answer (down (HTTP {status})); try again"


def test_a_proxys_html_error_page_is_cut_to_its_first_line() -> None:
    page = "<html><body>\n<h1>502 Bad Gateway</h1>\n" + "x" * 10_000 + "\n</body></html>"
    message = error_of(OpenAICompatibleModel, [{"error": {"status": 502, "raw_body": page}}])

    assert "<html><body>" in message
    assert "502 Bad Gateway" not in message and len(message) < 500


def test_retries_heed_the_servers_retry_after_and_then_answer() -> None:
    busy = {"error": {"status": 429}, "headers": {"retry-after-ms": "1"}}
    failing = {"error": {"status": 500}, "headers": {"retry-after": "0"}}
    with FakeOpenAI([busy, failing, {"text": "Third time."}]) as fake:
        text, _ = asyncio.run(collect(OpenAICompatibleModel(settings(fake, retries=2)), []))
        assert len(fake.requests) == 3
    assert text == "Third time."


def test_retries_stop_at_the_setting_and_a_client_error_is_never_retried() -> None:
    failing = {"error": {"status": 500}, "headers": {"retry-after": "0"}}
    with FakeOpenAI([failing, failing, {"text": "never"}]) as fake:
        with pytest.raises(ModelError, match="failed to answer"):
            asyncio.run(collect(OpenAICompatibleModel(settings(fake, retries=1)), []))
        assert len(fake.requests) == 2
    with FakeOpenAI([{"error": {"status": 404}}, {"text": "never"}]) as fake:
        with pytest.raises(ModelError, match="was not found"):
            asyncio.run(collect(OpenAICompatibleModel(settings(fake, retries=2)), []))
        assert len(fake.requests) == 1


def test_a_stream_that_breaks_off_says_so_and_is_not_sent_again() -> None:
    with FakeOpenAI([{"text": "Half of it", "disconnect": True}, {"text": "x"}]) as fake:
        with pytest.raises(ModelError, match="broke off in the middle of the answer"):
            asyncio.run(collect(OpenAICompatibleModel(settings(fake, retries=2)), []))
        assert len(fake.requests) == 1


def test_a_server_that_stops_sending_is_given_up_after_the_chunk_timeout() -> None:
    with FakeOpenAI([{"text": "Started", "hang": True}]) as fake:
        model = OpenAICompatibleModel(settings(fake, retries=2, chunk_timeout=1))
        with pytest.raises(ModelError, match="sent nothing for 1 s"):
            asyncio.run(collect(model, []))
        fake.wait_for_disconnect(1)
        assert len(fake.requests) == 1


def test_an_address_elsewhere_without_a_key_sends_nothing(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    model = OpenAICompatibleModel(ModelSettings("openai/m", api_base="https://192.0.2.1/v1"))

    with pytest.raises(ModelError, match=r"no API key for openai/m \(nothing was sent\)"):
        asyncio.run(collect(model, []))


def test_the_key_named_in_settings_is_the_one_sent(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("MY_SERVER_KEY", "sk-mine-0123456789")
    monkeypatch.setenv("OPENAI_API_KEY", "sk-openai-0123456789")
    with FakeOpenAI([{"text": "ok"}]) as fake:
        base = settings(fake)
        model = OpenAICompatibleModel(
            ModelSettings(base.name, api_base=base.api_base, api_key_env="MY_SERVER_KEY")
        )
        asyncio.run(collect(model, []))
        [request] = fake.requests
    assert request["headers"]["authorization"] == "Bearer sk-mine-0123456789"


def test_a_known_name_behind_a_gateway_is_priced_as_litellm_prices_it_once_litellm_is_loaded() -> (
    None
):
    LOADER.get()  # the interactive chat loads it in the background; agent -p does not
    turn = {"text": "Priced.", "usage": {"prompt_tokens": 1000, "completion_tokens": 200}}
    done = []
    for kind in (LiteLLMModel, OpenAICompatibleModel):
        with FakeOpenAI([turn]) as fake:
            model = kind(ModelSettings("openai/gpt-4o", api_base=fake.base_url, retries=0))
            done.append(asyncio.run(collect(model, []))[1].usage)

    assert done[0].cost_usd is not None and done[0].cost_usd > 0
    assert done[1] == done[0]


def test_nothing_is_priced_while_litellm_is_not_loaded() -> None:
    loader = LiteLLMLoader()  # never started, as in agent -p
    turn = {"text": "Free.", "usage": {"prompt_tokens": 1000, "completion_tokens": 200}}
    with FakeOpenAI([turn]) as fake:
        settings = ModelSettings("openai/gpt-4o", api_base=fake.base_url, retries=0)
        _, completion = asyncio.run(collect(OpenAICompatibleModel(settings, loader), []))

    assert completion.usage.cost_usd is None
    assert not loader.started


def test_an_empty_streamed_answer_is_asked_again_unstreamed_and_its_overflow_numbers_said() -> None:
    # llama.cpp's server answers a streamed request larger than its window with an empty 200;
    # asked without streaming, it says why (exceed_context_size_error, with its numbers).
    overflow = {"exceed_context": {"n_prompt_tokens": 9540, "n_ctx": 2048}}
    with FakeOpenAI([overflow, overflow]) as fake:
        with pytest.raises(ModelError) as raised:
            asyncio.run(collect(OpenAICompatibleModel(settings(fake)), TOOLS))
        requests = fake.requests

    assert "(9,540 tokens sent, the window holds 2,048)" in str(raised.value)
    assert "empty answer" not in str(raised.value)
    assert [r["body"]["stream"] for r in requests] == [True, False]
    assert requests[1]["body"]["messages"] == requests[0]["body"]["messages"]
    assert requests[1]["body"]["tools"] == requests[0]["body"]["tools"]


def test_an_empty_streamed_answer_the_second_request_answers_is_still_an_empty_answer() -> None:
    with FakeOpenAI([{"exceed_context": {"n_prompt_tokens": 1, "n_ctx": 2}}, {"text": "Hi"}]) as f:
        with pytest.raises(ModelError, match="sent an empty answer; try again"):
            asyncio.run(collect(OpenAICompatibleModel(settings(f)), []))
        assert len(f.requests) == 2
