"""The fake OpenAI server, seen through litellm over real HTTP (no mocks).

These tests also pin down what litellm 1.110.2 does with each failure, because the chat
engine's error mapping is written from them: the exact exception class, its str(), and
how many requests reached the server (max_retries=0 means exactly one).

litellm is imported once per process by the `llm` fixture (about 2.5 s); every call after
that takes milliseconds, except the timeouts, which wait for their deadline (0.3 s).
"""

from __future__ import annotations

import asyncio
import http.client
import json
import os
import select
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path
from types import ModuleType
from typing import Any

import anyio
import pytest

from tests.fake_openai import FakeOpenAI
from tests.fake_openai.server import usage_of

REPO = Path(__file__).resolve().parents[2]
MESSAGES = [{"role": "user", "content": "Say hi"}]
TOOLS = [
    {
        "type": "function",
        "function": {
            "name": "mcp__fx__echo",
            "description": "Echo the text back.",
            "parameters": {"type": "object", "properties": {"text": {"type": "string"}}},
        },
    }
]
SHORT_TIMEOUT = 0.3  # litellm's per-chunk timeout in the timeout tests
# A server delay well past SHORT_TIMEOUT, so that the timeout, not the server, ends the wait even
# when a loaded machine makes it strike late; a stop ends the delay early, so its length costs
# nothing.
SLOW = 2.0


@pytest.fixture(scope="module")
def llm() -> ModuleType:
    """litellm, imported as the app imports it: local price list, no debug banners."""
    # Without this the import fetches a price list from the network.
    os.environ["LITELLM_LOCAL_MODEL_COST_MAP"] = "True"
    import litellm

    # Otherwise every exception litellm raises (even caught ones) prints a
    # "Give Feedback / Get Help" banner to stdout.
    litellm.suppress_debug_info = True
    return litellm


@pytest.fixture(autouse=True)
def no_implicit_event_loop() -> None:
    """Keep sync litellm calls from leaving an unclosed event loop behind.

    A sync completion() logs its timing through asyncio.get_event_loop() (litellm's
    _service_logger.py); in the main thread of Python 3.11 that creates and installs a loop
    nobody closes, which pytest reports as an unraisable ResourceWarning once an async test
    replaces it. With the current loop explicitly unset litellm uses asyncio.run instead,
    which closes its loop.
    """
    asyncio.set_event_loop(None)


def stream(llm: ModuleType, fake: FakeOpenAI, **overrides: Any) -> tuple[list[Any], Any]:
    """One streamed completion: (the raw chunks, the assembled ModelResponse)."""
    response = llm.completion(**request_args(fake, **overrides))
    chunks = list(response)
    return chunks, llm.stream_chunk_builder(chunks, messages=MESSAGES)


def request_args(fake: FakeOpenAI, **overrides: Any) -> dict[str, Any]:
    """The arguments the engine passes: streamed, usage requested, tools, a timeout, no retries."""
    return {
        "model": "openai/fake-model",
        "api_base": fake.base_url,
        "api_key": "sk-test",
        "messages": MESSAGES,
        "stream": True,
        "stream_options": {"include_usage": True},
        "tools": TOOLS,
        "timeout": 10,
        "max_retries": 0,
    } | overrides


def message_of(response: Any) -> dict[str, Any]:
    """The assistant message and finish reason of a ModelResponse, as plain data."""
    choice = response.choices[0]
    calls = [
        {"id": c.id, "name": c.function.name, "arguments": c.function.arguments}
        for c in choice.message.tool_calls or []
    ]
    return {
        "content": choice.message.content,
        "tool_calls": calls,
        "finish_reason": choice.finish_reason,
    }


def context_chain(exc: BaseException) -> list[BaseException]:
    """The exceptions litellm raised this one while handling, innermost last."""
    chain = []
    while exc.__context__ is not None:
        exc = exc.__context__
        chain.append(exc)
    return chain


