"""`agent mcp add` with a value split from its flag by a space (`--header Authorization:
"Bearer TOKEN"`, `-e API_KEY= TOKEN`): the flag gets an empty value, and the secret becomes the
next positional argument: the server's name (printed everywhere, part of every tool name the
model sees) or its command (shown in every listing and trust question). An empty value from
the command line is refused, so the stray secret is never saved nor printed."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.commands.test_cli_mcp_console import AGENT

SECRET = "canary-split-4b7e0c"
TIMEOUT = 90


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENT, "mcp", *args], stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=TIMEOUT, check=False,
    )  # fmt: skip


@pytest.mark.parametrize(
    ("args", "advice"),
    [
        (
            ["--header", "Authorization:", f"Bearer {SECRET}", "https://h.example/mcp"],
            "the 1st --header has no value after ':' (quote 'Name: value' as one argument)",
        ),
        (
            ["docs", "-H", "X-Id: 1", "-H", "X-Key:", SECRET, "https://h.example/mcp"],
            "the 2nd --header has no value after ':' (quote 'Name: value' as one argument)",
        ),
        (
            ["docs", "-e", "API_KEY=", SECRET, "--", "uvx", "docs"],
            "the 1st --env has no value after '=' (quote KEY=VALUE as one argument)",
        ),
    ],
    ids=["header-as-name", "header-as-name-second", "env-as-command"],
)
def test_a_value_split_from_its_flag_is_refused_and_never_saved_or_shown(
    args: list[str], advice: str, agent_home: Path
) -> None:
    result = run("add", *args)

    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith(f"agent: {advice}") and "nothing saved" in result.stderr
    assert SECRET not in result.stderr
    assert not (agent_home / "mcp-servers.json").exists()
