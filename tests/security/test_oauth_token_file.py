"""A token file that others can read, or that is damaged, is reported and never overwritten."""

from __future__ import annotations

import os
from pathlib import Path

from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import running_oauth_server


def test_a_token_file_others_can_read_is_refused_and_left_as_it_is(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        cli.login()
        os.chmod(cli.token_file, 0o644)  # e.g. restored from a backup by another tool
        before = cli.token_file.read_bytes()

        call = cli.echo()
        login = cli.run("mcp", "login", "fx")
        listing = cli.run("mcp", "list")

    path = cli.token_file
    refused = (
        f"{path}: holds OAuth tokens but others can read or change it (mode 644); run "
        f"chmod 600 {path} if it is yours, else delete it and log in again"
    )
    assert call.returncode == 1
    assert call.stderr == f"agent: MCP server 'fx' cannot use its OAuth tokens: {refused}\n"
    assert (login.returncode, login.stderr) == (1, f"agent: {refused}\n")
    assert listing.returncode == 0
    assert f"warning: {refused}" in listing.stderr
    assert cli.token_file.read_bytes() == before


def test_a_damaged_token_file_is_reported_without_quoting_it_and_kept(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        cli.login()
        damaged = cli.token_file.read_text()[:-40]  # cut short, as by a full disk
        cli.token_file.write_text(damaged)
        call = cli.echo()
        imported = cli.run("mcp", "import", str(tmp_path / "servers.json"))
        issued = [t["token"] for t in server.tokens()]

    path = cli.token_file
    assert call.stderr == (
        f"agent: MCP server 'fx' cannot use its OAuth tokens: {path}: not valid JSON "
        "(JSONDecodeError); move it away (you will need to log in again) or fix it by hand; "
        "agent will not overwrite it\n"
    )
    assert imported.returncode == 0  # the configuration is still usable
    assert cli.token_file.read_text() == damaged
    assert issued
    for token in issued:
        assert token not in call.stderr