def usage_dict(response: Any) -> dict[str, int]:
    """prompt/completion/total tokens of a ModelResponse."""
    usage = response.usage
    return {
        "prompt_tokens": usage.prompt_tokens,
        "completion_tokens": usage.completion_tokens,
        "total_tokens": usage.total_tokens,
    }


# --- answers ------------------------------------------------------------------------------


def test_text_turn_streams_as_several_deltas_and_assembles(llm: ModuleType) -> None:
    with FakeOpenAI([{"text": "Hello there, friend"}]) as fake:
        chunks, response = stream(llm, fake)

    pieces = [
        c.choices[0].delta.content for c in chunks if c.choices and c.choices[0].delta.content
    ]
    assert pieces == ["Hello t", "here, ", "friend"]
    assert message_of(response) == {
        "content": "Hello there, friend",
        "tool_calls": [],
        "finish_reason": "stop",
    }


def test_usage_comes_from_the_final_chunk(llm: ModuleType) -> None:
    turn = {"text": "Hi", "usage": {"prompt_tokens": 120, "completion_tokens": 7}}
    with FakeOpenAI([turn, {"text": "Hi again"}]) as fake:
        _, scripted = stream(llm, fake)
        _, derived = stream(llm, fake)

    assert usage_dict(scripted) == {
        "prompt_tokens": 120,
        "completion_tokens": 7,
        "total_tokens": 127,
    }
    # Without an override the counts are derived from lengths: deterministic, never zero.
    assert usage_dict(derived) == usage_of({"text": "Hi again"}, fake.requests[1]["body"])


def test_one_tool_call_reassembles_its_arguments_exactly(llm: ModuleType) -> None:
    arguments = {"text": 'hi "there" — ünïcode', "n": [1, 2, {"deep": None}]}
    turn = {"tool_calls": [{"id": "call_1", "name": "mcp__fx__echo", "arguments": arguments}]}
    with FakeOpenAI([turn]) as fake:
        chunks, response = stream(llm, fake)

    argument_deltas = [
        c.choices[0].delta.tool_calls[0].function.arguments
        for c in chunks
        if c.choices and c.choices[0].delta.tool_calls
    ]
    assert len(argument_deltas) == 5  # the naming delta ("") and four pieces
    assert message_of(response) == {
        "content": None,
        "tool_calls": [
            {"id": "call_1", "name": "mcp__fx__echo", "arguments": json.dumps(arguments)}
        ],
        "finish_reason": "tool_calls",
    }
    assert json.loads(response.choices[0].message.tool_calls[0].function.arguments) == arguments


def test_two_tool_calls_after_text_keep_their_order_and_arguments(llm: ModuleType) -> None:
    turn = {
        "text": "Let me check both.",
        "tool_calls": [
            {"id": "call_a", "name": "mcp__fx__echo", "arguments": {"text": "first"}},
            {"id": "call_b", "name": "mcp__fx__add", "arguments": {"a": 1, "b": 2}},
        ],
    }
    with FakeOpenAI([turn]) as fake:
        _, response = stream(llm, fake)

    assert message_of(response) == {
        "content": "Let me check both.",
        "tool_calls": [
            {"id": "call_a", "name": "mcp__fx__echo", "arguments": '{"text": "first"}'},
            {"id": "call_b", "name": "mcp__fx__add", "arguments": '{"a": 1, "b": 2}'},
        ],
        "finish_reason": "tool_calls",
    }


def test_string_arguments_are_sent_verbatim_even_when_not_json(llm: ModuleType) -> None:
    turn = {"tool_calls": [{"name": "mcp__fx__echo", "arguments": '{"text": "unterminated'}]}
    with FakeOpenAI([turn]) as fake:
        _, response = stream(llm, fake)

    assert message_of(response)["tool_calls"] == [
        {"id": "call_1", "name": "mcp__fx__echo", "arguments": '{"text": "unterminated'}
    ]


