"""Rich tool results from a real stdio server (tests/fixtures/servers/rich_results_server.py)
as the model reads them: through McpTool and the runtime, then in the request a scripted
model receives."""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.chat.approval import ApprovalRequest, Decision
from agent.chat.conversation import Conversation
from agent.mcp.runtime import McpRuntime
from agent.mcp.store import McpStore
from agent.mcp.toolset import McpTool
from agent.messages import ImagePart, ToolCall, ToolResult
from agent.settings import McpLimits
from agent.tools.base import ToolSpec
from tests.fixtures.servers.tools_server import tiny_png
from tests.mcp.runtime_helpers import ScriptedTrust, listed_tool, runtime, save, script_server
from tests.scripted_model import Reply, ScriptedModel

pytestmark = pytest.mark.anyio
PNG = base64.b64encode(tiny_png()).decode()


def mcp_tool(rt: McpRuntime, name: str) -> McpTool:
    spec = ToolSpec(f"mcp__rich__{name}", name, {"type": "object"}, True, "MCP server rich")
    return McpTool(rt, "rich", listed_tool(rt, "rich", name), spec)


async def call(
    store: McpStore, home: Path, tool: str, limits: McpLimits | None = None
) -> ToolResult:
    save(store, {"rich": script_server("rich_results_server.py")})
    extra: dict[str, Any] = {"limits": limits} if limits else {}
    with anyio.fail_after(60):
        async with runtime(store, home, home, trust=ScriptedTrust(), **extra) as rt:
            await rt.start("rich")
            return await mcp_tool(rt, tool).run({})


@pytest.fixture
def store(agent_home: Path) -> McpStore:
    return McpStore(agent_home / "mcp-servers.json")


async def test_every_kind_of_block_reaches_the_model_in_its_own_form(
    store: McpStore, agent_home: Path
) -> None:
    result = await call(store, agent_home, "gallery")
    assert result == ToolResult(
        "two rows\n"
        "[image: image/png, 69 bytes]\n"
        "[audio: audio/wav, 8 bytes; not played]\n"
        "[resource link: db://rows/1 (row one)]\n"
        "[resource: db://rows/2]\nrow two text\n"
        "[resource: db://dump, application/octet-stream, 10 bytes]\n"
        '{"rows": 2, "ok": true}',
        images=(ImagePart("image/png", PNG, "mcp__rich__gallery"),),
    )


async def test_images_that_are_not_base64_or_not_images_or_too_many_are_notes(
    store: McpStore, agent_home: Path
) -> None:
    result = await call(store, agent_home, "bad_images")
    lines = result.text.splitlines()
    assert lines[:2] == [
        "[image not sent: its data (image/png) is not valid base64]",
        "[image not sent: its type 'text/html' is not an image type]",
    ]
    assert len(result.images) == 8
    assert lines[-1] == "[image not sent: image/png, 69 bytes; only 8 are sent at once]"


async def test_the_output_limit_still_caps_a_rich_results_text(
    store: McpStore, agent_home: Path
) -> None:
    limits = McpLimits(startup_timeout_seconds=20, tool_timeout_seconds=20, output_limit_chars=20)
    result = await call(store, agent_home, "gallery", limits)
    assert result.text.startswith("two rows\n[image: ima\n[output cut: 20 of ")
    assert len(result.images) == 1


class Approve:
    async def decide(self, request: ApprovalRequest) -> Decision:
        return Decision(True)


class Tools:
    def __init__(self, tools: list[Any]) -> None:
        self.items = tools

    def tools(self) -> list[Any]:
        return self.items


@pytest.mark.parametrize("vision", [True, False])
async def test_a_tool_image_is_an_image_part_for_a_vision_model_and_a_note_otherwise(
    store: McpStore, agent_home: Path, vision: bool
) -> None:
    save(store, {"rich": script_server("rich_results_server.py")})
    model = ScriptedModel(
        [Reply(calls=[ToolCall("c1", "mcp__rich__gallery")]), Reply("Seen.")], vision=vision
    )
    with anyio.fail_after(60):
        async with runtime(store, agent_home, agent_home, trust=ScriptedTrust()) as rt:
            await rt.start("rich")
            chat = Conversation(model, [Tools([mcp_tool(rt, "gallery")])], Approve(), lambda: "")
            async for _event in chat.turn("show me"):
                pass
    sent = model.sent()
    assert [m["role"] for m in sent] == ["system", "user", "assistant", "tool"] + (
        ["user"] if vision else []
    )
    tool_text = sent[3]["content"]
    if vision:
        assert tool_text.endswith("[its images follow in the next user message]")
        assert sent[4]["content"][1] == {
            "type": "image_url",
            "image_url": {"url": f"data:image/png;base64,{PNG}"},
        }
    else:
        assert tool_text.endswith("[its images are not shown: this model does not accept images]")
        assert PNG not in str(sent)
