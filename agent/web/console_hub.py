"""The console's log and its event streams: every message on every server's wire, each stdio
server's stderr, our notes, fanned out to the open tabs.

The log keeps the last LOG_KEPT entries (a tab that opens later sees them first). Each tab
has a bounded queue: a tab that does not keep up loses its oldest events and is told how many,
instead of the bridge holding an unbounded backlog for it. Texts arrive redacted (the runtime's
observers redact them) and are cut at TEXT_CHARS here.
"""

from __future__ import annotations

import datetime
import itertools
import json
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal

import anyio

from agent.text import plural
from agent.web.era_probe import EraProbes

LOG_KEPT = 1000
QUEUE_EVENTS = 2000
MAX_STREAMS = 8
TEXT_CHARS = 64 * 1024

EventType = Literal["log", "server", "elicitation", "elicitation-done"]
LogDirection = Literal["sent", "received", "stderr", "note"]


@dataclass(frozen=True)
class Event:
    """One event for the tabs: its type, its JSON data and (log events) its sequence number."""

    type: EventType
    data: dict[str, Any]
    seq: int | None = None


@dataclass(eq=False)  # kept in a set: each stream is itself
class Subscriber:
    """One open event stream: its queue of events not yet sent."""

    limit: int = QUEUE_EVENTS
    queue: deque[Event] = field(default_factory=deque)
    dropped: int = 0
    closed: bool = False
    wake: anyio.Event = field(default_factory=anyio.Event)

    def put(self, event: Event) -> None:
        """Queue an event; a full queue loses its oldest one."""
        if len(self.queue) >= self.limit:
            self.queue.popleft()
            self.dropped += 1
        self.queue.append(event)
        self.wake.set()

    def close(self) -> None:
        """End the stream (the bridge is stopping)."""
        self.closed = True
        self.wake.set()

    async def take(self, wait: float) -> list[Event]:
        """The events queued now, waiting up to `wait` s for one; [] when none came."""
        if not self.queue and not self.closed:
            with anyio.move_on_after(wait):
                await self.wake.wait()
        self.wake = anyio.Event()
        events = list(self.queue)
        self.queue.clear()
        return events


def log_entry(
    seq: int,
    server: str,
    direction: LogDirection,
    text: str,
    message: object = None,
    fallback: str | None = None,
) -> dict[str, Any]:
    """A `log` event's data: what the message is (kind, method, id) and its text, cut.
    `fallback`: the words for an era probe's refusal (era_probe.py), shown as kind
    "fallback" instead of "error"."""
    kind, method, request_id = _describe(direction, message)
    cut = len(text) > TEXT_CHARS
    if cut:
        text = text[:TEXT_CHARS] + f" [cut: {TEXT_CHARS} of {plural(len(text), 'character')}]"
    now = datetime.datetime.now(datetime.UTC)
    return {
        "seq": seq,
        "time": now.strftime("%Y-%m-%dT%H:%M:%S.") + f"{now.microsecond // 1000:03d}Z",
        "server": server,
        "direction": direction,
        "kind": kind,
        "method": method,
        "id": request_id,
        "text": text,
        "cut": cut,
        **({"kind": "fallback", "note": fallback} if fallback else {}),
    }


def _describe(direction: LogDirection, message: object) -> tuple[str, str | None, Any]:
    if direction in ("stderr", "note"):
        return direction, None, None
    if not isinstance(message, dict):
        return "notification", None, None
    method = message.get("method")
    request_id = message.get("id")
    if not isinstance(request_id, str | int) or isinstance(request_id, bool):
        request_id = None
    if isinstance(method, str):
        return ("request" if request_id is not None else "notification"), method, request_id
    return ("error" if "error" in message else "response"), None, request_id


class ConsoleHub:
    """The log ring and the open event streams."""

    def __init__(self) -> None:
        self.log: deque[Event] = deque(maxlen=LOG_KEPT)
        self._seq = itertools.count(1)
        self._subscribers: set[Subscriber] = set()
        self._probes = EraProbes()
        self.closed = False

    def observe(self, server: str, direction: Literal["send", "receive"], text: str) -> None:
        """The runtime's observer: one JSON-RPC message, as the trace shows it (redacted)."""
        try:
            message = json.loads(text)
        except ValueError:
            message = None
        if direction == "send":
            self._probes.sent(server, message)
            self.add_log(server, "sent", text, message)
        else:
            fallback = self._probes.fallback(server, message)
            self.add_log(server, "received", text, message, fallback)

    def observe_stderr(self, server: str, line: str) -> None:
        """The runtime's stderr observer: one line of a stdio server's stderr (redacted)."""
        self.add_log(server, "stderr", line)

    def note(self, server: str, text: str) -> None:
        """A line of ours in the log (e.g. a form declined without asking)."""
        self.add_log(server, "note", text)

    def add_log(
        self,
        server: str,
        direction: LogDirection,
        text: str,
        message: object = None,
        fallback: str | None = None,
    ) -> None:
        """Keep a log entry and send it to every tab."""
        seq = next(self._seq)
        event = Event("log", log_entry(seq, server, direction, text, message, fallback), seq)
        self.log.append(event)
        self.publish(event)

    def publish(self, event: Event) -> None:
        """Send an event to every open stream."""
        for subscriber in self._subscribers:
            subscriber.put(event)

    def subscribe(self, replay: Callable[[], list[Event]]) -> Subscriber | None:
        """A new stream that starts with the kept log and `replay()`'s events (server states,
        pending forms); None when MAX_STREAMS are open already."""
        if len(self._subscribers) >= MAX_STREAMS or self.closed:
            return None
        subscriber = Subscriber()
        for event in [*self.log, *replay()]:
            subscriber.put(event)
        self._subscribers.add(subscriber)
        return subscriber

    def unsubscribe(self, subscriber: Subscriber) -> None:
        """The tab went away."""
        self._subscribers.discard(subscriber)

    @property
    def streams(self) -> int:
        """How many event streams are open."""
        return len(self._subscribers)

    def close(self) -> None:
        """End every stream (the bridge is stopping) and accept no new one."""
        self.closed = True
        for subscriber in self._subscribers:
            subscriber.close()

    def dropped_note(self, subscriber: Subscriber) -> Event | None:
        """For a tab that lost events: a note saying how many (and the count starts again)."""
        if not subscriber.dropped:
            return None
        count, subscriber.dropped = subscriber.dropped, 0
        verb = "was" if count == 1 else "were"
        text = f"this tab fell behind: {plural(count, 'event')} {verb} dropped"
        return Event("log", log_entry(next(self._seq), "", "note", text), None)
