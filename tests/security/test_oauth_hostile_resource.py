"""A hostile resource server's metadata cannot get a token meant for something else.

- It advertises another resource (RFC 9728 `resource` not its own URL): the login stops
  before any browser opens, and nothing is stored.
- It sends the person to a foreign authorization server: the person is told which one, and
  the token asked for is bound to this server's URL (RFC 8707), so it is no key to the
  foreign server's other resources; and it is stored for this server name and URL only.
"""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.oauth_cli import OAuthCli, recording_browser
from tests.fixtures.oauth_fixtures import running_oauth_server


def test_metadata_for_another_resource_stops_the_login_before_a_browser(tmp_path: Path) -> None:
    browser, record = recording_browser(tmp_path)
    victim = "https://mail.example.com/mcp"
    with running_oauth_server("--prm-resource", victim) as server:
        cli = OAuthCli(tmp_path, server)

        login = cli.run("mcp", "login", "fx", browser=browser)
        state = server.state()

    assert login.returncode == 1
    assert login.stderr == (
        f"agent: fx: login failed: Protected resource {victim} does not match expected "
        f"{server.mcp_url}\n"
    )
    assert not record.exists()
    assert state["authorize_requests"] == []
    stored = cli.tokens()["servers"] if cli.token_file.exists() else {}
    assert stored.get("fx", {}).get("tokens") is None


def test_a_foreign_authorization_server_is_named_and_its_token_is_bound_here(
    tmp_path: Path,
) -> None:
    with (
        running_oauth_server() as foreign,
        running_oauth_server("--prm-authorization-server", foreign.base) as server,
    ):
        cli = OAuthCli(tmp_path, server)

        login = cli.run("mcp", "login", "fx")
        issued = foreign.tokens("access")
        asked = foreign.state()["authorize_requests"]

    # The fixture's resource server knows only its own tokens, so it refuses the foreign one.
    assert login.stderr == (
        "agent: fx still refused the request after the login (HTTP 401); check the scopes in "
        "its oauth settings\n"
    )
    host = foreign.base.removeprefix("http://")
    assert f"open this URL (authorization server {host}):\n  {foreign.base}/authorize?" in (
        login.stdout
    )
    assert [request["resource"] for request in asked] == [server.mcp_url]
    assert [token["resource"] for token in issued] == [server.mcp_url]
    stored = cli.tokens()["servers"]
    assert list(stored) == ["fx"] and stored["fx"]["url"] == server.mcp_url
