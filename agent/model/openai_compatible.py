"""OpenAICompatibleModel: a model server named by its address (`openai/NAME` with an api_base:
llama.cpp, vLLM, LM Studio, Ollama's /v1, a gateway) spoken to directly, without litellm.

Why a second way to send a request: for such a server litellm routes nothing (the name's
provider is fixed, the address given), yet importing it is about 2 s of CPU, most of an
`agent -p` run, and about 120 MB. OpenAI's chat completions stream is a public, stable
protocol; this module speaks exactly what litellm sent for these names (the same body, the same
key rules, the same retries), over httpx2 (which the mcp SDK loads anyway). Every other
provider, and `openai/` without an address (OpenAI itself), still goes through litellm
(litellm_model.py); so does everything this class inherits from LiteLLMModel (token counts,
the model table, images), which loads litellm only when asked.

A hostile or broken server gets no more than it did: the whole answer (so any one line of it) is
bounded, an error body is read only up to a cap, every wait ends by the request's deadline,
redirects are not followed (the conversation would go along), loopback addresses are never
proxied (nor is the environment read for them), and every failure becomes a ModelError by the
same words as litellm's (litellm_model.describe_model_error).
"""

from __future__ import annotations

import json
import os
import random
import time
import uuid
from collections.abc import AsyncIterator, Awaitable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, TypeVar

from agent import __version__
from agent.loopback import goes_direct
from agent.messages import Completion, ToolCall, Usage
from agent.model.litellm_model import (
    LiteLLMModel,
    ModelError,
    TextChunk,
    describe_model_error,
    estimate_usage,
    missing_key_error,
    placeholder_key,
)

# A whole streamed answer, and so any one line of it: far above what any model writes in one
# answer (its output limit is some 100,000 tokens, under 1 MiB), far below what would hurt.
MAX_ANSWER_BYTES = 16 * 1024 * 1024
MAX_ERROR_BODY_BYTES = 64 * 1024  # an error's body is read this far for its message

_T = TypeVar("_T")

# The openai SDK's retry policy, which litellm used for these names: a status worth another
# try, backoff from half a second doubling to 8 s with jitter, a server's Retry-After heeded
# up to a minute.
_RETRY_STATUSES = {408, 409, 429}
_FIRST_DELAY, _MAX_DELAY, _MAX_RETRY_AFTER = 0.5, 8.0, 60.0

# Names litellm_model.describe_model_error knows (litellm's exception classes), by HTTP status.
_KIND_BY_STATUS = {
    400: "BadRequestError",
    401: "AuthenticationError",
    403: "PermissionDeniedError",
    404: "NotFoundError",
    408: "Timeout",
    413: "BadRequestError",
    422: "BadRequestError",
    429: "RateLimitError",
    500: "InternalServerError",
    502: "BadGatewayError",
    503: "ServiceUnavailableError",
}


class ServerAnswerError(Exception):
    """What went wrong with a request, classified as litellm would have (`kind`); `body` is
    the server's error object when it sent one (its numbers tell a context overflow)."""

    def __init__(self, kind: str, message: str, body: object = None) -> None:
        super().__init__(message)
        self.kind = kind
        self.body = body


class _Retry(Exception):
    """The request failed before any of the answer arrived, in a way worth another try."""

    def __init__(self, error: ServerAnswerError, after: float | None = None) -> None:
        super().__init__(str(error))
        self.error = error
        self.after = after


