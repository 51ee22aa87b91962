"""A configured client secret or key goes only to the authorization server it belongs to.

A hostile (or taken over) resource server names an attacker's authorization server in its
protected-resource metadata (RFC 9728). Without a bound issuer the client would send its
client_credentials secret, its private_key_jwt assertion, or (authorization_code with a
pre-registered client) its secret at the code exchange to whatever server that names:
`agent mcp inspect` alone would be enough. So `oauth.issuer` is required with a secret or a
key, and a resource that names another authorization server is refused before anything is
sent there. The attacker is a real authorization server on 127.0.0.1 that keeps every
request it receives, whole.
"""

from __future__ import annotations

import base64
import json
from pathlib import Path
from typing import Any
from urllib.parse import parse_qsl

import pytest

from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import (
    JWT_CLIENT_ID,
    PRE_REGISTERED_ID,
    PRE_REGISTERED_SECRET,
    jwt_key_pair,
    running_oauth_server,
)

SECRET_GRANT = {
    "grant": "client_credentials",
    "clientId": PRE_REGISTERED_ID,
    "clientSecret": "${FX_SECRET}",
}
CODE_GRANT = {"clientId": PRE_REGISTERED_ID, "clientSecret": "${FX_SECRET}"}
KEY_GRANT = {
    "grant": "client_credentials",
    "clientId": JWT_CLIENT_ID,
    "privateKeyFile": "${FX_KEY}",
    "signingAlgorithm": "ES256",
}


def credentials_in(seen: list[dict[str, str]]) -> list[str]:
    """Every client credential found in these requests: a secret anywhere (Basic decoded,
    forms and queries URL-decoded) or a client assertion."""
    found = []
    for request in seen:
        fields = dict(parse_qsl(request["body"])) | dict(parse_qsl(request["query"]))
        if "client_assertion" in fields:
            found.append(f"{request['path']}: client_assertion")
        text = " ".join([request["headers"], request["body"], *fields.values()])
        for line in request["headers"].splitlines():
            name, _, value = line.partition(": ")
            if name == "authorization" and value.lower().startswith("basic "):
                text += " " + base64.b64decode(value[6:]).decode("utf-8", "replace")
        if PRE_REGISTERED_SECRET in text:
            found.append(f"{request['path']}: the client secret")
    return found


def hostile_setup(tmp_path: Path, oauth: dict[str, Any]) -> tuple[dict[str, Any], dict[str, str]]:
    """The oauth object and environment for a grant: the secret, or a fresh key pair."""
    private, _public = jwt_key_pair(tmp_path)
    return oauth, {"FX_SECRET": PRE_REGISTERED_SECRET, "FX_KEY": str(private)}


@pytest.mark.parametrize(
    ("oauth", "command"),
    [
        (SECRET_GRANT, "inspect"),
        (KEY_GRANT, "inspect"),
        (CODE_GRANT, "login"),
    ],
    ids=["client-secret-inspect", "private-key-jwt-inspect", "pre-registered-code-login"],
)
def test_a_resource_naming_another_authorization_server_gets_no_credential_sent_there(
    tmp_path: Path, oauth: dict[str, Any], command: str
) -> None:
    with (
        running_oauth_server() as attacker,
        running_oauth_server("--prm-authorization-server", attacker.base) as resource,
    ):
        oauth, env = hostile_setup(tmp_path, oauth)
        # The person bound the client to the authorization server they registered it with:
        # the resource server's own (as it was when they set it up).
        cli = OAuthCli(tmp_path, resource, oauth={**oauth, "issuer": resource.base}, env_extra=env)

        run = cli.run("mcp", command, "fx")
        seen = attacker.state()["seen"]

    assert credentials_in(seen) == []
    assert seen == []  # refused before anything at all went to the attacker
    assert run.returncode != 0
    assert (
        f"MCP server 'fx' names the authorization server {attacker.base}, but its client "
        f"credentials belong to {resource.base} (oauth.issuer); nothing was sent there. "
        "If the server really moved, set oauth.issuer to the new authorization server's "
        "issuer URL (agent mcp edit)"
    ) in run.stderr, run.stderr


