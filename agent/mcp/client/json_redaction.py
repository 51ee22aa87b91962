"""The masking rules on a server's JSON: which strings are its words (masked), which are
protocol or names we must send back as they were (kept, or the thing is refused), and media
types (kept when well known, else opaque when they carry a secret).

Plain JSON in and out, no SDK types: the answers of a live connection (client/answer_redaction.py)
and the tools cached in mcp-servers.json (cache_redaction.py) are masked by the same rules.
"""

from __future__ import annotations

from typing import Any

from agent.redaction import Redactor

# Kept as they are: enums the SDK validates (type, role, mode, and protocolVersion, which it
# checks against the versions it speaks), base64 payloads, and the cursor we send back.
_PROTOCOL_KEYS = frozenset(
    {"type", "data", "blob", "protocolVersion", "nextCursor", "role", "mode"}
)
# A media type is a protocol fact the notes on results and listings quote, so it is never
# masked into "***/plain" (a secret that is a plain word, "text", must not change what a
# thing is) yet never says a secret: one the redactor would change becomes OPAQUE_TYPE.
MEDIA_TYPE_KEY = "mimeType"
OPAQUE_TYPE = "application/octet-stream"
# Kept as they are whatever the secrets: they are what clients decide on (show the text,
# send the image), and a secret equal to one of their words must not turn them opaque.
_WELL_KNOWN_TYPES = frozenset(
    {
        "text/plain", "text/markdown", "text/html", "text/csv", "text/css", "text/xml",
        "text/javascript", "application/json", "application/xml", "application/pdf",
        "application/octet-stream", "image/png", "image/jpeg", "image/gif", "image/webp",
        "image/svg+xml", "audio/wav", "audio/x-wav", "audio/mpeg", "audio/ogg", "audio/webm",
        "audio/flac", "video/mp4",
    }
)  # fmt: skip
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


URL_PROBLEM = (
    "its URL carries a secret of this server's configuration (masked, it would lead somewhere else)"
)


class UnmaskableError(ValueError):
    """A secret where masking would change what something is: a name, a schema's structure."""


def redact_media_type(value: Any, redactor: Redactor) -> Any:
    """A media type as it was, unless it carries a secret: then OPAQUE_TYPE, or a well-known
    type without the parameters that carry it (`text/plain; charset=SECRET`)."""
    if not isinstance(value, str) or redactor.redact(value) == value:
        return value
    base, _, parameters = value.partition(";")
    if base.strip().lower() not in _WELL_KNOWN_TYPES:
        return OPAQUE_TYPE
    return value if redactor.redact(parameters) == parameters else base.strip()


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
            if not free and key == MEDIA_TYPE_KEY:
                masked[key] = redact_media_type(item, redactor)
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