def test_non_streaming_request_gets_a_whole_completion(llm: ModuleType) -> None:
    turn = {"text": "Sure.", "tool_calls": [{"name": "mcp__fx__echo", "arguments": {"text": "x"}}]}
    with FakeOpenAI([turn]) as fake:
        response = llm.completion(**request_args(fake, stream=False, stream_options=None))

    assert message_of(response) == {
        "content": "Sure.",
        "tool_calls": [{"id": "call_1", "name": "mcp__fx__echo", "arguments": '{"text": "x"}'}],
        "finish_reason": "tool_calls",
    }
    assert usage_dict(response) == usage_of(turn, fake.requests[0]["body"])


def test_every_request_is_recorded_with_headers_and_body(llm: ModuleType) -> None:
    with FakeOpenAI([{"text": "Hi"}]) as fake:
        stream(llm, fake)

    [request] = fake.requests
    assert (request["n"], request["method"], request["path"]) == (1, "POST", "/v1/chat/completions")
    assert request["headers"]["authorization"] == "Bearer sk-test"
    body = request["body"]
    assert (body["model"], body["messages"], body["tools"]) == ("fake-model", MESSAGES, TOOLS)
    assert (body["stream"], body["stream_options"]) == (True, {"include_usage": True})


def test_turns_can_be_added_while_running(llm: ModuleType) -> None:
    with FakeOpenAI() as fake:
        fake.add_turns({"text": "one"}, {"text": "two"})
        assert fake.remaining == 2
        answers = [message_of(stream(llm, fake)[1])["content"] for _ in range(2)]

    assert (answers, fake.remaining) == (["one", "two"], 0)


def test_a_misspelt_turn_is_rejected_when_added() -> None:
    with pytest.raises(ValueError, match=r"unknown turn key\(s\) \['txt'\]"):
        FakeOpenAI([{"txt": "Hello"}])


# --- errors: what the chat engine will see -------------------------------------------------

# (turn["error"], litellm exception class name, str(exception)). The class is checked
# exactly (`type(exc) is ...`): the engine maps on it, and several are subclasses of others
# (ContextWindowExceededError < BadRequestError; Timeout < APIConnectionError).
ERROR_CASES = [
    (
        {"status": 400},
        "ContextWindowExceededError",
        "litellm.ContextWindowExceededError: litellm.BadRequestError: "
        "ContextWindowExceededError: OpenAIException - This model's maximum context length is "
        "128000 tokens. However, your messages resulted in 130000 tokens. Please reduce the "
        "length of the messages.",
    ),
    (
        {"status": 400, "message": "Invalid value for 'tool_choice'.", "code": "invalid_value"},
        "BadRequestError",
        "litellm.BadRequestError: OpenAIException - Invalid value for 'tool_choice'.",
    ),
    (
        {"status": 401},
        "AuthenticationError",
        "litellm.AuthenticationError: AuthenticationError: OpenAIException - Incorrect API key "
        "provided: sk-test. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
    ),
    (
        {"status": 403},
        "APIError",
        "litellm.APIError: APIError: OpenAIException - Project `proj_fake` does not have access "
        "to model `fake-model`",
    ),
    (
        {"status": 404},
        "NotFoundError",
        "litellm.NotFoundError: NotFoundError: OpenAIException - The model `fake-model` does "
        "not exist or you do not have access to it.",
    ),
    (
        {"status": 429},
        "RateLimitError",
        "litellm.RateLimitError: RateLimitError: OpenAIException - Rate limit reached for "
        "fake-model in organization org-fake on tokens per min (TPM): Limit 30000, Used 30000, "
        "Requested 100. Please try again in 200ms.",
    ),
    (
        {
            "status": 429,
            "message": "You exceeded your current quota, please check your plan and billing "
            "details.",
            "type": "insufficient_quota",
            "code": "insufficient_quota",
        },
        "RateLimitError",
        "litellm.RateLimitError: RateLimitError: OpenAIException - You exceeded your current "
        "quota, please check your plan and billing details.",
    ),
    (
        {"status": 500},
        "InternalServerError",
        "litellm.InternalServerError: InternalServerError: OpenAIException - The server had an "
        "error while processing your request. Sorry about that!",
    ),
    (
        {"status": 502},
        "BadGatewayError",
        "litellm.BadGatewayError: BadGatewayError: OpenAIException - Bad gateway.",
    ),
    (
        {"status": 502, "raw_body": "<html><body>502 Bad Gateway</body></html>"},
        "BadGatewayError",
        "litellm.BadGatewayError: BadGatewayError: OpenAIException - Error code: 502",
    ),
    (
        {"status": 503},
        "ServiceUnavailableError",
        "litellm.ServiceUnavailableError: ServiceUnavailableError: OpenAIException - The engine "
        "is currently overloaded, please try again later.",
    ),
    (
        # A gateway timeout is reported as a timeout, not as a server error.
        {"status": 504},
        "Timeout",
        "litellm.Timeout: Timeout Error: OpenAIException - Gateway timeout.",
    ),
]


