"""The SDK's answers (mcp types) -> our dataclasses in catalog.py and contents.py.

Secrets are masked on the way; nothing is sanitized (these are the server's words, shown only
through agent/text.py). The only module that knows both shapes, so the others import no mcp.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence

import mcp_types as types

from agent.errors import ToolCallError
from agent.mcp.catalog import (
    PromptArgumentInfo,
    PromptInfo,
    ResourceInfo,
    ResourceTemplateInfo,
)
from agent.mcp.contents import (
    PromptContent,
    PromptLink,
    PromptMedia,
    PromptMessage,
    PromptResource,
    PromptResult,
    PromptText,
    ResourceBlob,
    ResourcePart,
    ResourceText,
)

Redact = Callable[[str], str]


def resource_info(resource: types.Resource, redact: Redact) -> ResourceInfo:
    """Ours from the SDK's (secrets masked)."""
    return ResourceInfo(
        uri=redact(str(resource.uri)),
        name=redact(resource.name),
        title=_optional(resource.title, redact),
        description=_optional(resource.description, redact),
        mime_type=_optional(resource.mime_type, redact),
        size=resource.size if resource.size is None or resource.size >= 0 else None,
    )


def template_info(template: types.ResourceTemplate, redact: Redact) -> ResourceTemplateInfo:
    """Ours from the SDK's (secrets masked)."""
    return ResourceTemplateInfo(
        uri_template=redact(str(template.uri_template)),
        name=redact(template.name),
        title=_optional(template.title, redact),
        description=_optional(template.description, redact),
        mime_type=_optional(template.mime_type, redact),
    )


def prompt_info(prompt: types.Prompt, redact: Redact) -> PromptInfo:
    """Ours from the SDK's (secrets masked)."""
    arguments: Sequence[types.PromptArgument] = prompt.arguments or ()
    return PromptInfo(
        name=redact(prompt.name),
        title=_optional(prompt.title, redact),
        description=_optional(prompt.description, redact),
        arguments=tuple(
            PromptArgumentInfo(
                name=redact(argument.name),
                title=_optional(argument.title, redact),
                description=_optional(argument.description, redact),
                required=bool(argument.required),
            )
            for argument in arguments
        ),
    )


def _optional(text: str | None, redact: Redact) -> str | None:
    return None if text is None else redact(text)


def resource_parts(
    result: types.ReadResourceResult, server: str, redact: Redact
) -> tuple[ResourcePart, ...]:
    """Ours from resources/read's answer; a blob that is not base64 is the server's error."""
    return tuple(_resource_part(item, server, redact) for item in result.contents)


def prompt_result(result: types.GetPromptResult, server: str, redact: Redact) -> PromptResult:
    """Ours from prompts/get's answer (secrets masked in texts and URIs)."""
    return PromptResult(
        description=None if result.description is None else redact(result.description),
        messages=tuple(
            PromptMessage(
                role=message.role, content=_prompt_content(message.content, server, redact)
            )
            for message in result.messages
        ),
    )


def _resource_part(
    item: types.TextResourceContents | types.BlobResourceContents, server: str, redact: Redact
) -> ResourcePart:
    uri = redact(str(item.uri))
    if isinstance(item, types.TextResourceContents):
        return ResourceText(uri=uri, mime_type=item.mime_type, text=redact(item.text))
    return ResourceBlob(uri=uri, mime_type=item.mime_type, data=_decode(item.blob, server))


def _prompt_content(block: types.ContentBlock, server: str, redact: Redact) -> PromptContent:
    if isinstance(block, types.TextContent):
        return PromptText(redact(block.text))
    if isinstance(block, types.ImageContent):
        return PromptMedia("image", block.mime_type, _decode(block.data, server))
    if isinstance(block, types.AudioContent):
        return PromptMedia("audio", block.mime_type, _decode(block.data, server))
    if isinstance(block, types.EmbeddedResource):
        return PromptResource(_resource_part(block.resource, server, redact))
    if isinstance(block, types.ResourceLink):
        return PromptLink(redact(str(block.uri)), redact(block.name))
    return PromptText(f"[{getattr(block, 'type', 'unknown')} content]")


def _decode(data: str, server: str) -> bytes:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        raise ToolCallError(
            f"MCP server {server!r} sent binary data that is not valid base64"
        ) from None