class OpenAICompatibleModel(LiteLLMModel):
    """A model at an OpenAI-compatible address, streamed without litellm."""

    async def prepare(self) -> None:
        # Only wait for litellm when something (the interactive chat) is loading it anyway,
        # for the model table's context window; `agent -p` never loads it.
        if self._loader.started:
            await super().prepare()

    def _key(self) -> str:
        key = self._api_key() or os.environ.get("OPENAI_API_KEY") or placeholder_key(self.settings)
        if not key:
            raise missing_key_error(self.settings)
        if not (key.isascii() and key.isprintable()):
            # A header carries printable ASCII only: a key read with its file's newline (or a
            # header smuggled after one) failed inside the HTTP client as "nothing answers",
            # and was tried again; a letter outside ASCII raised a traceback. Never echo it.
            variable = self.settings.api_key_env or "OPENAI_API_KEY"
            raise ModelError(
                f"{variable} holds a line break or a character an HTTP header cannot carry "
                f"(nothing was sent); set it to the key alone, e.g. export {variable}=sk-..."
            )
        return key

    async def stream(
        self, messages: Sequence[dict[str, Any]], tools: Sequence[dict[str, Any]]
    ) -> AsyncIterator[TextChunk | Completion]:
        """Stream one completion; raises ModelError, whatever the server does."""
        assert self.settings.api_base is not None  # served_directly chose this class
        api_key = self._key()
        body: dict[str, Any] = {
            "model": self.settings.name.removeprefix("openai/"),
            "messages": list(messages),
            "stream": True,
            "stream_options": {"include_usage": True},
        }
        if tools:
            body["tools"] = list(tools)
        answer = _Answer()
        try:
            async for text in self._request(body, api_key, answer):
                yield TextChunk(text)
        except ModelError:
            raise
        except ServerAnswerError as error:
            raise describe_model_error(error, self.settings, api_key) from None
        except Exception as error:
            # Whatever else the HTTP client raises (a port past 65535, an address it cannot
            # parse) is one clear error, as on litellm's path; never a traceback.
            raise describe_model_error(_innermost(error), self.settings, api_key) from None
        if not answer.events:
            raise await self._why_empty(body, api_key)
        if not answer.finished:
            # The connection closed before the server said the answer was done: a crashed
            # server or a hop that cut it. Without chunked framing the close is all that marks
            # the end, and a command cut mid-path (or a tool call without its siblings) must
            # not pass for the whole answer; litellm refused such a stream too.
            cut = ServerAnswerError("MidStreamFallbackError", "no finish_reason before the end")
            raise describe_model_error(cut, self.settings, api_key)
        yield self._priced(answer.completion(messages))

    async def _why_empty(self, body: dict[str, Any], api_key: str) -> ModelError:
        """Why a streamed request got an empty 200: asked once more without streaming, the
        server says it (llama.cpp's server streams nothing for a request larger than its
        window, and answers the same request unstreamed with its error and numbers)."""
        import httpx2

        settings = self.settings
        assert settings.api_base is not None
        url = settings.api_base.rstrip("/") + "/chat/completions"
        unstreamed = {key: value for key, value in body.items() if key != "stream_options"}
        unstreamed["stream"] = False
        headers = {"Authorization": f"Bearer {api_key}", "User-Agent": f"agent/{__version__}"}
        empty = ModelError(f"{self.name} sent an empty answer; try again")
        deadline = time.monotonic() + settings.request_timeout_seconds
        try:
            async with httpx2.AsyncClient(
                timeout=httpx2.Timeout(settings.chunk_timeout_seconds),
                trust_env=not goes_direct(url),
                follow_redirects=False,
            ) as client:
                request = client.build_request("POST", url, json=unstreamed, headers=headers)
                response = await _by(deadline, client.send(request, stream=True))
                try:
                    if 200 <= response.status_code < 300:
                        return empty  # it answered this time: nothing to explain
                    failure = await _status_error(response, deadline)
                finally:
                    await response.aclose()
        except (_DeadlinePassed, httpx2.HTTPError):
            return empty
        error = failure.error if isinstance(failure, _Retry) else failure
        return describe_model_error(error, settings, api_key)

    def _priced(self, completion: Completion) -> Completion:
        """`completion` with its cost from litellm's price table, when litellm is loaded
        anyway (the chat loads it for token counts; `agent -p` does not, and prices nothing)
        and the table knows the name (`openai/gpt-4.1` behind a gateway; a model of one's own
        has no price)."""
        usage = completion.usage
        if not self._loader.loaded or not usage.prompt_tokens or usage.cost_usd is not None:
            return completion
        try:
            costs = self._loader.get().cost_per_token(
                model=self.settings.name,
                prompt_tokens=usage.prompt_tokens,
                completion_tokens=usage.completion_tokens,
            )
            cost = float(sum(costs))
        except Exception:  # unknown price: say nothing rather than a wrong number
            return completion
        return replace(completion, usage=replace(usage, cost_usd=cost or None))

    async def _request(
        self, body: dict[str, Any], api_key: str, answer: _Answer
    ) -> AsyncIterator[str]:
        """Send `body`, trying again as the openai SDK would while nothing has arrived; yield
        the answer's text as it streams, and collect the rest into `answer`."""
        import httpx2

        settings = self.settings
        assert settings.api_base is not None
        url = settings.api_base.rstrip("/") + "/chat/completions"
        headers = {
            "Authorization": f"Bearer {api_key}",
            "Accept": "application/json",
            "User-Agent": f"agent/{__version__}",
        }
        deadline = time.monotonic() + settings.request_timeout_seconds
        # The client speaks to this one address (redirects are not followed). A plain-http
        # address on this machine never goes through a proxy (agent/loopback.py), so for it
        # the environment is not read at all: a proxy it would not use must not stop it either
        # (ALL_PROXY=socks5://..., which httpx2 cannot speak without socksio, failed every
        # request). Other hosts keep the environment's proxies, NO_PROXY and certificates.
        async with httpx2.AsyncClient(
            timeout=httpx2.Timeout(settings.chunk_timeout_seconds),
            trust_env=not goes_direct(url),
            follow_redirects=False,
        ) as client:
            for attempt in range(settings.retries + 1):
                try:
                    async for text in self._attempt(client, url, body, headers, answer, deadline):
                        yield text
                    return
                except _Retry as retry:
                    wait = _wait(retry.after, attempt)
                    # A wait that would outlast the deadline (a Retry-After of 50 s against a
                    # 30 s deadline) ends the request now, with the server's own error.
                    if attempt == settings.retries or time.monotonic() + wait > deadline:
                        raise retry.error from None
                    await _sleep(wait)

    async def _attempt(
        self,
        client: Any,
        url: str,
        body: dict[str, Any],
        headers: dict[str, str],
        answer: _Answer,
        deadline: float,
    ) -> AsyncIterator[str]:
        import httpx2

        # Every wait below is bounded by the deadline as well as by the chunk timeout: a server
        # that trickles a byte at a time (its headers, a line that never ends, a `: ping`
        # comment every second) resets the chunk timeout forever, and completes no chunk after
        # which the deadline could be checked.
        request = client.build_request("POST", url, json=body, headers=headers)
        try:
            response = await _by(deadline, client.send(request, stream=True))
            try:
                if not 200 <= response.status_code < 300:
                    raise await _status_error(response, deadline)
                async for event in _events(response, deadline):
                    for text in answer.add(event):
                        yield text
            finally:
                await response.aclose()  # however this ends, Ctrl-C included
        except _DeadlinePassed:
            raise ModelError(
                f"{self.name} did not finish its answer within "
                f"{self.settings.request_timeout_seconds:g} s (model_limits."
                "request_timeout_seconds in settings.yaml)"
            ) from None
        except (httpx2.ConnectError, httpx2.ConnectTimeout, httpx2.PoolTimeout) as error:
            failure = ServerAnswerError("APIConnectionError", f"Connection error: {error}")
            raise _Retry(failure) from None
        except httpx2.TimeoutException as error:
            failure = ServerAnswerError("Timeout", f"Request timed out: {error}")
            if answer.events:
                raise failure from None
            raise _Retry(failure) from None
        except (httpx2.TransportError, httpx2.DecodingError) as error:
            if answer.events:
                raise ServerAnswerError(
                    "MidStreamFallbackError", f"the stream broke off: {error}"
                ) from None
            if isinstance(error, httpx2.DecodingError):
                # The server answered, in a Content-Encoding that does not unpack: not a
                # broken connection ("nothing answers there"), as litellm said too.
                failure = ServerAnswerError(
                    "InternalServerError", f"an answer that could not be unpacked: {error}"
                )
            else:
                failure = ServerAnswerError("APIConnectionError", f"Connection error: {error}")
            raise _Retry(failure) from None


