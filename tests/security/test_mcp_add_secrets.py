"""`agent mcp add NAME ... --env KEY=VALUE --header 'Name: value'`: the values may be secrets
(an API key, a bearer token), so no output, error or log of agent ever prints them, whether the
server is saved, listed, or refused for bad input (an `--env` without `=` is a value alone)."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from tests import deadlines
from tests.commands.test_cli_mcp_console import AGENT, TOOLS_SERVER

SECRET = "canary-2f9c41-add-secret"
TIMEOUT = deadlines.PROCESS


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENT, "mcp", *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=TIMEOUT, check=False,
    )  # fmt: skip


def files_holding(folder: Path, text: str) -> list[str]:
    """Every file under `folder` that holds `text` (the store and its backup aside)."""
    kept = {"mcp-servers.json", "mcp-servers.backup.json"}
    return sorted(
        str(path)
        for path in folder.rglob("*")
        if path.is_file() and path.name not in kept and text.encode() in path.read_bytes()
    )


def test_added_env_and_header_values_are_printed_nowhere(agent_home: Path) -> None:
    local = run("add", "fx", "--env", f"API_KEY={SECRET}", "--", sys.executable, TOOLS_SERVER)
    remote = run(
        "add", "docs", "https://docs.example/mcp", "--header", f"Authorization: Bearer {SECRET}"
    )
    again = run("add", "fx", "--env", f"API_KEY={SECRET}x", "--", sys.executable)
    listed = run("list")

    assert (local.returncode, remote.returncode, again.returncode, listed.returncode) == (
        0, 0, 1, 0,
    )  # fmt: skip
    assert "API_KEY" in local.stdout and "Authorization" in remote.stdout
    for result in (local, remote, again, listed):
        assert SECRET not in result.stdout + result.stderr
    assert SECRET in (agent_home / "mcp-servers.json").read_text(encoding="utf-8")
    assert files_holding(agent_home, SECRET) == []


@pytest.mark.parametrize(
    "args",
    [
        ["--env", SECRET, "--", "uvx", "x"],  # the value alone, its KEY= forgotten
        ["--env", f"{SECRET} KEY={SECRET}", "--", "uvx"],  # not a variable name before =
        ["--header", f"Bearer {SECRET}", "https://h.example/mcp"],  # no "Name:"
        ["--header", f"Bad Name: {SECRET}", "https://h.example/mcp"],
        ["--header", f"{SECRET} x: y", "https://h.example/mcp"],
        ["--env", f"K={SECRET}", "https://h.example/mcp"],  # env is for local servers
        ["--header", f"A: {SECRET}", "--", "uvx"],  # headers are for remote servers
        ["--header", f"A: {SECRET}", "ftp://h.example/mcp"],
        ["--env", f"K={SECRET}", "https://h.example/mcp", "extra"],
    ],
    ids=[
        "env-without-equals", "env-bad-name", "header-without-colon", "header-bad-name",
        "header-name-is-the-secret", "env-on-remote", "header-on-local", "bad-url",
        "url-with-arguments",
    ],
)  # fmt: skip
def test_bad_add_input_changes_nothing_and_never_echoes_a_value(
    args: list[str], agent_home: Path
) -> None:
    result = run("add", "srv", *args)

    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith("agent: ") and "nothing saved" in result.stderr
    assert SECRET not in result.stderr
    assert not (agent_home / "mcp-servers.json").exists()
    assert not agent_home.exists() or files_holding(agent_home, SECRET) == []
