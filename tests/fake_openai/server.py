"""A scripted OpenAI-compatible chat server on 127.0.0.1, stdlib only.

litellm (through the openai SDK, which uses httpx2) cannot be intercepted by respx, so
tests talk to this server over real HTTP:

    with FakeOpenAI([{"text": "Hello"}]) as fake:     # listens on an OS-chosen port
        litellm.completion(..., api_base=fake.base_url)   # http://127.0.0.1:PORT/v1
        fake.requests            # [{"n", "method", "path", "headers", "body"}, ...]
        fake.add_turns(turn, ...); fake.remaining
        fake.wait_for_requests(n) / await fake.wait_for_requests_async(n)
        fake.wait_for_disconnect(n) / await fake.wait_for_disconnect_async(n)

Headers are recorded with lower-case names; `body` is the parsed JSON. A request whose
client went away before its answer ended gains "client_disconnected": True.

Each POST to /v1/chat/completions (or /chat/completions) consumes the next turn of the
script, a list of dicts:

    {"text": "Hello there"}                          streamed as a few content deltas
    {"text": "...", "tool_calls": [{"id": "call_1", "name": "mcp__fx__echo",
                                    "arguments": {"text": "hi"}}]}
                                                     text first, then tool-call deltas;
                                                     finish_reason "tool_calls"
    {"error": {"status": 401}}                       an OpenAI-style error (see ERRORS for
                                                     the defaults; message/type/code/param
                                                     override them, "raw_body" sends text)

Optional keys on any turn:
    delay_before: float   seconds to wait before answering
    chunk_delay: float    seconds to wait before each streamed chunk after the first
    hang: true            streamed: send the headers and the first delta, then wait until
                          the client goes away or the server stops (Ctrl-C tests);
                          not streamed: never answer at all
    disconnect: true      send the headers and the first delta, then drop the connection
    text_chunks: int      how many content deltas the text is split into (default 3)
    finish_reason: str    override the finish reason ("length", ...)
    usage: dict           override prompt_tokens / completion_tokens (total is their sum);
                          otherwise both are derived from lengths (see usage_of)
    omit_usage: true      streamed: no usage chunk even when asked for (servers that never
                          report usage)
    headers: dict         extra response headers (e.g. {"retry-after-ms": "1"})
    stream_error: dict    streamed: answer 200, then send `data: {"error": <dict>}` and end
                          the stream, as local servers report a failure found after the
                          stream began (llama.cpp's context overflow: {"code": 400,
                          "message": ..., "type": "exceed_context_size_error",
                          "n_prompt_tokens": N, "n_ctx": M}; LM Studio and Ollama likewise)
    stream_error_line: dict  streamed: answer 200, then send `error: <dict>` (an SSE field
                          of that name, as llama.cpp's server sends it) and end the stream
    when: str             taken only by a request whose first user message contains this
                          text (conversations running at once, subagents: each takes its
                          own turns, in script order among those that match it); a turn
                          without `when` is taken by any request
    wait_for: str         answer only once a request whose first user message contains this
                          text has arrived (proof that two conversations run at once: were
                          they one after the other, this would never come); after
                          WAIT_FOR_SECONDS an error answer says the wait failed
    exceed_context: {"n_prompt_tokens": N, "n_ctx": M}
                          a request larger than llama.cpp's window, as its server answers
                          it: streamed, an empty 200 (headers, then the end of the body);
                          not streamed, HTTP 400 with the body its `exceed_context_size_error`
                          sends (tools/server: {"error": {"code": 400, "message": "request (N
                          tokens) exceeds the available context size (M tokens), try
                          increasing it", "type": "exceed_context_size_error",
                          "n_prompt_tokens": N, "n_ctx": M}})

`arguments` may be a dict (sent as json.dumps of it) or a string sent verbatim, so tests
can script invalid JSON; a missing id becomes call_1, call_2, ... by position. A turn with
unknown keys is rejected when it is added: a typo in a script should fail at the line that
made it, not as a puzzling answer later. Streams end with a usage chunk when the request
asks for one (stream_options.include_usage), then "data: [DONE]"; a request with stream
false gets a whole chat.completion built from the same turn.

When the script runs out the server answers 500 "fake server: no scripted turn left for
request N", which litellm raises, so a test that makes one request too many fails loudly.
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import select
import socket
import sys
import threading
import time
from collections.abc import Callable, Iterable, Iterator, Sequence
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path
from typing import Any

Turn = dict[str, Any]

CHAT_PATHS = ("/v1/chat/completions", "/chat/completions")
MODELS_PATHS = ("/v1/models", "/models")
CREATED = 1_700_000_000  # a fixed timestamp keeps recorded answers deterministic
POLL = 0.02  # how often a waiting answer checks for a stop or a vanished client

TURN_KEYS = {
    "text", "tool_calls", "error", "delay_before", "chunk_delay", "hang", "disconnect",
    "text_chunks", "finish_reason", "usage", "omit_usage", "headers", "stream_error",
    "stream_error_line", "exceed_context", "when", "wait_for",
}  # fmt: skip
WAIT_FOR_SECONDS = 120.0
TOOL_CALL_KEYS = {"id", "name", "arguments"}
ERROR_KEYS = {"status", "message", "type", "code", "param", "raw_body"}

# Defaults for error turns, worded as OpenAI words them. litellm classifies some errors by
# their text: only the context-length wording below becomes ContextWindowExceededError, so
# a bare 400 is that error; give a "message" for an ordinary bad request.
# "{model}" is replaced by the model named in the request.
ERRORS: dict[int, dict[str, Any]] = {
    400: {
        "message": "This model's maximum context length is 128000 tokens. However, your "
        "messages resulted in 130000 tokens. Please reduce the length of the messages.",
        "type": "invalid_request_error",
        "code": "context_length_exceeded",
        "param": "messages",
    },
    401: {
        "message": "Incorrect API key provided: sk-test. You can find your API key at "
        "https://platform.openai.com/account/api-keys.",
        "type": "invalid_request_error",
        "code": "invalid_api_key",
    },
    403: {
        "message": "Project `proj_fake` does not have access to model `{model}`",
        "type": "invalid_request_error",
        "code": "model_not_found",
    },
    404: {
        "message": "The model `{model}` does not exist or you do not have access to it.",
        "type": "invalid_request_error",
        "code": "model_not_found",
    },
    429: {
        "message": "Rate limit reached for {model} in organization org-fake on tokens per "
        "min (TPM): Limit 30000, Used 30000, Requested 100. Please try again in 200ms.",
        "type": "tokens",
        "code": "rate_limit_exceeded",
    },
    500: {
        "message": "The server had an error while processing your request. Sorry about that!",
        "type": "server_error",
    },
    502: {"message": "Bad gateway.", "type": "server_error"},
    503: {
        "message": "The engine is currently overloaded, please try again later.",
        "type": "server_error",
    },
    504: {"message": "Gateway timeout.", "type": "server_error"},
}


def validate_turn(turn: Turn) -> Turn:
    """Return the turn if its keys are known, else raise ValueError naming the bad key."""
    if not isinstance(turn, dict):
        raise ValueError(f"a turn must be a dict, not {turn!r}")
    if unknown := set(turn) - TURN_KEYS:
        raise ValueError(f"unknown turn key(s) {sorted(unknown)} in {turn!r}")
    for call in turn.get("tool_calls", []):
        if unknown := set(call) - TOOL_CALL_KEYS:
            raise ValueError(f"unknown tool call key(s) {sorted(unknown)} in {call!r}")
        if "name" not in call:
            raise ValueError(f"a tool call needs a name: {call!r}")
    if "error" in turn:
        if unknown := set(turn["error"]) - ERROR_KEYS:
            raise ValueError(f"unknown error key(s) {sorted(unknown)} in {turn!r}")
        if "status" not in turn["error"]:
            raise ValueError(f"an error turn needs a status: {turn!r}")
    return turn


def first_user_text(body: dict[str, Any]) -> str:
    """The text of a request's first user message ("" when it has none)."""
    for message in body.get("messages") or ():
        if isinstance(message, dict) and message.get("role") == "user":
            content = message.get("content")
            if isinstance(content, list):
                return " ".join(
                    str(part.get("text", "")) for part in content if isinstance(part, dict)
                )
            return str(content or "")
    return ""


