"""Model servers on this machine: Ollama, LM Studio, llama.cpp's server and vLLM, found by
asking each one's model list, all at once, within one short deadline.

Only 127.0.0.1 is asked, and with no credentials at all: whatever listens on a well-known port
may be anyone's program. Its answer is untrusted: it is read up to a size limit and a deadline
(a server that trickles bytes is given up on), and a model name that is not plain printable
text is skipped, never shown. Standard library only: this runs before the chat, when nothing
heavy has been imported yet.
"""

from __future__ import annotations

import json
import socket
import threading
import time
from dataclasses import dataclass
from typing import Any

from agent.text import sanitize_line

HOST = "127.0.0.1"
MAX_ANSWER_BYTES = 2 * 1024 * 1024
MAX_MODELS = 500  # per server; more are counted, not kept
MAX_NAME_CHARS = 200


@dataclass(frozen=True)
class ServerKind:
    """One kind of local server: how to list its models and how litellm reaches it."""

    setting: str  # the port's key under model_discovery in settings.yaml
    label: str
    provider: str  # litellm's prefix; each reads only its own key variable, never OPENAI_API_KEY
    list_path: str
    api_path: str  # appended to http://127.0.0.1:PORT for api_base


KINDS = (
    ServerKind("ollama_port", "Ollama", "ollama_chat", "/api/tags", ""),
    ServerKind("lm_studio_port", "LM Studio", "lm_studio", "/v1/models", "/v1"),
    # litellm's llamafile provider speaks llama.cpp's OpenAI-compatible server.
    ServerKind("llama_cpp_port", "llama.cpp", "llamafile", "/v1/models", "/v1"),
    ServerKind("vllm_port", "vLLM", "hosted_vllm", "/v1/models", "/v1"),
)


@dataclass(frozen=True)
class LocalServer:
    """A server that answered its model list."""

    kind: ServerKind
    port: int
    models: tuple[str, ...]
    skipped: int  # names left out: not plain printable text, too long, or past MAX_MODELS

    @property
    def where(self) -> str:
        """E.g. "LM Studio on 127.0.0.1:1234"."""
        return f"{self.kind.label} on {HOST}:{self.port}"

    @property
    def api_base(self) -> str:
        """What litellm is given as api_base (lm_studio/ has no default of its own)."""
        return f"http://{HOST}:{self.port}{self.kind.api_path}"


class Probe:
    """Asks every configured port at once in daemon threads; `result()` waits until the
    deadline at most, and a server still answering by then is left out."""

    def __init__(self, ports: dict[str, int], timeout: float) -> None:
        self._deadline = time.monotonic() + timeout
        self._found: dict[int, LocalServer] = {}
        self._lock = threading.Lock()
        self._threads = []
        for index, kind in enumerate(KINDS):
            port = ports.get(kind.setting, 0)
            if port:
                thread = threading.Thread(
                    target=self._ask, args=(index, kind, port), name="probe", daemon=True
                )
                thread.start()
                self._threads.append(thread)

    def result(self) -> list[LocalServer]:
        """The servers that answered, in KINDS order."""
        for thread in self._threads:
            thread.join(max(0.0, self._deadline - time.monotonic()))
        with self._lock:
            return [self._found[index] for index in sorted(self._found)]

    def _ask(self, index: int, kind: ServerKind, port: int) -> None:
        body = fetch(port, kind.list_path, self._deadline)
        if body is None:
            return
        names, skipped = model_names(body)
        if time.monotonic() <= self._deadline:
            with self._lock:
                self._found[index] = LocalServer(kind, port, names, skipped)


def fetch(port: int, path: str, deadline: float) -> bytes | None:
    """The body of a 200 answer to GET `path` on 127.0.0.1:`port`, or None (nothing there,
    an error status, too slow, or too big)."""
    request = (
        f"GET {path} HTTP/1.0\r\nHost: {HOST}:{port}\r\nAccept: application/json\r\n"
        "User-Agent: agent\r\n\r\n"
    ).encode("ascii")
    data = bytearray()
    try:
        left = deadline - time.monotonic()
        if left <= 0:
            return None
        with socket.create_connection((HOST, port), timeout=left) as connection:
            connection.sendall(request)
            while len(data) <= MAX_ANSWER_BYTES:
                left = deadline - time.monotonic()
                if left <= 0:
                    return None
                connection.settimeout(left)
                chunk = connection.recv(65536)
                if not chunk:
                    break
                data += chunk
            else:
                return None
    except OSError:
        return None
    head, _, body = bytes(data).partition(b"\r\n\r\n")
    status = head.split(b"\r\n", 1)[0].split()
    if len(status) < 2 or status[1] != b"200":
        return None
    if b"transfer-encoding: chunked" in head.lower():
        return _unchunked(body)
    return body


def _unchunked(body: bytes) -> bytes | None:
    # An HTTP/1.0 request should get a plain body; decoded anyway for servers that chunk.
    out = bytearray()
    while True:
        size_line, _, rest = body.partition(b"\r\n")
        try:
            size = int(size_line.split(b";")[0], 16)
        except ValueError:
            return None
        if size == 0:
            return bytes(out)
        out += rest[:size]
        body = rest[size + 2 :]


def model_names(body: bytes) -> tuple[tuple[str, ...], int]:
    """Model names from an Ollama (/api/tags) or OpenAI-style (/v1/models) list, and how many
    were skipped."""
    try:
        data: Any = json.loads(body)
    except (ValueError, RecursionError):
        return (), 0
    entries: Any = []
    if isinstance(data, dict):
        entries = data.get("models", data.get("data", []))
    if not isinstance(entries, list):
        return (), 0
    names: list[str] = []
    skipped = 0
    for entry in entries:
        name = entry.get("name", entry.get("id")) if isinstance(entry, dict) else None
        if not (isinstance(name, str) and plain_name(name)) or len(names) >= MAX_MODELS:
            skipped += 1
        elif name not in names:
            names.append(name)
    return tuple(names), skipped


def plain_name(name: str) -> bool:
    """A model name we may show and save: printable, no spaces, not too long."""
    return (
        0 < len(name) <= MAX_NAME_CHARS
        and sanitize_line(name) == name
        and not any(char.isspace() for char in name)
    )
