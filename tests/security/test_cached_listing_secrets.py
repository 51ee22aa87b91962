"""Attack: mcp-servers.json holds a server's tools as an earlier version cached them, unmasked:
its secret in a description, a schema's words, an annotation, and a tool named after it. A
chat offers cached tools without listing them again (an HTTP server is not even connected; a
stdio server whose cache hint still holds is not listed),
so the cache must be masked with the secrets known for the definition on its way to the
model and to `agent mcp tools`, and the tool whose name carries the secret withheld."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from dataclasses import replace
from pathlib import Path

import pytest

from tests.security.inputs_helpers import one_shot, run_agent
from tests.security.leaky_servers import SERVER, Leaky, leaky_server


@pytest.fixture(params=["stdio", "http"])
def leaky(request: pytest.FixtureRequest, agent_home: Path, tmp_path: Path) -> Iterator[Leaky]:
    with leaky_server(request.param, agent_home, tmp_path / "home") as server:
        yield server


def cache_unmasked(agent_home: Path, secret: str) -> None:
    """Write the tools as a version that did not mask listings would have cached them."""
    from agent.mcp.config.definitions import fingerprint
    from agent.mcp.store import CachedTool, McpStore

    url = f"postgres://app:{secret}@db.internal/app"
    tools = (
        CachedTool(
            "query",
            f"Run SQL on {url}.",
            {
                "type": "object",
                "properties": {"sql": {"type": "string", "description": f"password {secret}"}},
            },
            {"title": f"Query as {secret}", "readOnlyHint": True},
        ),
        CachedTool(f"login_{secret}", "Log in.", {"type": "object"}),
    )
    store = McpStore(agent_home / "mcp-servers.json")
    fp = fingerprint(store.load().find(SERVER))
    names = tuple(tool.name for tool in tools)
    # Fresh by a cache hint (as a 2026-07-28 server may give): a start offers this cache
    # without listing again, which every start does otherwise.
    fresh = time.time() + 3600
    store.update_state(
        SERVER,
        fp,
        lambda state: replace(
            state, cached_tools=tools, enabled_tools=names, tools_fresh_until=fresh
        ),
    )


def test_tools_cached_unmasked_by_an_earlier_version_reach_the_model_masked(
    leaky: Leaky, agent_home: Path, tmp_path: Path
) -> None:
    cache_unmasked(agent_home, leaky.secret)

    done, requests = one_shot([{"text": "ok"}], "hi", leaky.env, tmp_path)

    assert done.returncode == 0, done.stderr
    assert leaky.secret not in json.dumps(requests)
    offered = {tool["function"]["name"]: tool["function"] for tool in requests[0]["body"]["tools"]}
    assert [name for name in offered if name.startswith("mcp__")] == ["mcp__lx__query"]
    query = offered["mcp__lx__query"]
    assert query["description"] == "Run SQL on postgres://app:***@db.internal/app."
    assert query["parameters"]["properties"]["sql"]["description"] == "password ***"
    assert "tool login_*** of MCP server lx cannot be offered" in done.stderr
    assert leaky.secret not in done.stdout + done.stderr


def test_agent_mcp_tools_shows_an_unmasked_cache_masked(
    leaky: Leaky, agent_home: Path, tmp_path: Path
) -> None:
    cache_unmasked(agent_home, leaky.secret)

    listed = run_agent(["mcp", "tools", SERVER], leaky.env, tmp_path)
    schemas = run_agent(["mcp", "tools", SERVER, "--schema"], leaky.env, tmp_path)

    for shown in (listed, schemas):
        assert shown.returncode == 0, shown.stderr
        assert leaky.secret not in shown.stdout + shown.stderr
        assert "tool login_*** of MCP server lx cannot be offered" in shown.stderr
    assert "Run SQL on postgres://app:***@db.internal/app." in listed.stdout
    assert '"description": "password ***"' in schemas.stdout
