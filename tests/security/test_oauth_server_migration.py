"""A resource that moves to another authorization server gets nothing of the old one's there.

SEP-2352 (the conformance suite's auth/authorization-server-migration): when a resource's
metadata (RFC 9728) starts naming another authorization server, the client registers anew
there and never presents the old server's client id, client secret or tokens to it. The
move may be real, or a taken-over resource server pointing at an attacker's: either way what
one server issued stays with it. A configured client secret is bound tighter still (promise
3): it goes only to oauth.issuer, so a move refuses the login until the person changes it.
The new server is a real authorization server on 127.0.0.1 that keeps every request whole.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import (
    PRE_REGISTERED_ID,
    PRE_REGISTERED_SECRET,
    running_oauth_server,
)
from tests.security.test_oauth_issuer_binding import credentials_in


def everything_sent(seen: list[dict[str, str]]) -> str:
    """All a server received, as one text to search."""
    return json.dumps(seen)


@pytest.mark.parametrize("binding", ["recorded", "stored-before-the-binding"])
def test_a_moved_resource_gets_a_new_registration_and_none_of_the_old_servers_credentials(
    tmp_path: Path, binding: str
) -> None:
    with running_oauth_server() as new, running_oauth_server() as old:
        cli = OAuthCli(tmp_path, old)
        cli.login()
        saved = cli.tokens()
        record = saved["servers"]["fx"]
        old_client, old_tokens = record["client"]["client_id"], record["tokens"]
        if binding != "recorded":
            # As a login before SEP-2352 stored it: the registration names no issuer, so the
            # SDK alone would take it for portable and present it to the new server.
            record["client"].pop("issuer", None)
            cli.token_file.write_text(json.dumps(saved), encoding="utf-8")
        old.knobs(prm_authorization_server=new.base)

        cli.run("mcp", "login", "fx")  # the new server's token is not the old resource's
        seen = new.state()["seen"]
        registered = new.state()["requests"].get("/register", 0)

    sent = everything_sent(seen)
    assert registered == 1
    assert old_client not in sent
    for value in (old_tokens["access_token"], old_tokens.get("refresh_token")):
        assert value and value not in sent


def test_a_configured_secret_never_follows_the_resource_to_another_server(tmp_path: Path) -> None:
    with running_oauth_server() as new, running_oauth_server() as old:
        cli = OAuthCli(
            tmp_path,
            old,
            oauth={
                "clientId": PRE_REGISTERED_ID,
                "clientSecret": "${FX_SECRET}",
                "issuer": old.base,
            },
            env_extra={"FX_SECRET": PRE_REGISTERED_SECRET},
        )
        cli.login()
        old.knobs(prm_authorization_server=new.base)

        moved = cli.run("mcp", "login", "fx")
        seen = new.state()["seen"]

    assert credentials_in(seen) == []
    assert seen == []  # refused before anything at all went to the new server
    assert moved.returncode != 0
    assert (
        f"names the authorization server {new.base}, but its client credentials belong to "
        f"{old.base} (oauth.issuer); nothing was sent there"
    ) in moved.stderr, moved.stderr