@pytest.mark.parametrize(("error", "exception", "text"), ERROR_CASES)
def test_error_status_becomes_this_litellm_exception(
    llm: ModuleType, error: dict[str, Any], exception: str, text: str
) -> None:
    with FakeOpenAI([{"error": error}]) as fake, pytest.raises(Exception) as caught:
        # The status arrives before any chunk: completion() itself raises.
        llm.completion(**request_args(fake))

    assert type(caught.value) is getattr(llm, exception)
    assert str(caught.value) == text
    assert str(caught.value.status_code) == str(error["status"])
    assert len(fake.requests) == 1  # max_retries=0: no retry


def test_error_mapping_is_the_same_without_streaming(llm: ModuleType) -> None:
    with FakeOpenAI([{"error": {"status": 401}}]) as fake, pytest.raises(Exception) as caught:
        llm.completion(**request_args(fake, stream=False, stream_options=None))

    assert type(caught.value) is llm.AuthenticationError


def test_an_exhausted_script_fails_loudly(llm: ModuleType) -> None:
    with FakeOpenAI([]) as fake, pytest.raises(llm.InternalServerError) as caught:
        llm.completion(**request_args(fake))

    assert str(caught.value).endswith("fake server: no scripted turn left for request 1")


def test_default_retries_are_two_and_honour_retry_after(llm: ModuleType) -> None:
    # The openai SDK retries 429 and 5xx twice unless told otherwise, waiting as the
    # retry-after-ms header says (here 1 ms, to keep the test fast).
    busy = {"error": {"status": 503}, "headers": {"retry-after-ms": "1"}}
    with FakeOpenAI([busy, busy, {"text": "finally"}]) as fake:
        args = request_args(fake)
        del args["max_retries"]
        chunks = list(llm.completion(**args))

    assert (llm.stream_chunk_builder(chunks).choices[0].message.content, len(fake.requests)) == (
        "finally",
        3,
    )


def test_a_chunk_slower_than_the_timeout_raises_timeout_mid_stream(llm: ModuleType) -> None:
    turn = {"text": "slow answer", "chunk_delay": SLOW}
    with FakeOpenAI([turn]) as fake:
        response = llm.completion(**request_args(fake, timeout=SHORT_TIMEOUT))
        started = time.monotonic()
        # The headers and first chunk came in time: the timeout strikes while iterating.
        with pytest.raises(llm.Timeout) as caught:
            list(response)
        waited = time.monotonic() - started
        fake.wait_for_disconnect(1)  # the sync client closes the connection at once

    assert type(caught.value) is llm.Timeout
    assert str(caught.value) == (
        "litellm.Timeout: APITimeoutError - Request timed out. Error_str: Request timed out."
    )
    assert SHORT_TIMEOUT <= waited < SLOW


