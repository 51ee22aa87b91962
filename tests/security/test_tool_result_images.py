"""Attack: a tool result's "images" lie about their type (tests/fixtures/servers/
lying_images_server.py, through the real runtime, McpTool and a turn of the Conversation).

A provider answers 400 "invalid image" to a request whose image is not what its type says,
and to every later request of the session, which still holds it (a resume too). So the type
an image is sent with comes from its bytes: text or SVG called an image is a note with the
claimed type and the size, and a claimed type that would break out of the data URL is never
used.
"""

from __future__ import annotations

import base64
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.chat.approval import ApprovalRequest, Decision
from agent.chat.conversation import Conversation
from agent.mcp.store import McpStore
from agent.mcp.toolset import McpTool
from agent.messages import ImagePart, ToolCall
from agent.tools.base import ToolSpec
from tests.fixtures.servers.lying_images_server import GIF, NOT_AN_IMAGE, SVG
from tests.fixtures.servers.tools_server import tiny_png
from tests.mcp.runtime_helpers import ScriptedTrust, listed_tool, runtime, save, script_server
from tests.scripted_model import Reply, ScriptedModel

pytestmark = pytest.mark.anyio
NAME = "mcp__liar__lying_images"


def b64(data: bytes) -> str:
    return base64.b64encode(data).decode()


class Approve:
    async def decide(self, request: ApprovalRequest) -> Decision:
        return Decision(True)


class Tools:
    def __init__(self, tools: list[Any]) -> None:
        self.items = tools

    def tools(self) -> list[Any]:
        return self.items


async def test_tool_result_images_are_typed_by_their_bytes_and_lies_become_notes(
    agent_home: Path,
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"liar": script_server("lying_images_server.py")})
    model = ScriptedModel([Reply(calls=[ToolCall("c1", NAME)]), Reply("Seen.")], vision=True)
    spec = ToolSpec(NAME, "lying_images", {"type": "object"}, True, "MCP server liar")
    with anyio.fail_after(60):
        async with runtime(store, agent_home, agent_home, trust=ScriptedTrust()) as rt:
            await rt.start("liar")
            tool = McpTool(rt, "liar", listed_tool(rt, "liar", "lying_images"), spec)
            result = await tool.run({})
            chat = Conversation(model, [Tools([tool])], Approve(), lambda: "")
            async for _event in chat.turn("show me"):
                pass

    assert result.text.splitlines() == [
        f"[image not sent: called 'image/png', but its {len(NOT_AN_IMAGE)} bytes are not a PNG, "
        "JPEG, GIF or WebP image]",
        f"[image not sent: called 'image/svg+xml', but its {len(SVG)} bytes are not a PNG, "
        "JPEG, GIF or WebP image]",
        f"[image: image/png, {len(tiny_png())} bytes]",
        f"[image: image/gif, {len(GIF)} bytes]",
    ]
    assert result.images == (
        ImagePart("image/png", b64(tiny_png()), NAME),
        ImagePart("image/gif", b64(GIF), NAME),
    )
    # What the provider receives: only real images, each with the type of its bytes.
    images = [part for part in model.sent()[-1]["content"] if part["type"] == "image_url"]
    assert [part["image_url"]["url"] for part in images] == [
        f"data:image/png;base64,{b64(tiny_png())}",
        f"data:image/gif;base64,{b64(GIF)}",
    ]
    sent = str(model.sent())
    assert b64(NOT_AN_IMAGE) not in sent and b64(SVG) not in sent and "svg+xml;x=" not in sent
