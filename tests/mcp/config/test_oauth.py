"""The `oauth` object of a remote server (and Cursor's `auth`): parsed, checked, written back."""

from __future__ import annotations

import json

import pytest

from agent.errors import DocumentError
from agent.mcp.config.definitions import HttpDefinition, fingerprint
from agent.mcp.config.document import parse_document, serialize_document
from agent.mcp.config.oauth import OAuthConfig


def parse(servers: dict[str, object]) -> tuple[object, ...]:
    return parse_document(json.dumps({"mcpServers": servers}), "servers.json").definitions


def problems(servers: dict[str, object]) -> list[str]:
    with pytest.raises(DocumentError) as caught:
        parse(servers)
    return [str(problem) for problem in caught.value.problems]


def test_every_oauth_field_is_read_into_the_model() -> None:
    oauth = {
        "clientId": "my-app",
        "clientSecret": "${APP_SECRET}",
        "scopes": ["repo", "read:org"],
        "callbackPort": 33418,
        "clientMetadataUrl": "https://example.com/agent/client.json",
        "issuer": "https://github.com/login/oauth",
    }

    (definition,) = parse({"gh": {"url": "https://mcp.example.com/mcp", "oauth": oauth}})

    assert definition == HttpDefinition(
        name="gh",
        url="https://mcp.example.com/mcp",
        oauth=OAuthConfig(
            client_id="my-app",
            client_secret="${APP_SECRET}",
            scopes=("repo", "read:org"),
            callback_port=33418,
            client_metadata_url="https://example.com/agent/client.json",
            issuer="https://github.com/login/oauth",
        ),
    )


def test_client_credentials_with_a_private_key_is_accepted() -> None:
    oauth = {
        "grant": "client_credentials",
        "clientId": "svc",
        "privateKeyFile": "${KEY_FILE}",
        "signingAlgorithm": "ES256",
        "issuer": "https://auth.example.com",
    }

    (definition,) = parse({"svc": {"url": "https://h.example/mcp", "oauth": oauth}})

    assert isinstance(definition, HttpDefinition)
    assert definition.oauth == OAuthConfig(
        client_id="svc",
        grant="client_credentials",
        private_key_file="${KEY_FILE}",
        signing_algorithm="ES256",
        issuer="https://auth.example.com",
    )


def test_cursors_auth_object_reads_into_the_same_model() -> None:
    auth = {"CLIENT_ID": "cid", "CLIENT_SECRET": "${CURSOR_SECRET}", "scopes": ["a", "b"],
            "issuer": "https://linear.app"}  # fmt: skip

    (definition,) = parse({"linear": {"url": "https://mcp.linear.app/mcp", "auth": auth}})

    assert isinstance(definition, HttpDefinition)
    assert definition.oauth == OAuthConfig(
        client_id="cid", client_secret="${CURSOR_SECRET}", scopes=("a", "b"),
        issuer="https://linear.app",
    )  # fmt: skip


def test_export_writes_oauth_back_canonically_and_reads_the_same() -> None:
    auth = {"CLIENT_ID": "cid", "CLIENT_SECRET": "${CURSOR_SECRET}", "scopes": "a b",
            "issuer": "https://linear.app"}  # fmt: skip
    definitions = parse({"linear": {"url": "https://mcp.linear.app/mcp", "auth": auth}})

    text = serialize_document(definitions)  # type: ignore[arg-type]

    assert json.loads(text) == {
        "mcpServers": {
            "linear": {
                "type": "streamable-http",
                "url": "https://mcp.linear.app/mcp",
                "oauth": {
                    "clientId": "cid",
                    "clientSecret": "${CURSOR_SECRET}",
                    "scopes": ["a", "b"],
                    "issuer": "https://linear.app",
                },
            }
        }
    }
    assert parse_document(text, "export").definitions == definitions


def test_oauth_on_a_stdio_server_is_rejected_with_its_path() -> None:
    found = problems({"local": {"command": "server", "oauth": {"clientId": "x"}}})

    assert found == [
        "mcpServers.local.oauth: not allowed on a stdio server: OAuth is for remote servers "
        "(url); give a local server its credentials in env"
    ]


def test_unknown_oauth_fields_are_rejected_with_their_path() -> None:
    found = problems({"r": {"url": "https://h.example/mcp", "oauth": {"clientID": "x"}}})

    assert len(found) == 1
    assert found[0].startswith("mcpServers.r.oauth.clientID: unknown field; known fields: clientId")


def test_a_literal_client_secret_is_refused_so_it_never_reaches_the_store() -> None:
    found = problems(
        {
            "r": {
                "url": "https://h.example/mcp",
                "oauth": {"clientId": "x", "clientSecret": "s3cr3t"},
            }
        }
    )

    assert found == [
        "mcpServers.r.oauth.clientSecret: must be a ${VAR} reference (e.g. ${MY_CLIENT_SECRET}) "
        "so the secret stays in your environment and out of mcp-servers.json"
    ]
    assert not any("s3cr3t" in line for line in found)


@pytest.mark.parametrize(
    ("oauth", "expected"),
    [
        (
            {"callbackPort": 0},
            "mcpServers.r.oauth.callbackPort: expected a port number from 1 to 65535",
        ),
        (
            {"grant": "password"},
            "mcpServers.r.oauth.grant: expected one of: authorization_code, client_credentials",
        ),
        (
            {"grant": "client_credentials", "clientSecret": "${S}"},
            "mcpServers.r.oauth.clientId: required for grant client_credentials",
        ),
        (
            {"clientMetadataUrl": "http://example.com/c.json"},
            "mcpServers.r.oauth.clientMetadataUrl: must be an https:// URL with a path "
            "(a client ID metadata document)",
        ),
        (
            {"clientSecret": "${S}"},
            "mcpServers.r.oauth.issuer: required with clientSecret; set it to the authorization "
            "server's issuer URL (the credentials are only ever sent there)",
        ),
        (
            {"grant": "client_credentials", "clientId": "c", "privateKeyFile": "${K}"},
            "mcpServers.r.oauth.issuer: required with privateKeyFile; set it to the "
            "authorization server's issuer URL (the credentials are only ever sent there)",
        ),
        (
            {"clientId": "c", "clientSecret": "${S}", "issuer": "https://a.example/?x=1"},
            "mcpServers.r.oauth.issuer: must be the authorization server's issuer URL "
            "(https://..., no query or fragment), exactly as its metadata names it",
        ),
        (
            {"clientId": "c", "clientSecret": "${S}", "issuer": "http://auth.example.com"},
            "mcpServers.r.oauth.issuer: must be https:// (plain http only to this machine: "
            "localhost, 127.0.0.1, ::1), or the secret could be read on the way",
        ),
        (
            {"signingAlgorithm": "HS256"},
            "mcpServers.r.oauth.signingAlgorithm: expected one of: ES256, RS256",
        ),
    ],
)
def test_bad_oauth_values_name_their_field(oauth: dict[str, object], expected: str) -> None:
    assert expected in problems({"r": {"url": "https://h.example/mcp", "oauth": oauth}})


def test_the_fingerprint_covers_the_oauth_settings() -> None:
    (plain,) = parse({"r": {"url": "https://h.example/mcp"}})
    (scoped,) = parse({"r": {"url": "https://h.example/mcp", "oauth": {"scopes": ["x"]}}})

    assert fingerprint(plain) != fingerprint(scoped)  # type: ignore[arg-type]
