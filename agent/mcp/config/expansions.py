"""The secrets a definition brings in through `${VAR}` references, wherever they appear.

Env and header values are secrets by their place; a variable expanded into an argument, a
URL or a working directory is one too (`postgres://u:${DB_PASS}@h`), though the rest of
that argument is not. So the values of every referenced environment variable are secrets.
"""

from __future__ import annotations

from collections.abc import Iterable

from agent.mcp.config.command_definitions import CommandsDefinition
from agent.mcp.config.definitions import ServerDefinition, StdioDefinition
from agent.mcp.config.variables import Expander, referenced_variables


def expanded_secrets(definition: ServerDefinition, expander: Expander) -> list[str]:
    """The values of the environment variables the definition refers to (set ones only)."""
    if isinstance(definition, StdioDefinition):
        fields: Iterable[str] = (
            definition.command,
            *definition.args,
            definition.cwd or "",
            *definition.env.values(),
        )
    elif isinstance(definition, CommandsDefinition):
        fields = (definition.cwd or "", *definition.env.values())
    else:
        oauth = definition.oauth
        secrets = (oauth.client_secret or "", oauth.private_key_file or "") if oauth else ()
        fields = (definition.url, *definition.headers.values(), *secrets)
    values = []
    for text in fields:
        for name in referenced_variables(text):
            value = expander.environ.get(name)
            if value:
                values.append(value)
    return list(dict.fromkeys(values))
