"""`/mcp trust NAME` says what comes next: an enabled server's tools join the next request; a
disabled one's wait for `/mcp enable NAME` (issue 26)."""

from __future__ import annotations

import sys
from dataclasses import replace
from pathlib import Path

import pexpect
import pytest

from agent.mcp.config.definitions import fingerprint
from agent.mcp.config.document import parse_document_data
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import server_path
from tests.pty_chat import pty_env, scripted_chat


def configure(agent_home: Path, *, enabled: bool) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    server = {"command": sys.executable, "args": [str(server_path("tools_server.py"))]}
    store.replace_definitions(parse_document_data({"mcpServers": {"fx": server}}, "t").definitions)
    fp = fingerprint(store.load().find("fx"))
    store.update_state("fx", fp, lambda s: replace(s, enabled=enabled))


@pytest.mark.parametrize(
    ("enabled", "said"),
    [
        (True, "Trusted fx; its 16 tools join the next request."),
        (False, "Trusted fx; 16 tools. It is disabled: /mcp enable fx offers them."),
    ],
)
def test_trusting_a_server_says_whether_its_tools_join_or_how_to_enable_it(
    tmp_path: Path, agent_home: Path, enabled: bool, said: str
) -> None:
    configure(agent_home, enabled=enabled)
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    env = pty_env(agent_home, tmp_path)
    with scripted_chat(tmp_path, [{"text": "ok"}], env, project, dimensions=(40, 200)) as (
        chat,
        fake,
    ):
        chat.expect_exact("›")
        chat.send("/mcp trust fx\r")
        chat.expect_exact("Start it and trust what it runs here?")
        chat.send("y")
        chat.expect_exact(said)
        chat.send("hi\r")
        chat.expect_exact("ok")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        shown = chat.before or ""
    assert "decide each" not in shown and "[y] yes" not in shown  # asked once, by /mcp trust
    offered = {tool["function"]["name"] for tool in fake.requests()[0]["body"].get("tools", [])}
    assert ("mcp__fx__echo" in offered) is enabled
