"""Masking secrets a server echoes in a tool result without breaking the result's shape.

Only what carries text is masked: text blocks, resource text, resource links' names and
descriptions and URIs, and structured content (its keys too: they are the server's data,
shown to the model like its values). Protocol fields (`type`, base64 data) are never
touched, so a secret that happens to be "text" cannot turn a block into something else; a
media type carrying a secret becomes opaque (json_redaction's rule, well-known types kept).
Should the masked result still not be valid (a URI whose host was a secret), the result
becomes its text alone, masked: the model sees the same words, never the secret.
"""

from __future__ import annotations

from typing import Any

import mcp_types as types

from agent.mcp.client.json_redaction import MEDIA_TYPE_KEY, redact_media_type
from agent.mcp.client.results import tool_result_from_mcp
from agent.redaction import Redactor

_TEXT_FIELDS = ("text", "name", "title", "description", "uri")
_FALLBACK_LIMIT = 10**9  # the caller caps the text later; this only keeps it whole


def redact_result(result: types.CallToolResult, redactor: Redactor) -> types.CallToolResult:
    """`result` with every secret masked where text is; its structure as it was."""
    if not redactor:
        return result
    data = result.model_dump(mode="json", by_alias=True, exclude_unset=True)
    redacted = dict(data)
    redacted["content"] = [_redact_block(block, redactor) for block in data.get("content", [])]
    if data.get("structuredContent") is not None:
        redacted["structuredContent"] = _redact_data(data["structuredContent"], redactor)
    if redacted == data:
        return result
    try:
        return types.CallToolResult.model_validate(redacted)
    except ValueError:  # mcp_types 2.3 keeps URIs as plain strings; a later one may not
        text = redactor.redact(tool_result_from_mcp(result, _FALLBACK_LIMIT).text)
        return types.CallToolResult(
            content=[types.TextContent(type="text", text=text)], is_error=result.is_error
        )


def _redact_block(block: Any, redactor: Redactor) -> Any:
    if not isinstance(block, dict):
        return block
    masked = {
        key: redactor.redact(value) if key in _TEXT_FIELDS and isinstance(value, str) else value
        for key, value in block.items()
    }
    if MEDIA_TYPE_KEY in block:
        masked[MEDIA_TYPE_KEY] = redact_media_type(block[MEDIA_TYPE_KEY], redactor)
    resource = block.get("resource")
    if isinstance(resource, dict):  # an embedded resource: its uri and text, never its blob
        masked["resource"] = _redact_block(resource, redactor)
    return masked


def _redact_data(value: Any, redactor: Redactor) -> Any:
    """JSON data with every string masked, keys included."""
    if isinstance(value, str):
        return redactor.redact(value)
    if isinstance(value, dict):
        return {redactor.redact(k): _redact_data(v, redactor) for k, v in value.items()}
    if isinstance(value, list):
        return [_redact_data(item, redactor) for item in value]
    return value
