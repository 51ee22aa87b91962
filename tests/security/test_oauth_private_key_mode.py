"""A private key that others can read or replace is refused, as ssh does (review finding 7).

A world-writable oauth.privateKeyFile lets any local user swap in their own key; a readable one
lets them sign as us. Through the real CLI and fixture: login refuses, naming the file and
`chmod 600`, never quoting the key, and nothing reaches the token endpoint.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import jwt_key_pair, running_oauth_server

JWT_CLIENT_ID = "fixture-jwt-client"


@pytest.mark.parametrize("mode", [0o666, 0o640, 0o604])
def test_a_private_key_open_to_others_is_refused_and_never_quoted(
    tmp_path: Path, mode: int
) -> None:
    private, public = jwt_key_pair(tmp_path)
    private.chmod(mode)
    with running_oauth_server("--jwt-public-key", str(public)) as server:
        cli = OAuthCli(
            tmp_path,
            server,
            oauth={
                "grant": "client_credentials",
                "clientId": JWT_CLIENT_ID,
                "privateKeyFile": "${FX_KEY}",
                "signingAlgorithm": "ES256",
                "issuer": server.base,
            },
            env_extra={"FX_KEY": str(private)},
        )
        login = cli.run("mcp", "login", "fx")
        state = server.state()
        private.chmod(0o600)
        fixed = cli.run("mcp", "login", "fx")

    assert login.returncode != 0
    assert f"oauth.privateKeyFile: {private} can be read or changed by others" in login.stderr
    assert f"run chmod 600 {private}" in login.stderr, login.stderr
    key_lines = private.read_text().splitlines()[1:-1]
    assert not any(line in login.stderr + login.stdout for line in key_lines)
    assert state["grants"] == {}  # nothing was signed with it
    assert fixed.returncode == 0, fixed.stderr
