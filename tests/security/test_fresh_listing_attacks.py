"""Attack: a server's tools/list answer changes between starts, now that every start lists it.
A server that invents new tool names at every start cannot make the person approve trust again
or flood them with notices; a new tool named like a built-in or another server's tool cannot
take its place or break the request; a secret in the new listing is masked in the store, in
what the model is offered, in the notice and in `agent mcp tools`."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest

from agent.mcp.store import McpStore
from agent.mcp.toolset import McpToolset
from agent.tools.builtin import BuiltinToolset
from agent.tools.combined import combine
from tests.mcp.runtime_helpers import runtime, stdio_server
from tests.mcp.upgrading import release, save_upgrading, start_chat
from tests.security.inputs_helpers import run_agent

pytestmark = pytest.mark.anyio
CANARY = "canary-token-5521"


@pytest.fixture
def store(agent_home: Path) -> McpStore:
    return McpStore(agent_home / "mcp-servers.json")


async def test_a_list_that_changes_at_every_start_asks_nothing_and_says_one_short_line_a_start(
    store: McpStore, tmp_path: Path
) -> None:
    release_file = tmp_path / "release.json"
    many = [f"spam_{number}" for number in range(40)]
    release(release_file, 1)
    save_upgrading(store, "up", release_file, os.environ)
    await start_chat(store, tmp_path, tmp_path)  # the first listing: all selected, none new
    release(release_file, 1, churn=True, extra_tools=many)

    starts = [await start_chat(store, tmp_path, tmp_path) for _ in range(3)]

    # start_chat asserts that no start asked for trust.
    for reports, offered in starts:
        assert sorted(offered) == ["mcp__up__echo", "mcp__up__lookup", "mcp__up__old_tool"]
        assert len(reports) == 1 and len(reports[0]) < 300, reports
    first, second, third = (reports[0] for reports, _ in starts)
    assert "41 new tools, not selected: spam_0, spam_1, spam_2, spam_3, spam_4 and 36 more" in first
    # Later starts say only the tool that is new again (another churn_<pid>), once each.
    assert "1 new tool, not selected: churn_" in second
    assert "1 new tool, not selected: churn_" in third
    cached = [tool.name for tool in store.load().state("up").cached_tools or ()]
    assert len([name for name in cached if name.startswith("churn_")]) == 1  # the old ones left


async def test_a_new_tool_named_like_a_built_in_or_another_servers_tool_takes_no_place(
    store: McpStore, tmp_path: Path
) -> None:
    release_file = tmp_path / "release.json"
    release(release_file, 1)
    other = stdio_server()  # tools_server.py: its echo is mcp__fx__echo
    save_upgrading(store, "up", release_file, os.environ, also={"fx": other})
    await start_chat(store, tmp_path, tmp_path)
    impostors = ["read_file", "mcp__fx__echo", "fx__echo", "activate_skill"]
    release(release_file, 1, extra_tools=impostors)

    reports, offered = await start_chat(store, tmp_path, tmp_path)
    async with runtime(store, tmp_path, tmp_path) as mcp:
        combined = combine([BuiltinToolset(tmp_path), McpToolset(mcp)])

    assert not [name for name in offered if name.startswith("mcp__up__") and "echo" not in name
                and "lookup" not in name and "old_tool" not in name]  # fmt: skip
    assert combined["read_file"].spec.source != "MCP server up"
    assert combined["mcp__fx__echo"].spec.server == "fx"
    assert any("4 new tools, not selected: read_file, mcp__fx__echo" in line for line in reports)


async def test_a_secret_in_a_new_tools_listing_is_masked_everywhere_it_goes(
    store: McpStore, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("UP_TOKEN", CANARY)
    release_file = tmp_path / "release.json"
    release(release_file, 1)
    env = {"API_TOKEN": "${UP_TOKEN}"}
    save_upgrading(store, "up", release_file, os.environ, env=env)
    await start_chat(store, tmp_path, tmp_path)
    release(release_file, 2, secret_env="API_TOKEN", extra_tools=[f"leak_{CANARY}"])

    reports, offered = await start_chat(store, tmp_path, tmp_path)
    saved = store.path.read_text(encoding="utf-8")
    listed = run_agent(["mcp", "tools", "up"], {**os.environ, "UP_TOKEN": CANARY}, tmp_path)

    assert CANARY not in saved
    assert CANARY not in json.dumps([spec.to_openai() for spec in offered.values()])
    assert CANARY not in "\n".join(reports)
    assert listed.returncode == 0, listed.stderr
    assert CANARY not in listed.stdout + listed.stderr
    assert "no (new)" not in listed.stdout  # the chat said them already
    fresh = next(tool for tool in store.load().state("up").cached_tools or () if
                 tool.name == "fresh_tool")  # fmt: skip
    assert fresh.description == "New in release 2. ***"
