"""`agent mcp tools` after a server's upgrade: the refreshed list shows each new tool as new,
unselected, once; the next listing shows it like any other."""

from __future__ import annotations

import os
from pathlib import Path

from agent.mcp.store import McpStore
from tests.commands.test_cli_mcp_console import agent
from tests.mcp.upgrading import release, save_upgrading


def row(listing: str, tool: str) -> list[str]:
    return next(line.split() for line in listing.splitlines() if f" {tool} " in line)


def test_a_refreshed_list_marks_a_new_tool_new_and_unselected_once(
    agent_home: Path, tmp_path: Path
) -> None:
    release_file = tmp_path / "release.json"
    release(release_file, 1)
    save_upgrading(McpStore(agent_home / "mcp-servers.json"), "up", release_file, os.environ)
    first = agent("mcp", "tools", "up", "--refresh")
    release(release_file, 2)

    upgraded = agent("mcp", "tools", "up", "--refresh")
    again = agent("mcp", "tools", "up")

    assert first.returncode == upgraded.returncode == again.returncode == 0, upgraded.stderr
    assert row(first.stdout, "old_tool")[0] == "yes"
    assert row(upgraded.stdout, "fresh_tool")[:2] == ["no", "(new)"]
    assert row(upgraded.stdout, "lookup")[0] == "yes"
    assert " old_tool " not in upgraded.stdout
    assert row(again.stdout, "fresh_tool")[:2] == ["no", "fresh_tool"]
