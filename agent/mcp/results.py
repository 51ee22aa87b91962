"""An MCP CallToolResult -> what the model reads: text capped at the output limit, and images.

Text blocks are text; structured content is compact JSON (one line in the terminal's preview);
images become image parts (the request turns them into notes for a model without vision);
audio is a note; resource links are listed with their URIs; embedded resources are their text.
Every image's data is checked here: a server's "image" that is not base64 of a bounded size
with an image type is a note, never a part.
"""

from __future__ import annotations

import base64
import binascii
import json

import mcp_types as types

from agent.messages import ImagePart, ToolResult

MAX_IMAGE_BYTES = 5 * 1024 * 1024  # the smallest provider limit (Anthropic's); larger fails there
MAX_IMAGES = 8  # per result or attachment: more is a note each, not a request too big to send


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


def checked_image(mime_type: str, data: str, source: str, count: int) -> ImagePart | str:
    """An image part when `data` is base64 of an image within the limits, else a note why not."""
    size = decoded_size(data)
    if not mime_type.lower().startswith("image/"):
        return f"[image not sent: its type {mime_type!r} is not an image type]"
    if size is None:
        return f"[image not sent: its data ({mime_type}) is not valid base64]"
    if size > MAX_IMAGE_BYTES:
        return f"[image not sent: {mime_type}, {size} bytes is over {MAX_IMAGE_BYTES} bytes]"
    if count >= MAX_IMAGES:
        return f"[image not sent: {mime_type}, {size} bytes; only {MAX_IMAGES} are sent at once]"
    return ImagePart(mime_type, data, source)


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


def decoded_size(data: str) -> int | None:
    """The byte size base64 `data` decodes to; None when it is not base64."""
    try:
        return len(base64.b64decode(data, validate=True))
    except (binascii.Error, ValueError):
        return None
