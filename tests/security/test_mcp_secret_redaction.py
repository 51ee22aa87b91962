"""Attack: an MCP server echoes the secrets its definition gave it, whole or in part, on
stderr, in tool results, in errors, or floods its log. Through McpRuntime and real servers."""

from __future__ import annotations

import os
import stat
from pathlib import Path

import anyio
import mcp_types as types
import pytest

from agent.errors import ToolCallError
from agent.mcp.client.results import tool_result_from_mcp
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import running_http_server, server_command
from tests.mcp.runtime_helpers import ScriptedTrust, runtime, save

pytestmark = pytest.mark.anyio

DB_PASSWORD = "Pa55-canary-771"
DB_URL = f"postgres://app:{DB_PASSWORD}@db.internal/x"
TOKEN = "tok-canary-3390"
LABEL = "label-canary-5512"
CANARIES = (DB_PASSWORD, TOKEN, LABEL)


@pytest.fixture
def store(agent_home: Path) -> McpStore:
    return McpStore(agent_home / "mcp-servers.json")


def hostile(*args: str, env: dict[str, str]) -> dict[str, object]:
    command = server_command("hostile_server.py", *args)
    return {"command": command[0], "args": command[1:], "env": env}


def files_under(folder: Path) -> dict[Path, str]:
    return {
        path: path.read_text(encoding="utf-8", errors="replace")
        for path in folder.rglob("*")
        if path.is_file()
    }


async def test_secrets_a_server_prints_or_returns_never_reach_the_log_results_or_errors(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    env = {"DB_URL": DB_URL, "API_TOKEN": "${MY_TOKEN}"}
    save(store, {"fx": hostile("--label", "${LABEL}", env=env)})
    environ = {"MY_TOKEN": TOKEN, "LABEL": LABEL}
    password = (DB_URL.index(DB_PASSWORD), DB_URL.index("@"))
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust(), environ=environ) as rt:
        await rt.start("fx")
        start, end = password
        await rt.call_tool("fx", "leak_stderr", {"name": "DB_URL", "start": start, "end": end})
        await rt.call_tool("fx", "leak_stderr", {"name": "API_TOKEN"})
        result = await rt.call_tool(
            "fx", "leak_result", {"name": "DB_URL", "start": start, "end": end}
        )
        shown = tool_result_from_mcp(result, 100_000).text
        with anyio.fail_after(15), pytest.raises(ToolCallError) as crashed:
            await rt.call_tool("fx", "crash", {})

    assert result.structured_content == {"value": "***", "sentence": "the secret is ***!"}
    assert "the secret is ***!" in shown
    assert "crashing on purpose" in str(crashed.value)  # the stderr tail is still shown
    log = (agent_home / "mcp" / "fx.log").read_text(encoding="utf-8")
    assert "connecting to db with password=***;timeout=5" in log
    assert "label=***" in log
    for path, text in files_under(agent_home / "mcp").items():  # the logs
        for canary in CANARIES:
            assert canary not in text, (path, canary)
    for canary in CANARIES:
        assert canary not in shown + str(crashed.value)
    # A line longer than the cap is cut, and no piece of the secret survives at the cut.
    longest = max(len(line) for line in log.splitlines())
    assert longest < 9000
    assert not any(line.endswith(DB_PASSWORD[:4]) for line in log.splitlines())


async def test_parts_of_header_and_url_secrets_are_redacted_from_remote_results(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    sid, key = "sid-canary-6021", "key-canary-8804"
    with running_http_server() as server:
        definition = {
            "url": server.url + "?api_key=${KEY}",
            "headers": {"Cookie": "sid=${SID}; theme=dark"},
        }
        save(store, {"remote": definition})
        async with runtime(store, agent_home, tmp_path, environ={"SID": sid, "KEY": key}) as rt:
            result = await rt.call_tool(
                "remote", "echo", {"text": f"cookie {sid}, key {key}, done"}
            )
    assert tool_result_from_mcp(result, 1000).text == "cookie ***, key ***, done"


async def test_a_servers_log_is_private_capped_and_keeps_one_old_file(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": hostile(env={})})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        for _ in range(3):  # 9 MiB of stderr in all: more than two logs' worth
            with anyio.fail_after(60):
                await rt.call_tool("fx", "spam_stderr", {"kib": 3 * 1024})
        assert (await rt.call_tool("fx", "echo", {"text": "alive"})).content[0].text == "alive"  # type: ignore[union-attr]

    folder = agent_home / "mcp"
    assert sorted(path.name for path in folder.iterdir()) == ["fx.log", "fx.log.1"]
    cap = 4 * 1024 * 1024
    for path in folder.iterdir():
        assert path.stat().st_size <= cap
        assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(folder.stat().st_mode) == 0o700


async def test_plain_env_words_and_an_inherited_home_are_no_secrets_so_results_stay_whole(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    home = str(tmp_path / "home")
    env = {"FORMAT": "text", "DATA_HOME": "${HOME}", "API_TOKEN": "${MY_TOKEN}"}
    save(store, {"fx": hostile(env=env)})
    environ = {"HOME": home, "PATH": os.environ["PATH"], "MY_TOKEN": TOKEN}
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust(), environ=environ) as rt:
        await rt.start("fx")
        with anyio.fail_after(20):
            said = f"plain text about {home}/notes.txt and {TOKEN}"
            result = await rt.call_tool("fx", "echo", {"text": said})

    assert result.content == [
        types.TextContent(type="text", text=f"plain text about {home}/notes.txt and ***")
    ]


async def test_a_secret_equal_to_a_protocol_word_is_masked_in_text_never_in_the_results_shape(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    save(store, {"fx": hostile(env={"API_KEY": "text", "SESSION_TOKEN": "notes"})})
    async with runtime(store, agent_home, tmp_path, trust=ScriptedTrust()) as rt:
        await rt.start("fx")
        with anyio.fail_after(20):
            echoed = await rt.call_tool("fx", "echo", {"text": "type text here"})
            resources = await rt.call_tool("fx", "resource_link", {})
            leaked = await rt.call_tool("fx", "leak_result", {"name": "API_KEY"})

    assert echoed.content == [types.TextContent(type="text", text="type *** here")]
    link, embedded = resources.content
    assert isinstance(link, types.ResourceLink) and link.mime_type == "text/plain"
    assert isinstance(embedded, types.EmbeddedResource)
    assert embedded.resource == types.TextResourceContents(
        uri="file:///fixture/***.txt", text="embedded ***", mime_type="text/plain"
    )
    assert leaked.structured_content == {"value": "***", "sentence": "the secret is ***!"}
    assert all(block.type == "text" for block in leaked.content)
