"""Masking the tools cached in mcp-servers.json on their way out, with the secrets known here.

A live connection masks every listing before it is cached (client/answer_redaction.py), but a
chat offers cached tools before a server lists them again (an HTTP server is not connected
until a request uses it; a cache hint may spare a listing), and a cache may be older than that
masking or have been listed while a secret was not yet one of the definition's. So whatever
offers or shows cached tools masks them first, by the same rules (client/json_redaction.py),
with the secrets the definition has here and now: its `${VAR}` values, its env, header and URL
secrets, and its stored OAuth tokens. A cached tool whose name or argument names carry one is
withheld, like a listed one.

No SDK import: `agent mcp tools` shows a cache without loading mcp.
"""

from __future__ import annotations

import contextlib
from dataclasses import dataclass, field, replace

from agent.errors import AgentError
from agent.mcp.client.json_redaction import (
    INPUT_PROBLEM,
    NAME_PROBLEM,
    UnmaskableError,
    checked_schema,
    redact_json,
)
from agent.mcp.config.definitions import HttpDefinition, ServerDefinition
from agent.mcp.config.expansions import expanded_secrets
from agent.mcp.config.launch import expand_definition, inherited_environment
from agent.mcp.config.launch_secrets import without_ordinary
from agent.mcp.config.variables import Expander
from agent.mcp.store import CachedTool, ServerState
from agent.redaction import Redactor, redactor


@dataclass(frozen=True)
class MaskedState:
    """A server's state with its cached tools masked, and the cached tools withheld
    (masked name -> why)."""

    state: ServerState
    withheld: dict[str, str] = field(default_factory=dict)


def known_secrets(definition: ServerDefinition, expander: Expander) -> list[str]:
    """The secrets of `definition` known without starting it: what its connection masks,
    with the OAuth tokens stored for it instead of those it would learn."""
    inherited = inherited_environment(expander.environ)
    values = without_ordinary(expanded_secrets(definition, expander), inherited)
    # An unset variable or a missing folder: it cannot start here, but its other secrets count.
    with contextlib.suppress(AgentError):
        values.extend(expand_definition(definition, expander).secrets())
    if isinstance(definition, HttpDefinition):
        values.extend(_stored_tokens(definition, expander))
    return list(dict.fromkeys(values))


def masked_state(
    definition: ServerDefinition, state: ServerState, expander: Expander
) -> MaskedState:
    """`state` with every cached tool masked of the definition's secrets; a tool that cannot
    be (a secret in its name or argument names) is left out of it and said in `withheld`."""
    if not state.cached_tools:
        return MaskedState(state)
    masking = redactor(known_secrets(definition, expander))
    if not masking:
        return MaskedState(state)
    kept: list[CachedTool] = []
    withheld: dict[str, str] = {}
    for tool in state.cached_tools:
        try:
            kept.append(_masked_tool(tool, masking))
        except UnmaskableError as error:
            withheld[masking.redact(tool.name)] = str(error)
    shown = {tool.name for tool in kept}
    return MaskedState(
        replace(
            state,
            cached_tools=tuple(kept),
            enabled_tools=tuple(name for name in state.enabled_tools if name in shown),
        ),
        withheld,
    )


def _masked_tool(tool: CachedTool, masking: Redactor) -> CachedTool:
    if masking.redact(tool.name) != tool.name:
        raise UnmaskableError(NAME_PROBLEM)
    return CachedTool(
        name=tool.name,
        description=None if tool.description is None else masking.redact(tool.description),
        input_schema=checked_schema(tool.input_schema, masking, INPUT_PROBLEM),
        annotations=None if tool.annotations is None else redact_json(tool.annotations, masking),
    )


def _stored_tokens(definition: HttpDefinition, expander: Expander) -> list[str]:
    from agent.mcp.oauth.token_key import token_key
    from agent.mcp.oauth.token_store import TokenStore

    key = token_key(definition, expander)
    if key is None:
        return []
    try:
        record = TokenStore().get(definition.name, key)
    except AgentError:  # a damaged token file is reported where tokens are used
        return []
    if record is None:
        return []
    return [token for token in (record.access_token(), record.refresh_token()) if token]
