"""Which secrets mask a cached listing, and what masking a cache keeps (cache_redaction.py)."""

from __future__ import annotations

from dataclasses import replace
from pathlib import Path

from agent.mcp.cache_redaction import known_secrets, masked_state
from agent.mcp.client.json_redaction import INPUT_PROBLEM, NAME_PROBLEM
from agent.mcp.config.definitions import ServerDefinition
from agent.mcp.config.document import parse_document_data
from agent.mcp.config.variables import Expander
from agent.mcp.oauth.token_store import TokenStore
from agent.mcp.store import CachedTool, ServerState

URL = "https://mcp.example/mcp?key=query-key-1"


def expander(tmp_path: Path, **environ: str) -> Expander:
    return Expander(
        environ={"HOME": str(tmp_path), "PATH": "/usr/bin", **environ},
        user_home=str(tmp_path),
        workspace_folder=str(tmp_path),
    )


def definition(server: dict[str, object]) -> ServerDefinition:
    return parse_document_data({"mcpServers": {"s": server}}, "test").definitions[0]


def test_a_remote_servers_literal_header_query_value_and_stored_tokens_are_secrets(
    agent_home: Path, tmp_path: Path
) -> None:
    remote = definition({"url": URL, "headers": {"Authorization": "Bearer literal-tok-1"}})
    tokens = {"access_token": "oauth-access-1", "refresh_token": "oauth-refresh-1"}
    TokenStore().update("s", URL, lambda record: replace(record, tokens=tokens))

    secrets = known_secrets(remote, expander(tmp_path))

    assert set(secrets) >= {"literal-tok-1", "query-key-1", "oauth-access-1", "oauth-refresh-1"}


def test_a_local_servers_variables_count_but_an_inherited_home_does_not(tmp_path: Path) -> None:
    local = definition(
        {
            "command": "python3",
            "args": ["--dsn", "pg://u:${DB_PASS}@h", "${HOME}"],
            "cwd": "/nowhere",
        }
    )

    secrets = known_secrets(local, expander(tmp_path, DB_PASS="db-pass-1"))

    assert secrets == ["db-pass-1"]  # its missing folder keeps it from starting, not from this


def test_a_cache_is_masked_and_a_tool_it_cannot_mask_leaves_the_selection(tmp_path: Path) -> None:
    local = definition({"command": "python3", "env": {"TOKEN": "${TOK}"}})
    cached = (
        CachedTool("q", "uses tok-value-1", {"type": "object"}, {"title": "tok-value-1"}),
        CachedTool("login_tok-value-1", None, {"type": "object"}),
        CachedTool("c", None, {"type": "object", "properties": {"tok-value-1": {}}}),
    )
    state = ServerState(True, ("q", "login_tok-value-1", "c"), cached)

    masked = masked_state(local, state, expander(tmp_path, TOK="tok-value-1"))

    assert masked.state == ServerState(
        True, ("q",), (CachedTool("q", "uses ***", {"type": "object"}, {"title": "***"}),)
    )
    assert masked.withheld == {"login_***": NAME_PROBLEM, "c": INPUT_PROBLEM}
