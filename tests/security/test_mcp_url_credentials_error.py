"""A URL with credentials in it (`https://user:TOKEN@host`) is refused, and the refusal must
not repeat them. A base64 token holds '/', '+' and '=': `https://admin:Zm9v/YmFy@host` then
splits at the '/', so the token's first part reads as a port; and a look-alike '＠' makes the
user, token and host one malformed host. Neither error may quote what it could not parse."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path

import pytest

from tests.commands.test_cli_mcp_console import AGENT

TOKEN = "Q2FuYXJ5"  # base64 of "Canary": the part of the token before its '/'
URLS = [
    f"https://admin:{TOKEN}/YmFy+cXV4=@mcp.example/mcp",
    f"https://admin:{TOKEN}#YmFy@mcp.example/mcp",
    f"https://admin:{TOKEN}\uff20mcp.example/mcp",  # FULLWIDTH COMMERCIAL AT
]
TIMEOUT = 90


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENT, "mcp", *args], input=stdin, stdin=None if stdin is not None else subprocess.DEVNULL,
        capture_output=True, text=True, timeout=TIMEOUT, check=False,
    )  # fmt: skip


@pytest.mark.parametrize("url", URLS, ids=["slash", "hash", "fullwidth-at"])
def test_a_url_whose_token_breaks_its_parse_is_refused_by_add_without_showing_it(
    url: str, agent_home: Path
) -> None:
    result = run("add", "docs", url)

    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.startswith("agent: the URL: not a valid URL")
    assert "nothing saved" in result.stderr
    assert TOKEN not in result.stderr
    assert not (agent_home / "mcp-servers.json").exists()


def test_a_url_whose_token_breaks_its_parse_is_refused_by_import_without_showing_it(
    agent_home: Path,
) -> None:
    document = {"mcpServers": {f"s{i}": {"url": url} for i, url in enumerate(URLS)}}

    result = run("import", "-", stdin=json.dumps(document))

    assert (result.returncode, result.stdout) == (1, "")
    assert result.stderr.count("not a valid URL") == len(URLS)
    assert TOKEN not in result.stderr
    assert not (agent_home / "mcp-servers.json").exists()


def test_a_url_from_the_environment_whose_token_breaks_its_parse_is_not_shown_at_start(
    agent_home: Path,
) -> None:
    saved = run("import", "-", stdin=json.dumps({"mcpServers": {"docs": {"url": "${DOCS_URL}"}}}))
    assert saved.returncode == 0, saved.stderr

    result = subprocess.run(
        [AGENT, "mcp", "enable", "docs"], stdin=subprocess.DEVNULL, capture_output=True,
        text=True, timeout=TIMEOUT, check=False, env={**os.environ, "DOCS_URL": URLS[0]},
    )  # fmt: skip

    assert result.returncode == 1
    assert "after expanding variables, the URL not a valid URL" in result.stderr
    assert TOKEN not in result.stdout + result.stderr
