"""The tool list keeps the order it was first offered in."""

from __future__ import annotations

from agent.chat.tool_order import ToolOrder
from agent.tools.base import Tool
from tests.chat.test_conversation import RecordingTool


def tools(*names: str) -> dict[str, Tool]:
    return {name: RecordingTool(name) for name in names}


def test_tools_keep_their_first_places_and_newcomers_are_appended() -> None:
    order = ToolOrder()
    assert list(order.arrange(tools("a", "b", "c"))) == ["a", "b", "c"]
    assert list(order.arrange(tools("c", "x", "a", "b"))) == ["a", "b", "c", "x"]
    assert list(order.arrange(tools("c", "x", "a", "b"))) == ["a", "b", "c", "x"]  # again
    assert list(order.arrange(tools("x", "b"))) == ["b", "x"]  # one left: the rest keep order
    assert list(order.arrange(tools("a", "b", "c", "x"))) == ["a", "b", "c", "x"]


def test_peek_gives_the_order_arrange_would_and_remembers_nothing() -> None:
    order = ToolOrder()
    order.arrange(tools("a", "b"))
    assert list(order.peek(tools("c", "b", "a"))) == ["a", "b", "c"]
    assert list(order.peek(tools("d"))) == ["d"]
    # Had peek remembered "d", it would now come first.
    assert list(order.arrange(tools("e", "d"))) == ["e", "d"]