def test_a_late_first_byte_raises_timeout_from_the_call(llm: ModuleType) -> None:
    turn = {"text": "late", "delay_before": SLOW}
    with FakeOpenAI([turn]) as fake, pytest.raises(llm.Timeout) as caught:
        llm.completion(**request_args(fake, timeout=SHORT_TIMEOUT))

    assert str(caught.value) == (
        "litellm.Timeout: APITimeoutError - Request timed out. Error_str: Request timed out."
    )


def test_a_connection_dropped_mid_stream_raises_mid_stream_fallback_error(
    llm: ModuleType,
) -> None:
    with FakeOpenAI([{"text": "partial answer", "disconnect": True}]) as fake:
        response = llm.completion(**request_args(fake))
        with pytest.raises(llm.exceptions.MidStreamFallbackError) as caught:
            list(response)

    # A subclass of ServiceUnavailableError (status_code 500) that keeps the text received.
    assert isinstance(caught.value, llm.ServiceUnavailableError)
    assert caught.value.generated_content == "parti"
    assert str(caught.value) == (
        "litellm.MidStreamFallbackError: litellm.APIConnectionError: APIConnectionError: "
        "OpenAIException - Connection error. Original exception: APIConnectionError: "
        "litellm.APIConnectionError: APIConnectionError: OpenAIException - Connection error."
    )


def test_connection_refused_raises_internal_server_error(llm: ModuleType) -> None:
    # A port bound without listening: a connection is refused, and no parallel test takes it.
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
        with pytest.raises(Exception) as caught:
            llm.completion(
                model="openai/fake-model",
                api_base=f"http://127.0.0.1:{port}/v1",
                api_key="sk-test",
                messages=MESSAGES,
                stream=True,
                timeout=10,
                max_retries=0,
            )

    # Not APIConnectionError: the engine must not rely on that class for "cannot connect".
    assert type(caught.value) is llm.InternalServerError
    assert str(caught.value) == (
        "litellm.InternalServerError: InternalServerError: OpenAIException - Connection error."
    )
    # What tells it from a real 500: no response headers, and the OSError in its context.
    assert caught.value.litellm_response_headers is None
    assert any(isinstance(e, ConnectionRefusedError) for e in context_chain(caught.value))


def test_a_real_500_has_response_headers_and_no_os_error(llm: ModuleType) -> None:
    with FakeOpenAI([{"error": {"status": 500}}]) as fake, pytest.raises(Exception) as caught:
        llm.completion(**request_args(fake))

    assert type(caught.value) is llm.InternalServerError
    assert caught.value.litellm_response_headers is not None
    assert not any(isinstance(e, OSError) for e in context_chain(caught.value))


def test_litellm_prints_nothing_when_it_raises(
    llm: ModuleType, capfd: pytest.CaptureFixture[str]
) -> None:
    # With suppress_debug_info a caught error leaves the terminal clean (no banner, no
    # warning); pytest's filterwarnings=error would turn any Python warning into a failure.
    with FakeOpenAI([{"error": {"status": 401}}, {"text": "x", "chunk_delay": SLOW}]) as fake:
        with pytest.raises(llm.AuthenticationError):
            llm.completion(**request_args(fake))
        with pytest.raises(llm.Timeout):
            list(llm.completion(**request_args(fake, timeout=SHORT_TIMEOUT)))

    assert capfd.readouterr() == ("", "")


# --- the async path the engine is likely to use --------------------------------------------


@pytest.mark.anyio
async def test_async_stream_assembles_text_and_tool_calls(llm: ModuleType) -> None:
    turn = {
        "text": "On it.",
        "tool_calls": [{"id": "call_1", "name": "mcp__fx__echo", "arguments": {"text": "hi"}}],
    }
    with FakeOpenAI([turn]) as fake:
        response = await llm.acompletion(**request_args(fake))
        chunks = [chunk async for chunk in response]
        assembled = llm.stream_chunk_builder(chunks, messages=MESSAGES)

    assert message_of(assembled) == {
        "content": "On it.",
        "tool_calls": [{"id": "call_1", "name": "mcp__fx__echo", "arguments": '{"text": "hi"}'}],
        "finish_reason": "tool_calls",
    }


