"""The `oauth` object of a remote server: how agent identifies itself to its authorization server.

    {"clientId", "clientSecret": "${VAR}", "scopes": [...], "callbackPort", "clientMetadataUrl",
     "grant": "authorization_code" | "client_credentials", "privateKeyFile": "${VAR}",
     "signingAlgorithm": "ES256" | "RS256", "issuer": "https://auth.example.com"}

Cursor's `auth: {"CLIENT_ID", "CLIENT_SECRET", "scopes"}` reads into the same model. The client
secret must be a `${VAR}` reference: mcp-servers.json never holds a secret, and the expanded
value exists only in memory while a request is built. A secret or a key needs `issuer`, the
authorization server it belongs to: it is only ever sent there (oauth/issuer.py), never to
whichever server the resource's metadata names.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any, Literal
from urllib.parse import urlsplit

from agent.errors import Problem
from agent.loopback import goes_direct
from agent.mcp.config.variables import has_references, reference_problems

Grant = Literal["authorization_code", "client_credentials"]
SigningAlgorithm = Literal["ES256", "RS256"]
_GRANTS: tuple[Grant, ...] = ("authorization_code", "client_credentials")
_ALGORITHMS: tuple[SigningAlgorithm, ...] = ("ES256", "RS256")
_FIELDS = (
    "clientId",
    "clientSecret",
    "scopes",
    "callbackPort",
    "clientMetadataUrl",
    "grant",
    "privateKeyFile",
    "signingAlgorithm",
    "issuer",
)
_CURSOR_FIELDS = {
    "CLIENT_ID": "clientId",
    "CLIENT_SECRET": "clientSecret",
    "scopes": "scopes",
    "issuer": "issuer",  # not Cursor's, but a secret needs it here
}


@dataclass(frozen=True)
class OAuthConfig:
    """What the person configured about a server's OAuth client; every field optional."""

    client_id: str | None = None
    client_secret: str | None = None  # always a ${VAR} reference
    scopes: tuple[str, ...] = ()
    callback_port: int | None = None
    client_metadata_url: str | None = None
    grant: Grant = "authorization_code"
    private_key_file: str | None = None
    signing_algorithm: SigningAlgorithm | None = None
    issuer: str | None = None  # the authorization server a secret or key belongs to

    def to_json(self) -> dict[str, Any]:
        """The canonical `oauth` object: camelCase, unset fields left out."""
        data: dict[str, Any] = {}
        for key, value in (
            ("clientId", self.client_id),
            ("clientSecret", self.client_secret),
            ("scopes", list(self.scopes) or None),
            ("callbackPort", self.callback_port),
            ("clientMetadataUrl", self.client_metadata_url),
            ("grant", None if self.grant == "authorization_code" else self.grant),
            ("privateKeyFile", self.private_key_file),
            ("signingAlgorithm", self.signing_algorithm),
            ("issuer", self.issuer),
        ):
            if value is not None:
                data[key] = value
        return data


def parse_oauth(raw: object, path: str, problems: list[Problem]) -> OAuthConfig | None:
    """Validate an `oauth` object; append problems (with their paths); None if unusable."""
    if not isinstance(raw, dict):
        problems.append(Problem(path, "expected an object (clientId, clientSecret, scopes, ...)"))
        return None
    before = len(problems)
    for key in raw:
        if key not in _FIELDS:
            problems.append(
                Problem(f"{path}.{key}", f"unknown field; known fields: {', '.join(_FIELDS)}")
            )
    config = OAuthConfig(
        client_id=_text(raw.get("clientId"), f"{path}.clientId", problems),
        client_secret=_secret(raw.get("clientSecret"), f"{path}.clientSecret", problems),
        scopes=_scopes(raw.get("scopes"), f"{path}.scopes", problems),
        callback_port=_port(raw.get("callbackPort"), f"{path}.callbackPort", problems),
        client_metadata_url=_metadata_url(
            raw.get("clientMetadataUrl"), f"{path}.clientMetadataUrl", problems
        ),
        grant=_choice(raw.get("grant"), f"{path}.grant", _GRANTS, problems) or "authorization_code",
        private_key_file=_secret(raw.get("privateKeyFile"), f"{path}.privateKeyFile", problems),
        signing_algorithm=_choice(
            raw.get("signingAlgorithm"), f"{path}.signingAlgorithm", _ALGORITHMS, problems
        ),
        issuer=_issuer(raw.get("issuer"), f"{path}.issuer", problems),
    )
    _check_combination(config, path, problems)
    return config if len(problems) == before else None


def parse_cursor_auth(raw: object, path: str, problems: list[Problem]) -> OAuthConfig | None:
    """Cursor's `auth: {CLIENT_ID, CLIENT_SECRET, scopes}`, read into the same model."""
    if not isinstance(raw, dict):
        problems.append(
            Problem(path, "expected an object (CLIENT_ID, CLIENT_SECRET, scopes, issuer)")
        )
        return None
    renamed: dict[str, Any] = {}
    for key, value in raw.items():
        if key not in _CURSOR_FIELDS:
            known = ", ".join(_CURSOR_FIELDS)
            problems.append(Problem(f"{path}.{key}", f"unknown field; known fields: {known}"))
            continue
        renamed[_CURSOR_FIELDS[key]] = value
    return parse_oauth(renamed, path, problems)


