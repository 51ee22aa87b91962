"""What passes on a connection besides our own requests: the server's requests to us (ping,
roots, elicitation) with what we answered, for `agent mcp inspect`; and the answers to
hand-written messages (`agent mcp send`), which the session does not know about.

Every text kept here is the trace's: secrets redacted, form secrets blanked.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass
from typing import Any, Literal

import anyio

Direction = Literal["send", "receive"]

MAX_KEPT = 100
ANSWER_CHARS = 300
METHOD_CHARS = 100


@dataclass
class ServerRequest:
    """One request the server sent us, and our answer (None until we answered)."""

    id: str | int
    method: str
    answer: str | None = None


class ConnectionTraffic:
    """Watches every message of one connection (called by its stream taps)."""

    def __init__(self) -> None:
        self.requests: deque[ServerRequest] = deque(maxlen=MAX_KEPT)
        self._waiting: dict[str | int, tuple[anyio.Event, list[dict[str, Any]]]] = {}

    def wants(self, direction: Direction, payload: dict[str, Any]) -> bool:
        """Whether `see` needs the message's shown text (server requests and our answers)."""
        has_id = isinstance(payload.get("id"), str | int)
        if direction == "receive":
            return has_id and ("method" in payload or payload["id"] in self._waiting)
        return has_id and "method" not in payload

    def see(
        self,
        direction: Direction,
        payload: dict[str, Any],
        shown: Callable[[], str],
    ) -> None:
        """Record a server request or our answer to one; hand an awaited answer to its waiter."""
        request_id = payload.get("id")
        if not isinstance(request_id, str | int):
            return
        if direction == "receive" and "method" not in payload:
            waiter = self._waiting.get(request_id)
            if waiter is not None:
                waiter[1].append(payload)
                waiter[0].set()
            return
        if direction == "receive":
            # A method is the server's text: kept short, like the answer.
            self.requests.append(ServerRequest(request_id, str(payload["method"])[:METHOD_CHARS]))
            return
        if "method" in payload:
            return
        for request in reversed(self.requests):
            if request.id == request_id and request.answer is None:
                request.answer = _answer_text(shown())
                return

    async def wait_for_answer(
        self, request_id: str | int, send: Callable[[], Any], timeout: float
    ) -> dict[str, Any] | None:
        """Call `send`, then wait up to `timeout` s for the answer with `request_id`."""
        event, answers = anyio.Event(), list[dict[str, Any]]()
        self._waiting[request_id] = (event, answers)
        try:
            await send()
            with anyio.move_on_after(timeout):
                await event.wait()
        finally:
            del self._waiting[request_id]
        return answers[0] if answers else None


def _answer_text(shown: str) -> str:
    """The result or error of an answer as compact JSON, clipped."""
    try:
        message = json.loads(shown)
    except json.JSONDecodeError:
        return shown[:ANSWER_CHARS]
    part = message.get("result", message.get("error")) if isinstance(message, dict) else message
    text = json.dumps(part, ensure_ascii=False)
    return text if len(text) <= ANSWER_CHARS else text[:ANSWER_CHARS] + "..."
