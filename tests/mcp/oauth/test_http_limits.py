"""A remote server's HTTP answers held to one message's limit, counted unpacked
(agent.mcp.oauth.http_limits), on real httpx2 responses."""

from __future__ import annotations

import zlib
from collections.abc import AsyncIterator

import httpx2
import pytest

from agent.mcp.oauth.http_limits import (
    AnswerTooLarge,
    UnofferedEncoding,
    UnpackingFailed,
    bounded_answers,
)

pytestmark = pytest.mark.anyio
MIB = 1024 * 1024


class Pieces(httpx2.AsyncByteStream):
    """A body arriving in the given pieces."""

    def __init__(self, pieces: list[bytes]) -> None:
        self.pieces = pieces

    async def __aiter__(self) -> AsyncIterator[bytes]:
        for piece in self.pieces:
            yield piece


def packed(data: bytes, wbits: int) -> list[bytes]:
    packer = zlib.compressobj(wbits=wbits)
    return [packer.compress(data) + packer.flush()]


STREAM = "text/event-stream"


async def answer(
    headers: dict[str, str],
    pieces: list[bytes],
    limit: int = MIB,
    *,
    accept: str = "application/json",
    status: int = 200,
) -> bytes:
    request = httpx2.Request("POST", "http://127.0.0.1/mcp", headers={"accept": accept})
    response = httpx2.Response(status, headers=headers, stream=Pieces(pieces), request=request)
    await bounded_answers("MCP server 'remote'", limit)(response)
    return await response.aread()


async def test_a_deflate_or_gzip_answer_is_unpacked_once_and_whole() -> None:
    text = b'{"jsonrpc": "2.0", "id": 1, "result": {}}' * 100
    for encoding, wbits in (("deflate", zlib.MAX_WBITS), ("gzip", 31)):
        kind = {"content-type": "application/json", "content-encoding": encoding}
        assert await answer(kind, packed(text, wbits)) == text


async def test_a_packed_answer_past_the_limit_stops_while_unpacking() -> None:
    # 64 MiB of zeros pack into 64 KiB: inflated whole first, nothing would have been counted.
    bomb = packed(bytes(64 * MIB), 31)
    kind = {"content-type": "application/json", "content-encoding": "gzip"}
    with pytest.raises(AnswerTooLarge, match="'remote' sent an answer larger than the 1 MiB"):
        await answer(kind, bomb)


async def test_an_encoding_we_did_not_offer_is_refused_naming_the_server() -> None:
    kind = {"content-type": "application/json", "content-encoding": "br"}
    with pytest.raises(UnofferedEncoding, match="'remote' answered in the 'br' encoding"):
        await answer(kind, [b"\x0b\x00"])


async def test_an_event_stream_is_not_held_to_one_message_in_all() -> None:
    # A long-lived stream carries many messages; the SDK caps each event.
    event = b"event: message\ndata: {}\n\n" * 1000
    body = await answer({"content-type": STREAM}, [event] * 100, limit=MIB, accept=STREAM)
    assert len(body) == len(event) * 100 > MIB


@pytest.mark.parametrize(
    ("accept", "status"), [("*/*", 200), ("application/json", 200), (STREAM, 401), (STREAM, 307)]
)
async def test_an_event_stream_nobody_asked_for_is_one_message(accept: str, status: int) -> None:
    # Read whole by whoever gets it (OAuth discovery, the auth flow's 401, a redirect drained):
    # labelled an event stream, it would otherwise run on without any bound.
    event = b"event: message\ndata: {}\n\n" * 1000
    kind = {"content-type": STREAM}
    with pytest.raises(AnswerTooLarge, match="'remote' sent an answer larger than the 1 MiB"):
        await answer(kind, [event] * 100, limit=MIB, accept=accept, status=status)


async def test_bytes_after_the_end_of_a_packed_answer_are_refused_at_once() -> None:
    # zlib keeps what follows the end as unused_data, unbounded and counted by nobody.
    tail = [b"x" * 65536] * 4
    for encoding, wbits in (("deflate", zlib.MAX_WBITS), ("gzip", 31)):
        kind = {"content-type": "application/json", "content-encoding": encoding}
        pieces = packed(b'{"jsonrpc": "2.0", "id": 1, "result": {}}', wbits) + tail
        with pytest.raises(UnpackingFailed, match="'remote' sent more after the end"):
            await answer(kind, pieces)


async def test_a_packed_answer_that_cannot_be_unpacked_is_refused_naming_the_server() -> None:
    kind = {"content-type": "application/json", "content-encoding": "gzip"}
    with pytest.raises(UnpackingFailed, match="'remote' sent a compressed answer that could not"):
        await answer(kind, [b"not gzip at all"])


def test_an_answer_is_held_to_what_a_stdio_message_may_be() -> None:
    from agent.mcp.client.stdio import MAX_MESSAGE_BYTES
    from agent.mcp.oauth.http_limits import MAX_ANSWER_BYTES

    assert MAX_ANSWER_BYTES == MAX_MESSAGE_BYTES
