"""Stream taps: watch every JSON-RPC message of a connection (for --trace, and to notice
that a server went away) without changing what flows."""

from __future__ import annotations

from collections.abc import Callable
from types import TracebackType
from typing import Any, Literal

import anyio
from mcp.shared.message import SessionMessage

from agent.mcp.client.sdk import ReadStream, TransportStreams, WriteStream

Direction = Literal["send", "receive"]
MessageObserver = Callable[[Direction, dict[str, Any]], None]


def message_payload(item: SessionMessage) -> dict[str, Any]:
    """The JSON-RPC message as it goes over the wire."""
    dumped: dict[str, Any] = item.message.model_dump(mode="json", by_alias=True, exclude_none=True)
    return dumped


class _TapReceive:
    def __init__(
        self,
        inner: ReadStream[SessionMessage | Exception],
        observe: MessageObserver | None,
        on_end: Callable[[], None],
    ) -> None:
        self._inner = inner
        self._observe = observe
        self._on_end = on_end

    @property
    def last_context(self) -> Any:
        # The dispatcher reads the sender's contextvars from here when the transport has them.
        return getattr(self._inner, "last_context", None)

    async def receive(self) -> SessionMessage | Exception:
        try:
            item = await self._inner.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            self._on_end()
            raise
        if self._observe is not None and isinstance(item, SessionMessage):
            self._observe("receive", message_payload(item))
        return item

    async def aclose(self) -> None:
        await self._inner.aclose()

    def __aiter__(self) -> _TapReceive:
        return self

    async def __anext__(self) -> SessionMessage | Exception:
        try:
            return await self.receive()
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            raise StopAsyncIteration from None

    async def __aenter__(self) -> _TapReceive:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


class _TapSend:
    def __init__(self, inner: WriteStream[SessionMessage], observe: MessageObserver) -> None:
        self._inner = inner
        self._observe = observe

    async def send(self, item: SessionMessage, /) -> None:
        self._observe("send", message_payload(item))
        await self._inner.send(item)

    async def aclose(self) -> None:
        await self._inner.aclose()

    async def __aenter__(self) -> _TapSend:
        return self

    async def __aexit__(
        self,
        exc_type: type[BaseException] | None,
        exc_val: BaseException | None,
        exc_tb: TracebackType | None,
    ) -> None:
        await self.aclose()


def tap_streams(
    streams: TransportStreams, observe: MessageObserver | None, on_end: Callable[[], None]
) -> TransportStreams:
    """Streams that report each message to `observe` and call `on_end` when the peer is gone."""
    read, write = streams
    tapped_write: WriteStream[SessionMessage] = (
        write if observe is None else _TapSend(write, observe)
    )
    return _TapReceive(read, observe, on_end), tapped_write