@pytest.mark.anyio
async def test_async_errors_map_like_sync_ones(llm: ModuleType) -> None:
    with FakeOpenAI([{"error": {"status": 400}}, {"text": "x", "chunk_delay": SLOW}]) as fake:
        with pytest.raises(Exception) as context:
            await llm.acompletion(**request_args(fake))
        response = await llm.acompletion(**request_args(fake, timeout=SHORT_TIMEOUT))
        with pytest.raises(Exception) as timeout:
            _ = [chunk async for chunk in response]

    assert type(context.value) is llm.ContextWindowExceededError
    assert type(timeout.value) is llm.Timeout


@pytest.mark.anyio
async def test_cancelling_a_hung_stream_closes_the_connection(llm: ModuleType) -> None:
    # What Ctrl-C mid-stream does in the engine: cancel the task that iterates.
    with FakeOpenAI([{"text": "never finishes", "hang": True}]) as fake:
        received: list[str] = []
        with anyio.move_on_after(5) as scope:
            # `async with` closes the stream however the block ends; without it the
            # connection stays open until the response object is garbage-collected.
            async with await llm.acompletion(**request_args(fake)) as response:
                async for chunk in response:
                    if chunk.choices and chunk.choices[0].delta.content:
                        received.append(chunk.choices[0].delta.content)
                        scope.cancel()  # the first words are on screen; the person presses Ctrl-C
        await fake.wait_for_disconnect_async(1)

    assert received == ["never"]


# --- the wire format and the CLI, without litellm -------------------------------------------


def post(port: int, body: dict[str, Any]) -> tuple[int, str, bytes]:
    """POST a chat completion with http.client: (status, content type, raw body)."""
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        connection.request("POST", "/v1/chat/completions", json.dumps(body))
        response = connection.getresponse()
        return response.status, response.getheader("Content-Type", ""), response.read()
    finally:
        connection.close()


