"""A server URL with `${VAR}` keys its tokens by the expanded URL everywhere (review finding 3).

Before, the tokens were stored under the expanded URL but list, /mcp, logout and the clean-up
after every save looked under the raw one: status said "none", logout revoked nothing, and
any import silently dropped a working login. Through the real CLI and fixture server.
"""

from __future__ import annotations

import json
from pathlib import Path

from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import running_oauth_server


def _import(cli: OAuthCli, servers: dict[str, object]) -> str:
    document = cli.directory / "more.json"
    document.write_text(json.dumps({"mcpServers": servers}), encoding="utf-8")
    result = cli.run("mcp", "import", str(document))
    assert result.returncode == 0, result.stderr
    return result.stdout


def _auth_column(cli: OAuthCli, env: dict[str, str] | None = None) -> str:
    saved = dict(cli.env_extra)
    cli.env_extra = env if env is not None else saved
    try:
        listing = cli.run("mcp", "list").stdout
    finally:
        cli.env_extra = saved
    row = next(line for line in listing.splitlines() if line.startswith("fx "))
    return row


def test_a_url_with_a_variable_keeps_its_login_through_list_import_and_logout(
    tmp_path: Path,
) -> None:
    with running_oauth_server() as server:
        raw = f"{server.base}/${{MCP_PATH}}"
        cli = OAuthCli(tmp_path, server, env_extra={"MCP_PATH": "mcp"})
        _import(cli, {"fx": {"url": raw}})
        cli.run("mcp", "enable", "fx")
        cli.login()
        listed = _auth_column(cli)
        unset = _auth_column(cli, {})  # MCP_PATH only ever comes from env_extra
        added = _import(cli, {"fx": {"url": raw}, "other": {"url": "http://127.0.0.1:9/mcp"}})
        kept = cli.tokens()["servers"]
        call = cli.echo("still here")
        logout = cli.run("mcp", "logout", "fx")
        issued = server.tokens()

    assert "logged in (expires" in listed, listed
    assert "unknown (MCP_PATH not set)" in unset, unset
    assert "unchanged: fx" in added
    assert "fx" in kept and kept["fx"]["tokens"] is not None
    assert (call.returncode, call.stdout.splitlines()[0]) == (0, "still here"), call.stderr
    assert logout.stdout.endswith("(tokens revoked).\n"), logout.stdout
    assert all(t["revoked"] for t in issued), issued