def split(text: str, parts: int) -> list[str]:
    """Cut text into at most `parts` non-empty pieces of nearly equal length."""
    if not text:
        return []
    parts = max(1, min(parts, len(text)))
    size, extra = divmod(len(text), parts)
    pieces, start = [], 0
    for i in range(parts):
        end = start + size + (1 if i < extra else 0)
        pieces.append(text[start:end])
        start = end
    return pieces


def arguments_text(call: dict[str, Any]) -> str:
    """The arguments as the wire carries them: dicts as JSON, strings verbatim."""
    arguments = call.get("arguments", {})
    return arguments if isinstance(arguments, str) else json.dumps(arguments)


def tool_calls_of(turn: Turn) -> list[dict[str, Any]]:
    """The turn's tool calls with ids filled in (call_1, call_2, ... when the script omits them)."""
    return [
        {"id": call.get("id", f"call_{i + 1}"), "name": call["name"], "args": arguments_text(call)}
        for i, call in enumerate(turn.get("tool_calls", []))
    ]


def usage_of(turn: Turn, body: dict[str, Any]) -> dict[str, int]:
    """Deterministic token counts: about four characters a token, unless the turn says."""
    prompt = max(1, len(json.dumps(body.get("messages", []), sort_keys=True)) // 4)
    answer = turn.get("text", "") + "".join(c["name"] + c["args"] for c in tool_calls_of(turn))
    usage = {"prompt_tokens": prompt, "completion_tokens": max(1, len(answer) // 4)}
    usage.update(turn.get("usage", {}))
    usage["total_tokens"] = usage["prompt_tokens"] + usage["completion_tokens"]
    return usage


def finish_reason_of(turn: Turn) -> str:
    """ "tool_calls" when the turn calls tools, else "stop", unless the turn overrides it."""
    return turn.get("finish_reason", "tool_calls" if turn.get("tool_calls") else "stop")


def stream_deltas(turn: Turn) -> list[dict[str, Any]]:
    """The `delta` objects of a streamed answer, in OpenAI's order and shape."""
    text, calls = turn.get("text", ""), tool_calls_of(turn)
    # OpenAI opens with the role; content is "" before text and null before tool calls.
    deltas: list[dict[str, Any]] = [{"role": "assistant", "content": "" if text else None}]
    deltas += [{"content": piece} for piece in split(text, turn.get("text_chunks", 3))]
    for index, call in enumerate(calls):
        # The first delta of a call names it; the arguments follow in pieces, carrying
        # only the index (clients must join them by index, not by id).
        head = {"index": index, "id": call["id"], "type": "function"}
        head["function"] = {"name": call["name"], "arguments": ""}
        deltas.append({"tool_calls": [head]})
        for piece in split(call["args"], 4):
            deltas.append({"tool_calls": [{"index": index, "function": {"arguments": piece}}]})
    return deltas


def completion_json(turn: Turn, body: dict[str, Any], number: int) -> dict[str, Any]:
    """A non-streamed chat.completion built from the same turn."""
    message: dict[str, Any] = {"role": "assistant", "content": turn.get("text") or None}
    if calls := tool_calls_of(turn):
        message["tool_calls"] = [
            {
                "id": c["id"],
                "type": "function",
                "function": {"name": c["name"], "arguments": c["args"]},
            }
            for c in calls
        ]
    return {
        "id": f"chatcmpl-fake-{number}",
        "object": "chat.completion",
        "created": CREATED,
        "model": body.get("model", "fake-model"),
        "choices": [{"index": 0, "message": message, "finish_reason": finish_reason_of(turn)}],
        "usage": usage_of(turn, body),
    }


def error_json(error: dict[str, Any], model: str) -> dict[str, Any]:
    """OpenAI's error body: {"error": {"message", "type", "param", "code"}}."""
    fields = {"message": f"fake server error {error['status']}", "type": "server_error"}
    fields |= ERRORS.get(error["status"], {})
    fields |= {k: v for k, v in error.items() if k in ("message", "type", "code", "param")}
    return {
        "error": {
            "message": fields["message"].replace("{model}", model),
            "type": fields["type"],
            "param": fields.get("param"),
            "code": fields.get("code"),
        }
    }


class ClientGone(Exception):
    """The client closed the connection (timeout, Ctrl-C); stop answering it."""


class Stopping(Exception):
    """The server is stopping: end this answer now, mid-stream if need be."""


class _Handler(BaseHTTPRequestHandler):
    """Answers one connection's requests from the server's script."""

    # HTTP/1.1 as real providers speak it: streams use chunked encoding, and connections
    # stay open between requests when the FakeOpenAI was made with keep_alive=True.
    protocol_version = "HTTP/1.1"
    # Without this each small write waits for the client's delayed ACK: about 40 ms a response.
    disable_nagle_algorithm = True
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet: tests read the recorded requests, not an access log on stderr."""

    def do_GET(self) -> None:
        """GET /v1/models lists the fake's `models` (when it was given some, like a local
        server); anything else is recorded and answered 404."""
        self._record(None)
        models = self.server.fake.models
        if models is not None and self.path.split("?")[0] in MODELS_PATHS:
            listing = {
                "object": "list",
                "data": [{"id": name, "object": "model"} for name in models],
            }
            payload = json.dumps(listing).encode()
            self._send_headers(200, "application/json", len(payload), None)
            self.wfile.write(payload)
            return
        self._send_error(404, {"status": 404, "message": f"no route {self.path}"}, "")

    def do_POST(self) -> None:
        """Record the request, then answer it from the next scripted turn."""
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length)
        try:
            body = json.loads(raw) if raw else {}
        except ValueError:
            body = {"_unparsed": raw.decode("utf-8", "replace")}
        record = self._record(body)
        if self.path.split("?")[0] not in CHAT_PATHS:
            self._send_error(404, {"status": 404, "message": f"no route {self.path}"}, "")
            return
        turn = self.server.fake.next_turn(body)
        model = str(body.get("model", "fake-model"))
        try:
            waited = turn is None or self.server.fake.wait_for_first_message(turn.get("wait_for"))
            if turn is not None and not waited:
                message = f"fake server: no request with {turn['wait_for']!r} came"
                self._send_error(500, {"status": 500, "message": message}, model)
                return
            if turn is None:
                message = f"fake server: no scripted turn left for request {record['n']}"
                self._send_error(500, {"status": 500, "message": message}, model)
            else:
                self._answer(turn, body, record["n"], model)
        except (ClientGone, BrokenPipeError, ConnectionResetError):
            # The client stopped listening: remember that for the test, drop the connection.
            self.server.fake.mark_disconnected(record)
            self.close_connection = True
        except Stopping:
            self.close_connection = True

    def _record(self, body: dict[str, Any] | None) -> dict[str, Any]:
        # Header names are lower-cased (HTTP ignores their case; httpx sends them lower-case).
        headers = {name.lower(): value for name, value in self.headers.items()}
        return self.server.fake.record(
            {"method": self.command, "path": self.path, "headers": headers, "body": body}
        )

    def _answer(self, turn: Turn, body: dict[str, Any], number: int, model: str) -> None:
        self._wait(turn.get("delay_before", 0.0))
        if "error" in turn:
            self._send_error(turn["error"]["status"], turn["error"], model, turn.get("headers"))
        elif "exceed_context" in turn:
            self._exceed_context(turn["exceed_context"], bool(body.get("stream")))
        elif body.get("stream"):
            self._stream(turn, body, number, model)
        elif turn.get("hang"):
            self._wait(None)
            self.close_connection = True
        else:
            payload = json.dumps(completion_json(turn, body, number)).encode()
            self._send_headers(200, "application/json", len(payload), turn.get("headers"))
            self.wfile.write(payload)

    def _stream(self, turn: Turn, body: dict[str, Any], number: int, model: str) -> None:
        def chunk(choices: list[Any], **extra: Any) -> dict[str, Any]:
            base = {"id": f"chatcmpl-fake-{number}", "object": "chat.completion.chunk"}
            return base | {"created": CREATED, "model": model, "choices": choices} | extra

        events = [
            chunk([{"index": 0, "delta": delta, "finish_reason": None}])
            for delta in stream_deltas(turn)
        ]
        events.append(chunk([{"index": 0, "delta": {}, "finish_reason": finish_reason_of(turn)}]))
        asked = (body.get("stream_options") or {}).get("include_usage")
        if asked and not turn.get("omit_usage"):
            events.append(chunk([], usage=usage_of(turn, body)))
        lines = [f"data: {json.dumps(e)}\n\n" for e in events] + ["data: [DONE]\n\n"]

        self._send_headers(200, "text/event-stream", None, turn.get("headers"))
        if "stream_error" in turn or "stream_error_line" in turn:
            if "stream_error" in turn:
                event = f"data: {json.dumps({'error': turn['stream_error']})}\n\n"
            else:
                event = f"error: {json.dumps(turn['stream_error_line'])}\n\n"
            self._send_chunk(event.encode())
            self.wfile.write(b"0\r\n\r\n")
            return
        if turn.get("hang") or turn.get("disconnect"):
            # The role delta plus the first content or tool-call delta: the client has
            # started showing an answer when it stalls or breaks.
            for line in lines[:2]:
                self._send_chunk(line.encode())
            if turn.get("hang"):
                self._wait(None)
            self.close_connection = True  # no terminating chunk: the body stays incomplete
            return
        for i, line in enumerate(lines):
            if i:
                self._wait(turn.get("chunk_delay", 0.0))
            self._send_chunk(line.encode())
        self.wfile.write(b"0\r\n\r\n")

    def _exceed_context(self, numbers: dict[str, int], streamed: bool) -> None:
        if streamed:  # what llama.cpp's server was seen to send: a 200 with nothing in it
            self._send_headers(200, "text/event-stream", None, None)
            self.wfile.write(b"0\r\n\r\n")
            return
        sent, window = numbers["n_prompt_tokens"], numbers["n_ctx"]
        error = {
            "code": 400,
            "message": f"request ({sent} tokens) exceeds the available context size "
            f"({window} tokens), try increasing it",
            "type": "exceed_context_size_error",
            "n_prompt_tokens": sent,
            "n_ctx": window,
        }
        payload = json.dumps({"error": error}).encode()
        self._send_headers(400, "application/json", len(payload), None)
        self.wfile.write(payload)

    def _send_headers(
        self, status: int, content_type: str, length: int | None, extra: dict[str, str] | None
    ) -> None:
        self.send_response(status)
        self.send_header("Content-Type", content_type)
        if length is None:
            self.send_header("Transfer-Encoding", "chunked")
            self.send_header("Cache-Control", "no-cache")
        else:
            self.send_header("Content-Length", str(length))
        if not self.server.fake.keep_alive:
            # send_header also sets close_connection: the handler ends after this answer.
            self.send_header("Connection", "close")
        for name, value in (extra or {}).items():
            self.send_header(name, value)
        self.end_headers()

    def _send_chunk(self, data: bytes) -> None:
        # One write per chunk: with Nagle off, each SSE event leaves at once, whole.
        self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))

    def _send_error(
        self, status: int, error: dict[str, Any], model: str, headers: dict[str, str] | None = None
    ) -> None:
        if "raw_body" in error:  # e.g. a proxy's HTML page
            payload, kind = str(error["raw_body"]).encode(), "text/html"
        else:
            payload, kind = json.dumps(error_json(error, model)).encode(), "application/json"
        self._send_headers(status, kind, len(payload), headers)
        self.wfile.write(payload)

    def _wait(self, seconds: float | None) -> None:
        """Sleep `seconds` (None: forever), ending early when the server stops.

        Raises ClientGone as soon as the client closes the connection, so a timed-out or
        interrupted request does not keep a thread busy until the end of the test.
        """
        deadline = None if seconds is None else time.monotonic() + seconds
        while deadline is None or time.monotonic() < deadline:
            if self.server.fake.stopping.is_set():
                raise Stopping
            step = POLL if deadline is None else min(POLL, deadline - time.monotonic())
            readable, _, _ = select.select([self.connection], [], [], max(step, 0))
            if readable and not self.connection.recv(1, socket.MSG_PEEK):
                raise ClientGone


class _Server(ThreadingHTTPServer):
    """Tracks open connections so stopping can close idle keep-alive ones too."""

    daemon_threads = True
    block_on_close = True  # server_close() joins every handler thread: nothing outlives stop()
    fake: FakeOpenAI

    def __init__(self, fake: FakeOpenAI, host: str) -> None:
        self.fake = fake
        self.open_connections: set[socket.socket] = set()
        self.connections_lock = threading.Lock()
        super().__init__((host, 0), _Handler)

    def process_request(self, request: Any, client_address: Any) -> None:
        with self.connections_lock:
            self.open_connections.add(request)
        super().process_request(request, client_address)

    def shutdown_request(self, request: Any) -> None:
        with self.connections_lock:
            self.open_connections.discard(request)
        super().shutdown_request(request)

    def handle_error(self, request: Any, client_address: Any) -> None:
        """A client dropping an idle keep-alive connection is normal, not a traceback."""
        if not isinstance(sys.exc_info()[1], ConnectionError):
            super().handle_error(request, client_address)

    def close_connections(self) -> None:
        """Wake handlers blocked reading an idle keep-alive connection."""
        with self.connections_lock:
            connections = list(self.open_connections)
        for connection in connections:
            with contextlib.suppress(OSError):
                connection.shutdown(socket.SHUT_RDWR)


class FakeOpenAI:
    """A scripted OpenAI-compatible server: `with FakeOpenAI(turns) as fake: ... fake.base_url`."""

    def __init__(
        self,
        script: Iterable[Turn] = (),
        *,
        host: str = "127.0.0.1",
        on_request: Callable[[dict[str, Any]], None] | None = None,
        keep_alive: bool = False,
        models: Sequence[str] | None = None,
    ) -> None:
        """`keep_alive=False` answers "Connection: close": litellm caches one HTTP client per
        api_base for the life of the process and never closes it, so with keep-alive every
        fake server of a test run would leave a pooled socket behind, reported as an
        unclosed-socket ResourceWarning when the cache is collected.
        """
        self._turns = [validate_turn(turn) for turn in script]
        self._taken: set[int] = set()  # the turns requests have consumed
        self._host = host
        self._on_request = on_request  # e.g. the CLI's JSONL log
        self.keep_alive = keep_alive
        self.models = models  # GET /v1/models answers these; None: 404, as before
        self._lock = threading.Condition()
        self.requests: list[dict[str, Any]] = []
        self.stopping = threading.Event()
        self._server: _Server | None = None
        self._thread: threading.Thread | None = None

    @property
    def port(self) -> int:
        """The OS-chosen port (the server must be started)."""
        if self._server is None:
            raise RuntimeError("FakeOpenAI is not started")
        return int(self._server.server_address[1])

    @property
    def base_url(self) -> str:
        """What to pass as api_base: http://127.0.0.1:PORT/v1."""
        return f"http://{self._host}:{self.port}/v1"

    @property
    def remaining(self) -> int:
        """How many scripted turns no request has consumed yet."""
        with self._lock:
            return len(self._turns) - len(self._taken)

    def add_turns(self, *turns: Turn) -> None:
        """Append turns to the script (also while the server runs)."""
        checked = [validate_turn(turn) for turn in turns]
        with self._lock:
            self._turns.extend(checked)

    def next_turn(self, body: dict[str, Any] | None = None) -> Turn | None:
        """The first unconsumed turn this request may take (its `when`, if any, is in the
        request's first user message), or None when none is left for it."""
        first = first_user_text(body or {})
        with self._lock:
            for index, turn in enumerate(self._turns):
                if index in self._taken or turn.get("when", "") not in first:
                    continue
                self._taken.add(index)
                return turn
            return None

    def wait_for_first_message(self, text: str | None) -> bool:
        """Block until a request whose first user message holds `text` has arrived (bounded;
        False when it never did, or the server stops). None: no wait."""
        if text is None:
            return True

        def arrived() -> bool:
            seen = any(text in first_user_text(r.get("body") or {}) for r in self.requests)
            return seen or self.stopping.is_set()

        with self._lock:
            return self._lock.wait_for(arrived, WAIT_FOR_SECONDS) and not self.stopping.is_set()

    def record(self, request: dict[str, Any]) -> dict[str, Any]:
        """Number and keep a request; the same dict later gains `client_disconnected`."""
        with self._lock:
            request = {"n": len(self.requests) + 1, **request}
            self.requests.append(request)
            if self._on_request is not None:
                self._on_request(request)
            self._lock.notify_all()
        return request

    def mark_disconnected(self, request: dict[str, Any]) -> None:
        """Note that the client closed the connection before the answer ended."""
        with self._lock:
            request["client_disconnected"] = True
            self._lock.notify_all()

    def wait_for_requests(self, count: int, timeout: float = 10.0) -> list[dict[str, Any]]:
        """Block until `count` requests have arrived (bounded), then return them all.

        In async tests use `await wait_for_requests_async(...)`: blocking the event loop
        would stop the client from sending the very request being waited for.
        """
        with self._lock:
            if not self._lock.wait_for(lambda: self._arrived(count), timeout):
                raise TimeoutError(self._late_requests(count, timeout))
            return list(self.requests)

    async def wait_for_requests_async(
        self, count: int, timeout: float = 10.0
    ) -> list[dict[str, Any]]:
        """Like wait_for_requests, but lets the event loop run while waiting."""
        await self._poll(lambda: self._arrived(count), timeout, self._late_requests(count, timeout))
        with self._lock:
            return list(self.requests)

    def wait_for_disconnect(self, n: int, timeout: float = 10.0) -> None:
        """Block until the client of request `n` (1-based) has closed its connection.

        In async tests use `await wait_for_disconnect_async(...)`: asyncio closes a socket
        in a callback, so blocking the event loop would keep the connection open.
        """
        with self._lock:
            if not self._lock.wait_for(lambda: self._disconnected(n), timeout):
                raise TimeoutError(self._still_connected(n, timeout))

    async def wait_for_disconnect_async(self, n: int, timeout: float = 10.0) -> None:
        """Like wait_for_disconnect, but lets the event loop run while waiting."""
        await self._poll(lambda: self._disconnected(n), timeout, self._still_connected(n, timeout))

    def _arrived(self, count: int) -> bool:
        return len(self.requests) >= count

    def _disconnected(self, n: int) -> bool:
        return len(self.requests) >= n and bool(self.requests[n - 1].get("client_disconnected"))

    def _late_requests(self, count: int, timeout: float) -> str:
        return f"fake server: fewer than {count} request(s) after {timeout} s"

    def _still_connected(self, n: int, timeout: float) -> str:
        return f"fake server: request {n} still connected after {timeout} s"

    async def _poll(self, ready: Callable[[], bool], timeout: float, failure: str) -> None:
        # Polling keeps this stdlib-only and cancellable under any asyncio-based runner.
        deadline = time.monotonic() + timeout
        while True:
            with self._lock:
                if ready():
                    return
            if time.monotonic() >= deadline:
                raise TimeoutError(failure)
            await asyncio.sleep(POLL)

    def start(self) -> FakeOpenAI:
        """Listen on an OS-chosen port and serve in a background thread."""
        self.stopping.clear()
        self._server = _Server(self, self._host)
        self._thread = threading.Thread(
            target=self._server.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, end hanging answers and idle connections, and join every thread."""
        if self._server is None:
            return
        self.stopping.set()
        with self._lock:
            self._lock.notify_all()  # a turn waiting for a request (`wait_for`) gives up
        self._server.shutdown()
        self._server.close_connections()
        self._server.server_close()
        if self._thread is not None:
            self._thread.join()
        self._server = self._thread = None

    def __enter__(self) -> FakeOpenAI:
        return self.start()

    def __exit__(self, *exc_info: object) -> None:
        self.stop()


def iter_turns(path: str | Path) -> Iterator[Turn]:
    """The turns of a JSON script file: a list of turn objects."""
    turns = json.loads(Path(path).read_text(encoding="utf-8"))
    if not isinstance(turns, list):
        raise ValueError(f"{path}: a script is a JSON list of turns")
    yield from turns
