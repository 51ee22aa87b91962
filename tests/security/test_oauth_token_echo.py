"""A server that says back the bearer token it was sent: the token never reaches the person's
terminal, the model or the session; it is masked as *** like every other secret."""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import running_oauth_server


def test_a_token_said_back_by_the_server_is_masked(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        cli.login()

        call = cli.run("mcp", "call", "fx", "echo_authorization", "--args", "{}", "--trace")
        server.knobs(expire_all=True)  # and after a refresh, the new token too
        refreshed = cli.run("mcp", "call", "fx", "echo_authorization", "--args", "{}")
        tokens = [token["token"] for token in server.tokens("access")]

    assert call.stdout.splitlines()[0] == "you sent: Bearer ***"
    assert refreshed.stdout.splitlines()[0] == "you sent: Bearer ***"
    assert len(tokens) == 2
    for token in tokens:
        assert token not in call.stdout + call.stderr + refreshed.stdout + refreshed.stderr
