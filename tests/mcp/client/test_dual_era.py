"""Both protocol eras against real servers: the modern fixture (modern_server.py) and a
legacy one (tools_server.py, pinned to the handshake era), over stdio and HTTP."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import mcp_types as types
import pytest

from agent.errors import ToolCallError
from agent.mcp.client import catalog_requests
from agent.mcp.forms.elicitation import ElicitationAnswer
from agent.mcp.runtime import McpRuntime
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import running_http_server
from tests.mcp.runtime_helpers import (
    ScriptedElicitation,
    ScriptedTrust,
    runtime,
    save,
    script_server,
    stdio_server,
)

pytestmark = pytest.mark.anyio


def modern_server(*args: str) -> dict[str, Any]:
    definition = script_server("modern_server.py")
    definition["args"] = [*definition["args"], *args]
    return definition


def traced_runtime(
    store: McpStore, home: Path, project: Path, lines: list[tuple[str, str, str]]
) -> McpRuntime:
    """A runtime trusting every server, each message it sends or gets appended to `lines`."""
    return runtime(
        store,
        home,
        project,
        trust=ScriptedTrust(),
        observe=lambda server, direction, text: lines.append((server, direction, text)),
    )


def methods(lines: list[tuple[str, str, str]]) -> list[str]:
    sent = [json.loads(text) for _, direction, text in lines if direction == "send"]
    return [message["method"] for message in sent if "method" in message]


def text_of(result: Any) -> str:
    return "".join(part.text for part in result.content if hasattr(part, "text"))


@pytest.fixture
def store(agent_home: Path) -> McpStore:
    return McpStore(agent_home / "mcp-servers.json")


async def test_a_modern_stdio_server_is_spoken_to_in_2026_07_28(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": modern_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        connection = await rt.start("fx")
        answered = await rt.call_tool("fx", "echo", {"text": "hi"})
        assert connection.info is not None
        assert connection.info.protocol_version == "2026-07-28"
        assert connection.info.name == "modern"
    assert text_of(answered) == "hi"


async def test_an_input_required_form_is_answered_through_the_elicitation_handler(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": modern_server()})
    form = ScriptedElicitation(ElicitationAnswer("accept", {"name": "Ada"}))
    lines: list[tuple[str, str, str]] = []
    async with runtime(
        store,
        agent_home,
        tmp_path,
        trust=ScriptedTrust(),
        elicitation=form,
        observe=lambda server, direction, text: lines.append((server, direction, text)),
    ) as rt:
        await rt.start("fx")
        answered = await rt.call_tool("fx", "ask", {})
    assert json.loads(text_of(answered)) == {
        "action": "accept",
        "content": {"name": "Ada"},
        "state": "state-1",
    }
    [request] = form.requests
    assert list(request.schema["properties"]) == ["name"]
    calls = [json.loads(text) for _, d, text in lines if d == "send" and '"tools/call"' in text]
    assert [call["params"].get("requestState") for call in calls] == [None, "state-1"]
    assert calls[0]["id"] != calls[1]["id"]


async def test_a_tool_with_invalid_header_annotations_is_withheld_and_said(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": modern_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        connection = await rt.start("fx")
        tools = await rt.list_tools("fx")
        assert sorted(tool.name for tool in tools) == ["ask", "echo", "region"]
        assert list(connection.withheld_tools) == ["bad_header"]
        assert "x-mcp-header" in connection.withheld_tools["bad_header"]


async def test_a_second_start_of_a_modern_server_asks_discover_again_and_never_the_handshake(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": modern_server()})
    for _start in range(2):
        lines: list[tuple[str, str, str]] = []
        async with traced_runtime(store, agent_home, tmp_path, lines) as rt:
            connection = await rt.start("fx")
            await rt.call_tool("fx", "echo", {"text": "hi"})
            assert connection.info is not None
            assert connection.info.protocol_version == "2026-07-28"
        # Its discover result had no cache hint (ttlMs 0): asked again, so its instructions
        # and capabilities are today's. (On a loaded machine a slow start can outlast the
        # probe's wait: the fallback initialize is then answered -32022 and probed again,
        # which still ends modern, as asserted above.)
        sent = [m for m in methods(lines) if m in ("server/discover", "initialize")]
        assert sent[0] == "server/discover"
    assert oct(os.stat(agent_home / "mcp-eras.json").st_mode & 0o777) == "0o600"


def test_a_remembered_discover_result_is_adopted_only_while_its_cache_hint_holds(
    agent_home: Path, tmp_path: Path
) -> None:
    from agent.mcp.client import era_memory
    from agent.mcp.config.launch import StdioLaunch

    launch = StdioLaunch(
        server="fx", command="python3", args=("server.py",), cwd=str(tmp_path), env={}
    )
    notes: list[str] = []

    def discover(ttl_ms: int) -> types.DiscoverResult:
        return types.DiscoverResult(
            supported_versions=["2026-07-28"],
            capabilities=types.ServerCapabilities(),
            result_type="complete",
            ttl_ms=ttl_ms,
            cache_scope="public",
        )

    era_memory.remember(launch, discover(60_000), notes.append)
    assert era_memory.recall(launch, notes.append).mode == "modern"
    era_memory.remember(launch, discover(0), notes.append)
    assert era_memory.recall(launch, notes.append).mode == "auto"


async def test_a_second_start_of_a_legacy_server_goes_straight_to_the_handshake(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": stdio_server()})
    seen: list[list[str]] = []
    for _start in range(2):
        lines: list[tuple[str, str, str]] = []
        async with traced_runtime(store, agent_home, tmp_path, lines) as rt:
            connection = await rt.start("fx")
            assert connection.info is not None
            assert connection.info.protocol_version == "2025-11-25"
        seen.append(methods(lines)[:2])
    assert seen == [["server/discover", "initialize"], ["initialize", "notifications/initialized"]]


async def test_a_changed_launch_probes_afresh(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    for definition in (modern_server(), modern_server("--instructions", "other")):
        save(store, {"fx": definition})
        lines: list[tuple[str, str, str]] = []
        async with traced_runtime(store, agent_home, tmp_path, lines) as rt:
            await rt.start("fx")
        assert methods(lines)[0] == "server/discover"


async def test_a_remembered_handshake_a_server_now_refuses_is_probed_again_in_the_same_start(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": modern_server("--modern-only")})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
    # The server spoke the handshake era last time (it has since dropped it).
    memory = json.loads((agent_home / "mcp-eras.json").read_text())
    [key] = memory["servers"]
    memory["servers"][key] = {"era": "legacy"}
    (agent_home / "mcp-eras.json").write_text(json.dumps(memory))
    lines: list[tuple[str, str, str]] = []
    async with runtime(
        store,
        agent_home,
        tmp_path,
        trust=ScriptedTrust(),
        observe=lambda server, direction, text: lines.append((server, direction, text)),
    ) as rt:
        connection = await rt.start("fx")
        assert connection.info is not None
        assert connection.info.protocol_version == "2026-07-28"
    assert methods(lines)[:2] == ["initialize", "server/discover"]
    memory = json.loads((agent_home / "mcp-eras.json").read_text())
    assert memory["servers"][key]["era"] == "modern"


async def test_a_corrupt_era_memory_is_ignored_and_said_in_the_log(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    agent_home.mkdir(parents=True, exist_ok=True)
    (agent_home / "mcp-eras.json").write_text("{not json")
    save(store, {"fx": modern_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        connection = await rt.start("fx")
        assert connection.info is not None
        assert connection.info.protocol_version == "2026-07-28"
    log = "".join(path.read_text() for path in agent_home.rglob("*.log"))
    assert "ignored the remembered protocol eras" in log
    assert json.loads((agent_home / "mcp-eras.json").read_text())["version"] == 1


async def test_resources_and_prompts_of_a_modern_server(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": modern_server()})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        connection = await rt.start("fx")
        listing = await catalog_requests.list_resources(connection)
        parts = await catalog_requests.read_resource(connection, "note://one", 10)
        prompts = await catalog_requests.list_prompts(connection)
        # Resource-not-found is -32602 on a modern server: the request's clear error.
        with pytest.raises(ToolCallError, match="Resource not found"):
            await catalog_requests.read_resource(connection, "note://missing", 10)
    assert [item.uri for item in listing.items] == ["note://one"]
    assert "the note" in repr(parts)
    assert [item.name for item in prompts.items] == ["greet"]


async def test_modern_requests_over_http_carry_the_mcp_headers(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    headers_log = tmp_path / "headers.jsonl"
    with running_http_server(extra_args=("--era", "dual"), headers_log=headers_log) as server:
        save(store, {"fx": {"url": server.url}})
        async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
            connection = await rt.start("fx")
            await rt.call_tool("fx", "echo", {"text": "hi"})
            assert connection.info is not None
            assert connection.info.protocol_version == "2026-07-28"
    seen = [json.loads(line) for line in headers_log.read_text().splitlines()]
    lowered = [{k.lower(): v for k, v in dict(entry["headers"]).items()} for entry in seen]
    call = [h for h in lowered if h.get("mcp-method") == "tools/call"]
    assert call and call[0]["mcp-name"] == "echo"
    assert call[0]["mcp-protocol-version"] == "2026-07-28"
