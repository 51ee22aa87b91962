"""The deferral policy on its own: when MCP tools are held back, what a request then carries,
what a search makes callable, what a call to an unsearched tool is told. (Through the real
loop: tests/chat/test_tool_search_chat.py.)"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

import pytest

from agent.messages import ToolResult
from agent.tools.base import ToolSpec
from agent.tools.combined import ToolConflictError
from agent.tools.deferral import UNKNOWN_WINDOW_TOKENS, ToolDeferral
from agent.tools.search_tool import SEARCH_TOOL

pytestmark = pytest.mark.anyio


@dataclass(frozen=True)
class Named:
    spec: ToolSpec

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        return ToolResult("ran")


def tool(name: str, server: str | None = None, about: str = "does a thing") -> Named:
    schema = {"type": "object", "properties": {"text": {"type": "string"}}}
    source = f"MCP server {server}" if server else "built-in"
    model_name = f"mcp__{server}__{name}" if server else name
    return Named(ToolSpec(model_name, about, schema, server is None, source, server, name))


def tools(*items: Named) -> dict[str, Named]:
    return {item.spec.name: item for item in items}


BUILTIN = tool("read_file")
MANY = [tool(f"t{n}", "big", f"tool {n} of the big server") for n in range(200)]


def deferral(window: int | None = 10_000, modes: dict[str, str] | None = None) -> ToolDeferral:
    return ToolDeferral(lambda: window, lambda: modes or {})


def test_below_the_threshold_the_tools_are_offered_as_given() -> None:
    given = tools(BUILTIN, *MANY[:3])

    plan = deferral().plan(given)  # type: ignore[arg-type]

    assert plan.offered is given
    assert plan.deferred == {} and deferral().prompt_line() == ""


def test_over_the_threshold_mcp_tools_wait_behind_the_search_after_the_others() -> None:
    keeper = deferral()
    plan = keeper.plan(tools(BUILTIN, *MANY))  # type: ignore[arg-type]

    assert list(plan.offered) == ["read_file", SEARCH_TOOL]
    assert len(plan.deferred) == 200 and plan.servers == ("big",)
    assert "search_tools finds the tools of the MCP servers big" in keeper.prompt_line()


def test_an_unknown_window_is_taken_as_the_conservative_default() -> None:
    keeper = deferral(window=None)

    assert keeper.window() == UNKNOWN_WINDOW_TOKENS


def test_a_server_mode_on_or_off_overrides_the_threshold() -> None:
    small = [tool("a", "small"), tool("b", "small")]
    given = tools(BUILTIN, *MANY, *small)

    plan = deferral(modes={"big": "off", "small": "on"}).plan(given)  # type: ignore[arg-type]

    assert list(plan.offered) == ["read_file", *(t.spec.name for t in MANY), SEARCH_TOOL]
    assert list(plan.deferred) == ["mcp__small__a", "mcp__small__b"]


async def test_a_found_tool_is_offered_after_the_others_and_callable_from_then_on() -> None:
    keeper = deferral()
    recorded: list[tuple[str, ...]] = []
    keeper.on_found = recorded.append
    given = tools(BUILTIN, *MANY)
    keeper.plan(given)  # type: ignore[arg-type]

    answer = await keeper.search_tool.run({"query": "mcp__big__t7"})

    assert '"name": "mcp__big__t7"' in answer.text and not answer.is_error
    assert recorded == [("mcp__big__t7",)]
    assert keeper.found_tool("mcp__big__t7") is MANY[7]
    plan = keeper.plan(given)  # type: ignore[arg-type]
    assert list(plan.offered) == ["read_file", SEARCH_TOOL, "mcp__big__t7"]
    assert keeper.hint("mcp__big__t7") is None
    assert keeper.hint("mcp__big__t8") is not None
    assert keeper.hint("no_such_tool") is None


def test_a_tool_of_another_source_named_search_tools_is_a_conflict_naming_it() -> None:
    rival = Named(ToolSpec(SEARCH_TOOL, "mine", {"type": "object"}, False, "skill tools"))

    with pytest.raises(ToolConflictError, match="offered by skill tools and by the tool search"):
        deferral().plan({SEARCH_TOOL: rival, **tools(*MANY)})  # type: ignore[arg-type]


def test_restore_and_reset_set_what_was_found() -> None:
    keeper = deferral()
    keeper.restore(["mcp__big__t1", "mcp__big__t1", "mcp__big__t2"])
    assert keeper.found == ["mcp__big__t1", "mcp__big__t2"]
    keeper.reset()
    assert keeper.found == []
