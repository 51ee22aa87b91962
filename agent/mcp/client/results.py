"""An MCP CallToolResult -> what the model reads: text capped at the output limit, and images.

Text blocks are text; structured content is compact JSON (one line in the terminal's preview);
images become image parts (the request turns them into notes for a model without vision);
audio is a note; resource links are listed with their URIs; embedded resources are their text.
Every image goes through checked_image: a server's "image" that is not base64 of a bounded
size whose bytes are a PNG, JPEG, GIF or WebP is a note, never a part, and the part's type is
what the bytes are, never what the server claims.
"""

from __future__ import annotations

import json

import mcp_types as types

from agent.messages import ImagePart, ToolResult, checked_image, decoded_size
from agent.text import plural


def tool_result_from_mcp(
    result: types.CallToolResult, limit_chars: int, source: str = ""
) -> ToolResult:
    """Text, structured content as JSON, images as parts, the rest as notes; `is_error` kept."""
    parts: list[str] = []
    images: list[ImagePart] = []
    for block in result.content:
        if isinstance(block, types.ImageContent):
            image = checked_image(block.mime_type, block.data, source, len(images))
            if isinstance(image, ImagePart):
                images.append(image)
                parts.append(f"[image: {image.mime_type}, {image.size} bytes]")
            else:
                parts.append(image)
            continue
        parts.append(_block_text(block))
    if result.structured_content is not None:
        structured = _compact(result.structured_content)
        # Servers often repeat the structured result as text; show it once.
        pretty = json.dumps(result.structured_content, ensure_ascii=False, indent=2)
        if structured not in parts and pretty not in parts:
            parts.append(structured)
    text = "\n".join(part for part in parts if part)
    if not text:
        text = "(the tool returned no content)"
    return ToolResult(cap_text(text, limit_chars), is_error=result.is_error, images=tuple(images))


def cap_text(text: str, limit_chars: int) -> str:
    """`text` cut to `limit_chars`, saying that it was cut and by how much."""
    if len(text) <= limit_chars:
        return text
    cut = len(text) - limit_chars
    return (
        f"{text[:limit_chars]}\n[output cut: {limit_chars} of "
        f"{plural(len(text), 'character')} shown, "
        f"{cut} omitted]"
    )


def _compact(value: object) -> str:
    return json.dumps(value, ensure_ascii=False)


def _block_text(block: types.ContentBlock) -> str:
    if isinstance(block, types.TextContent):
        return block.text
    if isinstance(block, types.AudioContent):
        return f"[audio: {block.mime_type}, {decoded_size(block.data) or 0} bytes; not played]"
    if isinstance(block, types.ResourceLink):
        title = f" ({block.name})" if block.name else ""
        return f"[resource link: {block.uri}{title}]"
    if isinstance(block, types.EmbeddedResource):
        resource = block.resource
        if isinstance(resource, types.TextResourceContents):
            return f"[resource: {resource.uri}]\n{resource.text}"
        size = decoded_size(resource.blob) or 0
        return f"[resource: {resource.uri}, {resource.mime_type or 'binary'}, {size} bytes]"
    return f"[{getattr(block, 'type', 'unknown')} content]"