@dataclass
class _Answer:
    """The streamed answer so far: its text, its tool calls by index, the usage reported."""

    events: int = 0
    finished: bool = False  # the server gave a finish_reason: the answer is whole
    texts: list[str] = field(default_factory=list)
    calls: dict[int, dict[str, str]] = field(default_factory=dict)
    usage: dict[str, Any] | None = None

    def add(self, event: dict[str, Any]) -> list[str]:
        """Take one chunk; the text it adds (in pieces, as they came)."""
        self.events += 1
        if isinstance(event.get("usage"), dict):
            self.usage = event["usage"]
        added: list[str] = []
        choices = event.get("choices")
        for choice in choices if isinstance(choices, list) else []:
            if not isinstance(choice, dict) or choice.get("index") not in (0, None):
                continue  # one answer was asked for; other choices are not ours
            if isinstance(choice.get("finish_reason"), str):
                self.finished = True
            delta = choice.get("delta")
            if not isinstance(delta, dict):
                continue
            content = delta.get("content")
            if isinstance(content, str) and content:
                self.texts.append(content)
                added.append(content)
            calls = delta.get("tool_calls")
            for call in calls if isinstance(calls, list) else []:
                if isinstance(call, dict):
                    self._add_call(call)
        return added

    def _add_call(self, delta: dict[str, Any]) -> None:
        index = delta.get("index")
        if not isinstance(index, int):
            index = len(self.calls)  # a server that numbers nothing sends each call whole
        call = self.calls.setdefault(index, {"id": "", "name": "", "arguments": ""})
        if isinstance(delta.get("id"), str) and not call["id"]:
            call["id"] = delta["id"]
        function = delta.get("function")
        if isinstance(function, dict):
            if isinstance(function.get("name"), str) and not call["name"]:
                call["name"] = function["name"]
            arguments = function.get("arguments")
            if isinstance(arguments, dict):
                # Some servers send the arguments as a JSON object, not its text: read as
                # litellm read them, not dropped (the tool would be called with `{}`).
                arguments = json.dumps(arguments)
            if isinstance(arguments, str):
                call["arguments"] += arguments

    def completion(self, messages: Sequence[dict[str, Any]]) -> Completion:
        text = "".join(self.texts)
        calls = tuple(
            ToolCall(
                # Some servers send no id; the fallback must be unique across rounds.
                id=call["id"] or f"call_{uuid.uuid4().hex[:12]}",
                name=call["name"],
                arguments=call["arguments"] or "{}",
            )
            for _, call in sorted(self.calls.items())
        )
        return Completion(text=text, tool_calls=calls, usage=self._usage(messages, text, calls))

    def _usage(
        self, messages: Sequence[dict[str, Any]], text: str, calls: tuple[ToolCall, ...]
    ) -> Usage:
        usage = self.usage or {}
        prompt, completion = usage.get("prompt_tokens"), usage.get("completion_tokens")
        if isinstance(prompt, int) and prompt > 0:
            # Priced, if at all, by OpenAICompatibleModel._priced.
            return Usage(prompt, completion if isinstance(completion, int) else 0, None)
        return estimate_usage(messages, text, calls)


