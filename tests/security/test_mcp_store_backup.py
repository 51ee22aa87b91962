"""The backup every change of the MCP configuration keeps (mcp-servers.backup.json): it holds
what the store held (env values and headers included), so it is the person's alone (0600,
whatever the umask), and `agent mcp restore` puts back only that file: no argument names
another, and a link put in its place is refused, not followed."""

from __future__ import annotations

import json
import os
import stat
import subprocess
from pathlib import Path

from tests import deadlines
from tests.commands.test_cli_mcp_console import AGENT

SECRET = "canary-81d0aa-backup-secret"
TIMEOUT = deadlines.PROCESS


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENT, "mcp", *args], input=stdin, stdin=None if stdin else subprocess.DEVNULL,
        capture_output=True, text=True, timeout=TIMEOUT, check=False,
        preexec_fn=lambda: os.umask(0o022),  # a common umask: new files readable by all
    )  # fmt: skip


def servers(**named: dict[str, object]) -> str:
    return json.dumps({"mcpServers": named})


def test_the_backup_is_readable_only_by_its_owner(agent_home: Path) -> None:
    assert (
        run("import", "-", stdin=servers(a={"command": "uvx", "env": {"K": SECRET}})).returncode
        == 0
    )
    store = agent_home / "mcp-servers.json"
    first = store.read_bytes()

    assert run("add", "b", "https://b.example/mcp", "--header", f"X-Key: {SECRET}").returncode == 0

    backup = agent_home / "mcp-servers.backup.json"
    assert backup.read_bytes() == first
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert run("remove", "a").returncode == 0
    assert stat.S_IMODE(backup.stat().st_mode) == 0o600
    assert SECRET in backup.read_text(encoding="utf-8")


def test_restore_takes_no_file_and_refuses_a_link_in_the_backups_place(
    tmp_path: Path, agent_home: Path
) -> None:
    run("import", "-", stdin=servers(a={"command": "uvx"}))
    run("add", "b", "--", "uvx", "b")
    store = agent_home / "mcp-servers.json"
    # A store document of someone's choosing, trusted and enabled as they like.
    planted = tmp_path / "planted.json"
    planted.write_bytes(store.read_bytes().replace(b'"uvx"', b'"/tmp/evil"'))
    before = store.read_bytes()

    named = run("restore", str(planted))
    backup = agent_home / "mcp-servers.backup.json"
    backup.unlink()
    backup.symlink_to(planted)
    linked = run("restore")

    assert named.returncode == 2 and "unrecognized arguments" in named.stderr
    assert (linked.returncode, linked.stdout) == (1, "")
    assert linked.stderr == (
        f"agent: {backup}: not a regular file (a link or something else was put in the "
        "backup's place); nothing restored\n"
    )
    assert store.read_bytes() == before
    assert backup.is_symlink()
