"""LineBuffer: lines split across chunks, several in one chunk, and the cap on one line."""

from __future__ import annotations

from agent.mcp.client.line_buffer import LineBuffer, Overlong


def test_lines_split_across_chunks_come_out_whole_and_in_order() -> None:
    lines = LineBuffer(limit=100, head_bytes=10)
    assert lines.feed(b'{"a"') == []
    assert lines.feed(b': 1}\n{"b": 2}\n{"c"') == [b'{"a": 1}', b'{"b": 2}']
    assert lines.feed(b": 3}\n") == [b'{"c": 3}']
    assert lines.rest() == b""


def test_a_line_over_the_cap_is_reported_once_when_it_passes_the_cap_and_then_dropped() -> None:
    lines = LineBuffer(limit=100, head_bytes=10)
    assert lines.feed(b"x" * 60) == []
    assert lines.feed(b"y" * 60) == [Overlong(b"x" * 10, 120)]
    assert lines.feed(b"z" * 10_000) == []  # the rest of the flood costs no memory
    assert lines.feed(b"zz\nnext\n") == [b"next"]


def test_an_overlong_line_inside_one_chunk_is_cut_and_the_lines_around_it_survive() -> None:
    lines = LineBuffer(limit=8, head_bytes=4)
    assert lines.feed(b"short\n" + b"a" * 20 + b"\nafter\nrest") == [
        b"short",
        Overlong(b"aaaa", 20),
        b"after",
    ]
    assert lines.rest() == b"rest"