class _DeadlinePassed(Exception):
    """The request's deadline (model_limits.request_timeout_seconds) passed while waiting."""


async def _by(deadline: float, waiting: Awaitable[_T]) -> _T:
    """`waiting`'s result, or _DeadlinePassed once `deadline` (time.monotonic) has passed."""
    import anyio

    with anyio.move_on_after(deadline - time.monotonic()) as scope:
        return await waiting
    assert scope.cancelled_caught
    raise _DeadlinePassed


async def _pieces(response: Any, deadline: float) -> AsyncIterator[bytes]:
    """The response's body as it arrives, each wait for a piece bounded by `deadline`."""
    pieces = response.aiter_bytes()
    while (piece := await _by(deadline, anext(pieces, None))) is not None:
        # Also checked once a piece is here: a read that needed no wait is never cancelled.
        if time.monotonic() > deadline:
            raise _DeadlinePassed
        yield piece


async def _events(response: Any, deadline: float) -> AsyncIterator[dict[str, Any]]:
    """The JSON chunks of a server-sent event stream, until `data: [DONE]` or its end.

    An error the server reports inside the stream (`data: {"error": ...}`, an `event: error`,
    or llama.cpp's `error:` field) ends it as a ServerAnswerError with the server's words."""
    reader = _EventReader()
    async for piece in _pieces(response, deadline):
        for event in reader.feed(piece):
            if event is None:
                return
            yield event
    for event in reader.feed(b"\n\n"):  # a last event the server did not end with a blank line
        if event is None:
            return
        yield event


