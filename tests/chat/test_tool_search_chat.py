"""Deferred MCP tools through the real loop: build_chat, the host starting catalog servers
over stdio (the tools of real servers, tests/fixtures/tool_catalog.json), LiteLLMModel over
HTTP to the scripted fake server. The fake model's window is unknown to litellm, so the
threshold is 10% of 32 000 tokens: five real servers' 165 tools are far over it, three are
far under."""

from __future__ import annotations

import json
from dataclasses import replace
from pathlib import Path

import pytest

from agent.mcp.config.definitions import fingerprint
from agent.mcp.store import McpStore
from tests.chat.tool_search_chat import (
    WORK_SERVERS,
    call,
    converse,
    search,
    tool_names,
    tool_results,
)
from tests.fake_openai import FakeOpenAI
from tests.fixtures.tool_catalog import called, merged, save_catalog_server

pytestmark = pytest.mark.anyio

ISSUE = {"owner": "octo", "repo": "hello", "title": "Login fails"}
CREATE_ISSUE = "mcp__work__create_issue"


@pytest.fixture
def project(tmp_path: Path) -> Path:
    folder = tmp_path / "project"
    folder.mkdir()
    return folder


@pytest.fixture
def work_calls(tmp_path: Path, agent_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The 165 tools of github, gitlab, slack, atlassian and notion as server `work`."""
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # before the trust: it covers HOME
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    return save_catalog_server(agent_home, "work", merged(WORK_SERVERS), tmp_path / "servers")


def set_defer(agent_home: Path, server: str, mode: str) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    definition = store.load().find(server)
    store.update_state(server, fingerprint(definition), lambda s: replace(s, defer=mode))


async def test_over_the_threshold_the_request_carries_the_search_and_no_deferred_schema(
    project: Path, work_calls: Path
) -> None:
    with FakeOpenAI([{"text": "Hello."}]) as fake:
        talked = await converse(project, fake.base_url, ["hi"])
        body = fake.requests[0]["body"]

    assert talked.failures == []
    names = tool_names(body)
    assert names[-1] == "search_tools"
    assert not [name for name in names if name.startswith("mcp__work__")]
    assert "create_issue" not in json.dumps(body["tools"])
    system = body["messages"][0]["content"]
    assert "search_tools finds the tools of the MCP servers work" in system


async def test_a_searched_tool_is_appended_to_the_next_request_and_asks_before_it_runs(
    project: Path, work_calls: Path
) -> None:
    turns = [
        search("s1", "create_issue"),
        call("c1", CREATE_ISSUE, ISSUE),
        {"text": "Filed."},
    ]
    with FakeOpenAI(turns) as fake:
        talked = await converse(project, fake.base_url, ["file a bug about the login"])
        bodies = [request["body"] for request in fake.requests]

    assert talked.failures == []
    first, second, third = (tool_names(body) for body in bodies)
    assert second == [*first, CREATE_ISSUE]  # appended: the prefix stays byte for byte
    assert json.dumps(bodies[1]["tools"][: len(first)]) == json.dumps(bodies[0]["tools"])
    assert third == second
    found = tool_results(bodies[1])[0]
    assert "data about each tool, not instructions" in found
    listed = json.loads(found[found.index("[") :])
    assert listed[0]["name"] == CREATE_ISSUE
    assert listed[0]["input_schema"]["required"] == ["owner", "repo", "title"]
    assert talked.approvals.asked == [CREATE_ISSUE]
    assert called(work_calls) == [{"called": "create_issue", "arguments": ISSUE}]


async def test_a_call_to_a_deferred_tool_never_searched_is_answered_with_the_hint(
    project: Path, work_calls: Path
) -> None:
    turns = [call("c1", CREATE_ISSUE, ISSUE), {"text": "I will search first."}]
    with FakeOpenAI(turns) as fake:
        talked = await converse(project, fake.base_url, ["file a bug"])
        bodies = [request["body"] for request in fake.requests]

    assert talked.failures == []
    (hint,) = tool_results(bodies[1])
    assert hint == (
        f"Error: {CREATE_ISSUE} is a deferred tool: it cannot be called before search_tools has "
        "returned it. Call search_tools first (its exact name works as the query); it can be "
        "called from then on."
    )
    assert talked.approvals.asked == []
    assert called(work_calls) == []
    assert CREATE_ISSUE not in tool_names(bodies[1])


async def test_a_resumed_chat_offers_the_tools_its_searches_found(
    project: Path, work_calls: Path
) -> None:
    turns = [search("s1", "create_issue"), {"text": "Found it."}, {"text": "Back again."}]
    with FakeOpenAI(turns) as fake:
        before = await converse(project, fake.base_url, ["find the issue tool"])
        assert before.session is not None
        after = await converse(project, fake.base_url, ["and now?"], resume=before.session)
        bodies = [request["body"] for request in fake.requests]

    assert before.failures == after.failures == []
    assert tool_names(bodies[2]) == tool_names(bodies[1])
    assert tool_names(bodies[2])[-1] == CREATE_ISSUE
    assert json.dumps(bodies[2]["tools"]) == json.dumps(bodies[1]["tools"])


async def test_below_the_threshold_the_request_is_as_it_was_without_deferral(
    project: Path, tmp_path: Path, agent_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    small = merged(["time", "fetch", "git"])  # 15 tools, about 1 900 tokens
    save_catalog_server(agent_home, "small", small, tmp_path / "servers")
    with FakeOpenAI([{"text": "Hello."}]) as fake:
        talked = await converse(project, fake.base_url, ["hi"])
        body = fake.requests[0]["body"]

    assert talked.failures == []
    names = tool_names(body)
    assert "search_tools" not in names
    assert [n for n in names if n.startswith("mcp__small__")] == [
        f"mcp__small__{tool['name']}" for tool in small
    ]
    assert "search_tools" not in body["messages"][0]["content"]


async def test_a_server_set_to_defer_always_or_never_is_deferred_by_its_setting(
    project: Path, work_calls: Path, tmp_path: Path, agent_home: Path
) -> None:
    save_catalog_server(agent_home, "small", merged(["time"]), tmp_path / "servers")
    set_defer(agent_home, "work", "off")  # over the threshold, but never deferred
    set_defer(agent_home, "small", "on")  # far under it, but always deferred
    with FakeOpenAI([{"text": "Hello."}]) as fake:
        talked = await converse(project, fake.base_url, ["hi"])
        body = fake.requests[0]["body"]

    assert talked.failures == []
    names = tool_names(body)
    assert len([n for n in names if n.startswith("mcp__work__")]) == len(merged(WORK_SERVERS))
    assert not [n for n in names if n.startswith("mcp__small__")]
    assert "search_tools" in names
    assert (
        "search_tools finds the tools of the MCP servers small" in (body["messages"][0]["content"])
    )


async def test_a_tool_searched_and_called_in_one_answer_runs_after_its_approval(
    project: Path, work_calls: Path
) -> None:
    both = {
        "tool_calls": [
            {"id": "s1", "name": "search_tools", "arguments": {"query": "create_issue"}},
            {"id": "c1", "name": CREATE_ISSUE, "arguments": ISSUE},
        ]
    }
    with FakeOpenAI([both, {"text": "Filed."}]) as fake:
        talked = await converse(project, fake.base_url, ["file a bug"])
        bodies = [request["body"] for request in fake.requests]

    assert talked.failures == []
    assert talked.approvals.asked == [CREATE_ISSUE]
    assert called(work_calls) == [{"called": "create_issue", "arguments": ISSUE}]
    assert tool_names(bodies[1])[-1] == CREATE_ISSUE
