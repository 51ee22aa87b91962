"""Something other than a file in the backup's place (a folder, left by a tool or a person):
the change that would keep a backup there refuses with a line naming the place and what to do,
saves nothing, and does not spill a traceback (with the store's paths) on the terminal."""

from __future__ import annotations

import subprocess
from pathlib import Path

from tests.commands.test_cli_mcp_console import AGENT

TIMEOUT = 90


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENT, "mcp", *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=TIMEOUT, check=False,
    )  # fmt: skip


def test_a_folder_in_the_backups_place_refuses_the_change_and_saves_nothing(
    agent_home: Path,
) -> None:
    assert run("add", "a", "--", "uvx", "a").returncode == 0
    store = agent_home / "mcp-servers.json"
    backup = agent_home / "mcp-servers.backup.json"
    before = store.read_bytes()
    backup.unlink()
    backup.mkdir()

    result = run("add", "b", "--", "uvx", "b")

    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr == (
        f"agent: {backup}: cannot keep the backup there (Is a directory); nothing saved. Move "
        "it away, and run the command again\n"
    )
    assert store.read_bytes() == before
    assert sorted(path.name for path in agent_home.iterdir()) == [
        "mcp-servers.backup.json", "mcp-servers.json", "mcp-servers.json.lock",
    ]  # fmt: skip
