"""How much of an HTTP answer we hold: one message, at most MAX_ANSWER_BYTES.

Over stdio a message is capped where its line is read (client/stdio.py). Over HTTP the SDK
reads a JSON answer whole (`response.aread()`), so a remote server (or the authorization
server it names, whose metadata and tokens come the same way) that never ended its body filled
memory; server-sent events the SDK caps itself, per event. So every answer to a client made by
http_client.py passes through a response hook that puts a counting stream in front of the
body: a JSON (or any non-event) body past the limit ends with AnswerTooLarge, an
httpx2.StreamError, which the SDK turns into the call's error, and the connection is dropped
unread. Only an event stream that a request asked for (its Accept names text/event-stream) and
that succeeded (2xx) runs on unbounded: that is read event by event. Any other answer may be
read whole whatever its label (the SDK's OAuth discovery reads metadata whole; so does httpx2
a 401 the auth flow answers), so it is held to one message.

The limit counts what the answer unpacks to. A compressed body is unpacked here, a piece at a
time (gzip and deflate, which we offer: `Accept-Encoding` below), not by httpx2, which would
inflate a few MiB of zeros to gigabytes before anyone counted them; an encoding we did not
offer is refused, and so is anything sent after the packed stream's end (zlib would keep it
all, uncounted, as `unused_data`).
"""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator, Awaitable, Callable

import httpx2

MIB = 1024 * 1024
MAX_ANSWER_BYTES = 16 * MIB  # as a stdio message (client/stdio.py's MAX_MESSAGE_BYTES)
ACCEPT_ENCODING = "gzip, deflate"  # what _Inflated unpacks with a bound
_PIECE = 64 * 1024  # unpacked at a time


class AnswerTooLarge(httpx2.StreamError):
    """A server's answer passed the limit for one message."""


class UnofferedEncoding(Exception):
    """A server compressed its answer in an encoding we did not offer."""


class UnpackingFailed(httpx2.StreamError):
    """A server's compressed answer could not be unpacked, or went on past its end."""


def bounded_answers(
    server: str, limit: int = MAX_ANSWER_BYTES
) -> Callable[[httpx2.Response], Awaitable[None]]:
    """An httpx2 response hook holding the answers of `server` (a phrase naming it: "MCP server
    'x'") to `limit` unpacked bytes each (event streams: unpacked with a bound, their events
    capped by the SDK)."""

    async def bound(response: httpx2.Response) -> None:
        encoding = response.headers.get("content-encoding", "").strip().lower()
        stream = response.stream
        if not isinstance(stream, httpx2.AsyncByteStream):
            return  # a synchronous client: not ours
        if encoding not in ("", "identity"):
            if encoding not in ("gzip", "x-gzip", "deflate"):
                raise UnofferedEncoding(
                    f"{server} answered in the {encoding[:40]!r} encoding, which "
                    f"agent does not accept (it asks for {ACCEPT_ENCODING} or none)"
                )
            del response.headers["content-encoding"]  # unpacked here, not again by httpx2
            stream = _Inflated(stream, server)
        if not _asked_event_stream(response):
            stream = _Capped(stream, limit, server)
        response.stream = stream

    return bound


def _asked_event_stream(response: httpx2.Response) -> bool:
    """Whether `response` is a successful event stream its request asked for: read event by
    event (each capped by the SDK), never whole."""
    kind = response.headers.get("content-type", "").lower()
    accepted = response.request.headers.get("accept", "").lower()
    return (
        response.is_success
        and kind.startswith("text/event-stream")
        and "text/event-stream" in accepted
    )


class _Capped(httpx2.AsyncByteStream):
    def __init__(self, inner: httpx2.AsyncByteStream, limit: int, server: str) -> None:
        self._inner = inner
        self._limit = limit
        self._server = server

    async def __aiter__(self) -> AsyncIterator[bytes]:
        taken = 0
        async for data in self._inner:
            taken += len(data)
            if taken > self._limit:
                raise AnswerTooLarge(
                    f"{self._server} sent an answer larger than the "
                    f"{self._limit // MIB} MiB limit for one message; the rest was not read"
                )
            yield data

    async def aclose(self) -> None:
        await self._inner.aclose()


class _Inflated(httpx2.AsyncByteStream):
    """A gzip or zlib (HTTP's deflate) body unpacked a piece at a time: what it holds at once
    is one piece, however far the packed bytes would expand."""

    def __init__(self, inner: httpx2.AsyncByteStream, server: str) -> None:
        self._inner = inner
        self._server = server

    async def __aiter__(self) -> AsyncIterator[bytes]:
        inflate = zlib.decompressobj(zlib.MAX_WBITS | 32)  # either header, told apart by zlib
        try:
            async for data in self._inner:
                pending = data
                while pending:
                    piece = inflate.decompress(pending, _PIECE)
                    pending = inflate.unconsumed_tail
                    if inflate.unused_data:  # past the end: zlib would keep it all, uncounted
                        raise UnpackingFailed(
                            f"{self._server} sent more after the end of its compressed answer; "
                            "the rest was not read"
                        )
                    if piece:
                        yield piece
            rest = inflate.flush()
        except zlib.error as error:
            raise UnpackingFailed(
                f"{self._server} sent a compressed answer that could not be unpacked: {error}"
            ) from None
        if rest:
            yield rest

    async def aclose(self) -> None:
        await self._inner.aclose()
