"""The masking rules on a server's JSON: which strings are its words (masked), which are
protocol or names we must send back as they were (kept, or the thing is refused).

Plain JSON in and out, no SDK types: the answers of a live connection (answer_redaction.py)
and the tools cached in mcp-servers.json (cache_redaction.py) are masked by the same rules.
"""

from __future__ import annotations

from typing import Any

from agent.redaction import Redactor

_PROTOCOL_KEYS = frozenset(
    {"type", "mimeType", "data", "blob", "protocolVersion", "nextCursor", "role", "mode"}
)
# Objects whose keys are the server's own data, masked like its values.
_FREE_KEYS = frozenset({"_meta", "experimental", "structuredContent"})
_SCHEMA_WORDS = frozenset({"title", "description", "default", "examples", "enum", "const"})
# Schema keywords whose value maps names (property names, definitions) to schemas.
_NAMED_SCHEMAS = frozenset(
    {"properties", "patternProperties", "$defs", "definitions", "dependentSchemas"}
)

NAME_PROBLEM = (
    "its name carries a secret of the server's configuration (masked, it could not be called)"
)
INPUT_PROBLEM = (
    "an argument name or a keyword of its input schema carries a secret of the server's "
    "configuration (masked, the tool could not be called as the server means it)"
)
OUTPUT_PROBLEM = (
    "a name or a keyword of its output schema carries a secret of the server's configuration"
)
FORM_PROBLEM = (
    "a field name or a keyword of its schema carries a secret of this server's configuration "
    "(masked, the answer would not fit the form)"
)


class UnmaskableError(ValueError):
    """A secret where masking would change what something is: a name, a schema's structure."""


def redact_json(value: Any, redactor: Redactor, free: bool = False) -> Any:
    """JSON data with every string masked but protocol fields; keys too where `free` (or
    under an object whose keys are the server's data)."""
    if isinstance(value, str):
        return redactor.redact(value)
    if isinstance(value, list):
        return [redact_json(item, redactor, free) for item in value]
    if isinstance(value, dict):
        masked: dict[str, Any] = {}
        for key, item in value.items():
            if not free and key in _PROTOCOL_KEYS:
                masked[key] = item
                continue
            name = redactor.redact(key) if free else key
            masked[name] = redact_json(item, redactor, free or key in _FREE_KEYS)
        return masked
    return value


def redact_schema(schema: Any, redactor: Redactor) -> Any:
    """A JSON Schema with its words and example data masked; UnmaskableError (without a
    message) when a secret is anywhere else: in a name, a pattern, a type, a reference."""
    if isinstance(schema, str):
        if redactor.redact(schema) != schema:
            raise UnmaskableError
        return schema
    if isinstance(schema, list):
        return [redact_schema(item, redactor) for item in schema]
    if not isinstance(schema, dict):
        return schema
    masked: dict[str, Any] = {}
    for key, value in schema.items():
        if redactor.redact(key) != key:
            raise UnmaskableError
        if key in _SCHEMA_WORDS:
            masked[key] = redact_json(value, redactor, free=True)
        elif key in _NAMED_SCHEMAS and isinstance(value, dict):
            if any(redactor.redact(name) != name for name in value):
                raise UnmaskableError
            masked[key] = {name: redact_schema(sub, redactor) for name, sub in value.items()}
        else:
            masked[key] = redact_schema(value, redactor)
    return masked


def checked_schema(schema: Any, redactor: Redactor, problem: str) -> Any:
    """`redact_schema`, its UnmaskableError saying `problem`."""
    try:
        return redact_schema(schema, redactor)
    except UnmaskableError:
        raise UnmaskableError(problem) from None