@pytest.mark.parametrize(
    "oauth",
    [SECRET_GRANT, KEY_GRANT, CODE_GRANT],
    ids=["client-secret", "private-key-jwt", "pre-registered-code"],
)
def test_a_secret_or_key_without_an_issuer_is_refused_at_import_and_in_a_saved_file(
    tmp_path: Path, oauth: dict[str, Any]
) -> None:
    """An older configuration has no issuer: nothing may be sent until the person sets one."""
    field = "privateKeyFile" if "privateKeyFile" in oauth else "clientSecret"
    with (
        running_oauth_server() as attacker,
        running_oauth_server("--prm-authorization-server", attacker.base) as resource,
    ):
        oauth, env = hostile_setup(tmp_path, oauth)
        cli = OAuthCli(tmp_path, resource, env_extra=env)  # fx without oauth, for now
        document = tmp_path / "without-issuer.json"
        document.write_text(
            json.dumps({"mcpServers": {"fx": {"url": resource.mcp_url, "oauth": oauth}}})
        )
        imported = cli.run("mcp", "import", str(document))
        # As an older agent saved it: the same definition, with the oauth object, no issuer.
        saved = json.loads((cli.home / "mcp-servers.json").read_text())
        saved["definitions"][0]["oauth"] = oauth
        (cli.home / "mcp-servers.json").write_text(json.dumps(saved))
        inspected = cli.run("mcp", "inspect", "fx")
        logged_in = cli.run("mcp", "login", "fx")
        seen = attacker.state()["seen"]

    assert credentials_in(seen) == []
    assert seen == []
    expected = (
        f"oauth.issuer: required with {field}; set it to the authorization server's issuer "
        "URL (the credentials are only ever sent there)"
    )
    assert imported.returncode == 1
    assert f"mcpServers.fx.{expected}" in imported.stderr, imported.stderr
    for run in (inspected, logged_in):
        assert run.returncode != 0
        assert expected in run.stderr, run.stderr
        assert "fx" in run.stderr


def test_a_client_bound_to_its_real_authorization_server_still_logs_in(tmp_path: Path) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(
            tmp_path,
            server,
            oauth={**SECRET_GRANT, "issuer": server.base},
            env_extra={"FX_SECRET": PRE_REGISTERED_SECRET},
        )

        inspected = cli.run("mcp", "inspect", "fx")
        state = server.state()

    assert inspected.returncode == 0, inspected.stderr
    assert state["grants"] == {"client_credentials": 1}


def test_a_login_stored_for_another_authorization_server_gets_no_secret_on_refresh_or_logout(
    tmp_path: Path,
) -> None:
    """A login saved before the binding (or before the person set oauth.issuer) names the
    server the resource pointed at then: refreshing it or revoking it at logout would send the
    configured secret there, so both refuse without a request."""
    with running_oauth_server() as attacker, running_oauth_server() as server:
        cli = OAuthCli(
            tmp_path,
            server,
            oauth={**CODE_GRANT, "issuer": server.base},
            env_extra={"FX_SECRET": PRE_REGISTERED_SECRET},
        )
        cli.login()
        saved = cli.tokens()
        record = saved["servers"]["fx"]
        # As the older login stored it: the attacker's endpoints, a token due for refresh.
        record["metadata"] |= {
            "issuer": attacker.base,
            "token_endpoint": f"{attacker.base}/token",
            "revocation_endpoint": f"{attacker.base}/revoke",
        }
        record["tokens"]["expires_at"] = record["tokens"]["issued_at"] - 1
        cli.token_file.write_text(json.dumps(saved), encoding="utf-8")

        called = cli.echo()
        logged_out = cli.run("mcp", "logout", "fx")
        seen = attacker.state()["seen"]

    assert credentials_in(seen) == []
    assert seen == []
    assert called.returncode != 0
    assert f"names the authorization server {attacker.base}, but its client" in called.stderr, (
        called.stderr
    )
    assert logged_out.returncode == 0, logged_out.stderr
    assert f"not revoked: the login was with {attacker.base}, not oauth.issuer" in (
        logged_out.stdout + logged_out.stderr
    )
