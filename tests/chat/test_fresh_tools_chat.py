"""Through the real chat (build_chat, litellm over HTTP to the scripted model): a server
upgraded between two chats, with the same command line, is offered to the model as it is now,
and a call with its new required argument works."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agent.mcp.store import McpStore
from tests.chat.real_chat import chat
from tests.fake_openai import FakeOpenAI
from tests.mcp.upgrading import release, save_upgrading

pytestmark = pytest.mark.anyio


def offered(request: dict[str, Any]) -> dict[str, dict[str, Any]]:
    tools = request["body"].get("tools", [])
    return {tool["function"]["name"]: tool["function"] for tool in tools}


@pytest.fixture
def project(tmp_path: Path, agent_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # before the server's trust: it covers HOME
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    (tmp_path / "home").mkdir()
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    return project


async def test_the_second_chat_offers_the_upgraded_schema_and_a_call_with_the_new_argument_works(
    project: Path, agent_home: Path, tmp_path: Path
) -> None:
    release_file = tmp_path / "release.json"
    release(release_file, 1)
    save_upgrading(McpStore(agent_home / "mcp-servers.json"), "up", release_file, os.environ)
    with FakeOpenAI([{"text": "first chat"}]) as fake:
        first = await chat(project, fake.base_url, ["hello"])
        before = offered(fake.requests[0])
    release(release_file, 2)
    call = {"id": "c1", "name": "mcp__up__lookup", "arguments": {"city": "Lyon", "country": "FR"}}

    with FakeOpenAI([{"tool_calls": [call]}, {"text": "Lyon is in France."}]) as fake:
        second = await chat(project, fake.base_url, ["where is Lyon?"])
        requests = fake.requests

    assert first.failures == second.failures == []
    assert before["mcp__up__lookup"]["parameters"]["required"] == ["city"]
    assert "mcp__up__old_tool" in before
    now = offered(requests[0])
    assert sorted(name for name in now if name.startswith("mcp__")) == [
        "mcp__up__echo",
        "mcp__up__lookup",
    ]  # old_tool is gone; fresh_tool is new and not selected
    lookup = now["mcp__up__lookup"]
    assert lookup["parameters"]["required"] == ["city", "country"]
    assert lookup["description"] == (
        "Look up a city in a country (release 2: the country is required)."
    )
    assert second.results == ["found Lyon in FR"]
    assert requests[1]["body"]["messages"][-1]["content"] == "found Lyon in FR"
    new_notices = [line for line in second.reports if "new tool" in line]
    assert new_notices == [
        "MCP server up ready (2 tools); 1 new tool, not selected: fresh_tool "
        "(select with: agent mcp tools up --enable TOOL)"
    ]
    assert not [line for line in first.reports if "new tool" in line]
