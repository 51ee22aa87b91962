"""A secret pasted inside `${...}` (a template's `${YOUR_API_KEY}` filled in with the key
itself) is not a variable reference, and the refusal must say so without repeating it: the
error of `agent mcp add --env/--header` or `agent mcp import` goes to a terminal's scrollback
and to CI logs, where an env or header value never goes."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest

from tests.commands.test_cli_mcp_console import AGENT

SECRET = "sk-canary-7d1e-in-braces"  # a '-' makes it no variable name: an unsupported reference
TIMEOUT = 90


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENT, "mcp", *args], input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    "args",
    [
        ["--env", "API_KEY=${" + SECRET + "}", "--", "uvx", "x"],
        ["--env", "API_KEY=${env:" + SECRET + "}", "--", "uvx", "x"],
        ["--header", "Authorization: Bearer ${" + SECRET + "}", "https://h.example/mcp"],
        ["--header", "X-Key: ${" + SECRET + "}${" + SECRET + "}", "https://h.example/mcp"],
    ],
    ids=["env", "env-prefixed", "header", "header-twice"],
)
def test_a_secret_inside_braces_is_refused_by_add_without_being_shown(
    args: list[str], agent_home: Path
) -> None:
    result = run("add", "srv", *args)

    assert (result.returncode, result.stdout) == (1, "")
    assert "nothing saved" in result.stderr and "not a supported reference" in result.stderr
    assert SECRET not in result.stderr
    assert not (agent_home / "mcp-servers.json").exists()


def test_a_secret_inside_braces_is_refused_by_import_without_being_shown(
    agent_home: Path,
) -> None:
    document = {
        "mcpServers": {
            "local": {"command": "uvx", "env": {"API_KEY": "${" + SECRET + "}"}},
            "remote": {"url": "https://h.example/mcp", "headers": {"X-Key": "${" + SECRET + "}"}},
        }
    }

    result = run("import", "-", stdin=json.dumps(document))

    assert (result.returncode, result.stdout) == (1, "")
    assert "local.env.API_KEY" in result.stderr and "remote.headers.X-Key" in result.stderr
    assert SECRET not in result.stderr
    assert not (agent_home / "mcp-servers.json").exists()