def missing_issuer(config: OAuthConfig | None) -> str | None:
    """What to say when a secret or key has no `issuer` to bind it to, else None.

    Without one the resource server's metadata would decide where the secret goes. Imports
    and edits refuse it (config/document.py); a definition saved before the field existed loads, so
    the person's other servers keep working, and refuses to connect (launch.py).
    """
    if config is None or config.issuer is not None:
        return None
    if config.client_secret is None and config.private_key_file is None:
        return None
    credential = "clientSecret" if config.client_secret is not None else "privateKeyFile"
    return (
        f"required with {credential}; set it to the authorization server's issuer URL "
        "(the credentials are only ever sent there)"
    )


def _check_combination(config: OAuthConfig, path: str, problems: list[Problem]) -> None:
    if config.grant == "client_credentials":
        if config.client_id is None:
            problems.append(Problem(f"{path}.clientId", "required for grant client_credentials"))
        if config.client_secret is None and config.private_key_file is None:
            problems.append(
                Problem(path, "grant client_credentials needs clientSecret or privateKeyFile")
            )
        if config.client_secret is not None and config.private_key_file is not None:
            problems.append(Problem(path, "give clientSecret or privateKeyFile, not both"))
    elif config.private_key_file is not None:
        problems.append(
            Problem(f"{path}.privateKeyFile", "only used with grant client_credentials")
        )
    if config.signing_algorithm is not None and config.private_key_file is None:
        problems.append(Problem(f"{path}.signingAlgorithm", "only used with privateKeyFile"))


def _text(value: object, path: str, problems: list[Problem]) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        problems.append(Problem(path, "expected a non-empty string"))
        return None
    if has_references(value) or "\0" in value:
        problems.append(Problem(path, "write the value literally (no ${VAR} references)"))
        return None
    return value


def _secret(value: object, path: str, problems: list[Problem]) -> str | None:
    if value is None:
        return None
    if not isinstance(value, str) or not value.strip():
        problems.append(Problem(path, "expected a ${VAR} reference"))
        return None
    if not has_references(value):
        # Written literally it would be stored in mcp-servers.json and shown by export.
        problems.append(
            Problem(
                path,
                "must be a ${VAR} reference (e.g. ${MY_CLIENT_SECRET}) so the secret stays in "
                "your environment and out of mcp-servers.json",
            )
        )
        return None
    found = reference_problems(value, secret=True)  # a secret pasted in braces is not quoted
    problems.extend(Problem(path, message) for message in found)
    return None if found else value


def _scopes(value: object, path: str, problems: list[Problem]) -> tuple[str, ...]:
    if value is None:
        return ()
    if isinstance(value, str):  # Cursor and some IdP docs write one space-separated string
        value = value.split()
    if not isinstance(value, list) or not all(
        isinstance(item, str) and item and not any(c.isspace() for c in item) for item in value
    ):
        problems.append(Problem(path, "expected a list of scope names without spaces"))
        return ()
    return tuple(value)


def _port(value: object, path: str, problems: list[Problem]) -> int | None:
    if value is None:
        return None
    if type(value) is not int or not 1 <= value <= 65535:
        problems.append(Problem(path, "expected a port number from 1 to 65535"))
        return None
    return value


def _metadata_url(value: object, path: str, problems: list[Problem]) -> str | None:
    text = _text(value, path, problems)
    if text is None:
        return None
    parts = urlsplit(text)
    if parts.scheme != "https" or not parts.hostname or parts.path in ("", "/"):
        problems.append(
            Problem(path, "must be an https:// URL with a path (a client ID metadata document)")
        )
        return None
    return text


def _issuer(value: object, path: str, problems: list[Problem]) -> str | None:
    text = _text(value, path, problems)
    if text is None:
        return None
    parts = urlsplit(text)
    # RFC 8414 section 2: an http(s) URL with a host and no query or fragment; it is compared
    # as a string with the issuer the authorization server's metadata names.
    if (
        parts.scheme not in ("https", "http")
        or not parts.hostname
        or parts.query
        or (parts.fragment or "#" in text)
    ):
        problems.append(
            Problem(
                path,
                "must be the authorization server's issuer URL (https://..., no query or "
                "fragment), exactly as its metadata names it",
            )
        )
        return None
    if parts.scheme == "http" and not goes_direct(text):
        # The secret goes to this server: over plain http anyone on the way could read it
        # (oauth/secure.py would refuse each request; better to say so here, by field).
        problems.append(
            Problem(
                path,
                "must be https:// (plain http only to this machine: localhost, 127.0.0.1, "
                "::1), or the secret could be read on the way",
            )
        )
        return None
    return text


def _choice(value: object, path: str, allowed: tuple[Any, ...], problems: list[Problem]) -> Any:
    if value is None:
        return None
    if value not in allowed:
        problems.append(Problem(path, f"expected one of: {', '.join(allowed)}"))
        return None
    return value