@dataclass
class _EventReader:
    """Server-sent events from pieces of bytes; the whole stream (so each line) is bounded."""

    buffer: bytearray = field(default_factory=bytearray)
    total: int = 0
    name: str = ""
    data: list[str] = field(default_factory=list)

    def feed(self, piece: bytes) -> list[dict[str, Any] | None]:
        """The chunks completed by `piece`; None marks the end (`data: [DONE]`)."""
        self.total += len(piece)
        if self.total > MAX_ANSWER_BYTES:
            raise ServerAnswerError(
                "APIError", f"the answer grew past {MAX_ANSWER_BYTES // 2**20} MiB; refused"
            )
        self.buffer += piece  # in place: a long line arrives in many pieces
        if b"\n" not in piece:
            return []
        *lines, rest = bytes(self.buffer).split(b"\n")
        self.buffer = bytearray(rest)
        events: list[dict[str, Any] | None] = []
        for raw in lines:
            line = raw.decode("utf-8", errors="replace").removesuffix("\r")
            if line:
                self._field(line)
            elif self.data:
                event = self._dispatch()
                events.append(event)
                if event is None:
                    break
        return events

    def _field(self, line: str) -> None:
        name, _, value = line.partition(":")
        value = value.removeprefix(" ")
        if name == "data":
            self.data.append(value)
        elif name == "event":
            self.name = value
        elif name == "error":  # llama.cpp's own field for a failure found mid-stream
            raise _stream_error(_json_or_text(value))

    def _dispatch(self) -> dict[str, Any] | None:
        joined, name = "\n".join(self.data), self.name
        self.data, self.name = [], ""
        if joined.strip() == "[DONE]":
            return None
        parsed = _json_or_text(joined)
        if isinstance(parsed, dict) and "error" in parsed:
            raise _stream_error(parsed["error"])
        if name == "error":
            raise _stream_error(parsed)
        if not isinstance(parsed, dict):
            raise ServerAnswerError(
                "APIError", f"the server sent a chunk that is not JSON: {joined[:200]!r}"
            )
        return parsed


def _innermost(error: Exception) -> Exception:
    """The one failure inside a group of one (anyio's connect wraps its attempts)."""
    while isinstance(error, ExceptionGroup) and len(error.exceptions) == 1:
        error = error.exceptions[0]
    return error


def _json_or_text(text: str) -> Any:
    try:
        return json.loads(text)
    except (ValueError, RecursionError):  # arrays nested 100,000 deep are not JSON we read
        return text


def _stream_error(error: Any) -> ServerAnswerError:
    message = error.get("message") if isinstance(error, dict) else None
    return ServerAnswerError("APIError", str(message or error), error)


async def _status_error(response: Any, deadline: float) -> ServerAnswerError | _Retry:
    """A non-2xx answer as an error (its message read from a capped body, by the deadline); a
    status worth another try comes wrapped in _Retry with the server's Retry-After."""
    import httpx2

    raw = b""
    try:
        async for piece in _pieces(response, deadline):
            raw += piece
            if len(raw) >= MAX_ERROR_BODY_BYTES:
                break
    except httpx2.DecodingError:
        # The server did answer, with this status: a body its Content-Encoding does not
        # unpack must not pass for a broken connection ("nothing answers there").
        encoding = response.headers.get("content-encoding", "")
        raw = f"a body that could not be unpacked ({encoding})".encode()
    text = raw[:MAX_ERROR_BODY_BYTES].decode("utf-8", errors="replace")
    parsed = _json_or_text(text)
    error: Any = parsed.get("error", parsed) if isinstance(parsed, dict) else parsed
    if isinstance(error, dict):
        message = str(error.get("message") or text)
    else:
        message = str(error) or f"HTTP {response.status_code}"
    status = response.status_code
    kind = _KIND_BY_STATUS.get(status) or ("InternalServerError" if status >= 500 else "APIError")
    failure = ServerAnswerError(kind, f"{message} (HTTP {status})", error)
    if _worth_retrying(status, response.headers):
        return _Retry(failure, _retry_after(response.headers))
    return failure


def _worth_retrying(status: int, headers: Any) -> bool:
    should = str(headers.get("x-should-retry", "")).lower()
    if should in ("true", "false"):
        return should == "true"
    return status in _RETRY_STATUSES or status >= 500


def _retry_after(headers: Any) -> float | None:
    """The server's own wait, in seconds, if it named one we heed."""
    for name, scale in (("retry-after-ms", 0.001), ("retry-after", 1.0)):
        try:
            seconds = float(headers.get(name, "")) * scale
        except ValueError:
            continue
        if 0 <= seconds <= _MAX_RETRY_AFTER:
            return seconds
    return None


def _wait(after: float | None, attempt: int) -> float:
    """Seconds before the next try: the server's Retry-After, else backoff with jitter."""
    if after is not None:
        return after
    backoff = min(_FIRST_DELAY * 2.0**attempt, _MAX_DELAY)
    return backoff * (1 - 0.25 * random.random())  # noqa: S311 (jitter, not a secret)


async def _sleep(seconds: float) -> None:
    import anyio

    await anyio.sleep(seconds)