def test_stream_wire_format_is_openais() -> None:
    turn = {"text": "Hi!", "tool_calls": [{"id": "c1", "name": "f", "arguments": {"a": 1}}]}
    with FakeOpenAI([turn]) as fake:
        status, kind, raw = post(fake.port, {"model": "m", "messages": [], "stream": True})

    events = raw.decode().split("\n\n")
    assert (status, kind, events[-2:]) == (200, "text/event-stream", ["data: [DONE]", ""])
    chunks = [json.loads(event.removeprefix("data: ")) for event in events[:-2]]
    assert [c["choices"][0]["delta"] for c in chunks] == [
        {"role": "assistant", "content": ""},
        {"content": "H"},
        {"content": "i"},
        {"content": "!"},
        {
            "tool_calls": [
                {
                    "index": 0,
                    "id": "c1",
                    "type": "function",
                    "function": {"name": "f", "arguments": ""},
                }
            ]
        },
        {"tool_calls": [{"index": 0, "function": {"arguments": '{"'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": 'a"'}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": ": "}}]},
        {"tool_calls": [{"index": 0, "function": {"arguments": "1}"}}]},
        {},
    ]
    # No usage chunk: this request did not ask for one with stream_options.include_usage.
    assert [c["choices"][0]["finish_reason"] for c in chunks][-2:] == [None, "tool_calls"]
    assert {c["id"] for c in chunks} == {"chatcmpl-fake-1"}


def test_keep_alive_serves_several_requests_on_one_connection_and_stops_cleanly() -> None:
    body = {"model": "m", "messages": [], "stream": False}
    with FakeOpenAI([{"text": "one"}, {"text": "two"}], keep_alive=True) as fake:
        connection = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=5)
        answers = []
        for _ in range(2):
            connection.request("POST", "/v1/chat/completions", json.dumps(body))
            answers.append(json.loads(connection.getresponse().read()))
        started = time.monotonic()
    # The connection was still open and idle: stopping closed it instead of waiting.
    stop_took = time.monotonic() - started
    connection.close()

    assert [a["choices"][0]["message"]["content"] for a in answers] == ["one", "two"]
    assert stop_took < 1


def test_stopping_ends_a_hanging_answer() -> None:
    fake = FakeOpenAI([{"text": "forever", "hang": True}]).start()
    connection = http.client.HTTPConnection("127.0.0.1", fake.port, timeout=5)
    try:
        body = {"model": "m", "messages": [], "stream": True}
        connection.request("POST", "/v1/chat/completions", json.dumps(body))
        response = connection.getresponse()
        first = response.fp.readline()  # the chunk-size line of the role delta
        started = time.monotonic()
        fake.stop()
        stop_took = time.monotonic() - started
        with pytest.raises(http.client.IncompleteRead):
            response.read()  # the body ends without its terminating chunk
    finally:
        connection.close()
        fake.stop()

    assert (response.status, first.strip() != b"", stop_took < 1) == (200, True, True)


def test_cli_prints_its_port_logs_requests_and_exits_on_sigterm(tmp_path: Path) -> None:
    script, log = tmp_path / "script.json", tmp_path / "requests.jsonl"
    script.write_text(json.dumps([{"text": "from the CLI"}]))
    process = subprocess.Popen(
        [sys.executable, "-m", "tests.fake_openai", "--script", script, "--requests-log", log],
        cwd=REPO,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        text=True,
    )
    try:
        assert process.stdout is not None
        ready, _, _ = select.select([process.stdout], [], [], 30)  # about 0.1 s; a loaded box
        assert ready, "no PORT line within 30 s"
        first_line = process.stdout.readline()
        assert first_line.startswith("PORT ")
        body = {"model": "fake-model", "messages": MESSAGES, "stream": False}
        status, _, raw = post(int(first_line.split()[1]), body)
        # The log line is written before the answer, so it is there now.
        logged = [json.loads(line) for line in log.read_text().splitlines()]
    finally:
        process.send_signal(signal.SIGTERM)
        stdout, stderr = process.communicate(timeout=10)

    assert (status, json.loads(raw)["choices"][0]["message"]["content"]) == (200, "from the CLI")
    assert [(r["n"], r["path"], r["body"]) for r in logged] == [(1, "/v1/chat/completions", body)]
    assert (process.returncode, stdout, stderr) == (0, "", "")


def _asking(text: str) -> dict[str, Any]:
    return {"model": "m", "stream": False, "messages": [{"role": "user", "content": text}]}


def test_a_turn_with_when_is_taken_only_by_its_conversation() -> None:
    script = [{"when": "task B", "text": "for B"}, {"when": "task A", "text": "for A"}]
    with FakeOpenAI(script) as fake:
        _, _, first = post(fake.port, _asking("do task A now"))
        _, _, second = post(fake.port, _asking("and task B"))
    assert json.loads(first)["choices"][0]["message"]["content"] == "for A"
    assert json.loads(second)["choices"][0]["message"]["content"] == "for B"


def test_wait_for_answers_once_the_other_conversation_asked() -> None:
    script = [{"when": "A", "wait_for": "B", "text": "A done"}, {"when": "B", "text": "B done"}]
    answers: list[bytes] = []
    with FakeOpenAI(script) as fake:
        import threading

        waiting = threading.Thread(target=lambda: answers.append(post_slowly(fake.port, "A")))
        waiting.start()
        fake.wait_for_requests(1, timeout=60)
        assert not answers  # A waits for B
        post(fake.port, _asking("B"))
        waiting.join(60)
    assert json.loads(answers[0])["choices"][0]["message"]["content"] == "A done"


def post_slowly(port: int, text: str) -> bytes:
    connection = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        connection.request("POST", "/v1/chat/completions", json.dumps(_asking(text)))
        return connection.getresponse().read()
    finally:
        connection.close()
