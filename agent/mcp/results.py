"""An MCP CallToolResult -> the text the model sees, capped at the output limit."""

from __future__ import annotations

import base64
import binascii
import json

import mcp_types as types

from agent.messages import ToolResult


def tool_result_from_mcp(result: types.CallToolResult, limit_chars: int) -> ToolResult:
    """Text as text, structured content as JSON, media as a note; `is_error` kept."""
    parts = [_block_text(block) for block in result.content]
    if result.structured_content is not None:
        structured = json.dumps(result.structured_content, ensure_ascii=False, indent=2)
        # Servers often repeat the structured result as text; show it once.
        if structured not in parts and _compact(result.structured_content) not in parts:
            parts.append(structured)
    text = "\n".join(part for part in parts if part)
    if not text:
        text = "(the tool returned no content)"
    return ToolResult(cap_text(text, limit_chars), is_error=result.is_error)


def cap_text(text: str, limit_chars: int) -> str:
    """`text` cut to `limit_chars`, saying that it was cut and by how much."""
    if len(text) <= limit_chars:
        return text
    cut = len(text) - limit_chars
    return (
        f"{text[:limit_chars]}\n[output cut: {limit_chars} of {len(text)} characters shown, "
        f"{cut} omitted]"
    )


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _block_text(block: types.ContentBlock) -> str:
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.ImageContent):
        return f"[image: {block.mime_type}, {_decoded_size(block.data)} bytes]"
    if isinstance(block, types.AudioContent):
        return f"[audio: {block.mime_type}, {_decoded_size(block.data)} bytes]"
    if isinstance(block, types.ResourceLink):
        title = f" ({block.name})" if block.name else ""
        return f"[resource link: {block.uri}{title}]"
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, types.TextResourceContents):
            return f"[resource: {resource.uri}]\n{resource.text}"
        size = _decoded_size(resource.blob)
        return f"[resource: {resource.uri}, {resource.mime_type or 'binary'}, {size} bytes]"
    return f"[{getattr(block, 'type', 'unknown')} content]"


def _decoded_size(data: str) -> int:
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return len(data)
