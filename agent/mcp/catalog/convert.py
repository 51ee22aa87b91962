"""The SDK's answers (mcp types) -> our dataclasses in entries.py and contents.py.

Secrets are masked on the way; nothing is sanitized (these are the server's words, shown only
through agent/text.py). The only module that knows both shapes, so the others import no mcp.
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Sequence

import mcp_types as types

from agent.errors import ToolCallError
from agent.mcp.catalog.contents import (
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
from agent.mcp.catalog.entries import (
    PromptArgumentInfo,
    PromptInfo,
    ResourceInfo,
    ResourceTemplateInfo,
)

Redact = Callable[[str], str]


# What we keep of a listed entry. Lists are cached for the whole run and shown in menus, so a
# server cannot make us hold megabytes per entry: display text is clipped; an identifier (URI,
# template, prompt or argument name) cannot be clipped without breaking it, so an entry with
# an overlong one is left out (and the listing's note counts it).
MAX_ID_CHARS = 2_048
MAX_NAME_CHARS = 200
MAX_DESCRIPTION_CHARS = 2_000
MAX_PROMPT_ARGUMENTS = 64


def resource_info(resource: types.Resource, redact: Redact) -> ResourceInfo | None:
    """Ours from the SDK's (secrets masked, text clipped); None for an overlong URI."""
    uri = str(resource.uri)
    if len(uri) > MAX_ID_CHARS:
        return None
    return ResourceInfo(
        uri=redact(uri),
        name=_clip(resource.name, MAX_NAME_CHARS, redact),
        title=_optional(resource.title, MAX_NAME_CHARS, redact),
        description=_optional(resource.description, MAX_DESCRIPTION_CHARS, redact),
        mime_type=_optional(resource.mime_type, MAX_NAME_CHARS, redact),
        size=resource.size if resource.size is None or resource.size >= 0 else None,
    )


def template_info(template: types.ResourceTemplate, redact: Redact) -> ResourceTemplateInfo | None:
    """Ours from the SDK's (secrets masked, text clipped); None for an overlong template."""
    uri_template = str(template.uri_template)
    if len(uri_template) > MAX_ID_CHARS:
        return None
    return ResourceTemplateInfo(
        uri_template=redact(uri_template),
        name=_clip(template.name, MAX_NAME_CHARS, redact),
        title=_optional(template.title, MAX_NAME_CHARS, redact),
        description=_optional(template.description, MAX_DESCRIPTION_CHARS, redact),
        mime_type=_optional(template.mime_type, MAX_NAME_CHARS, redact),
    )


def prompt_info(prompt: types.Prompt, redact: Redact) -> PromptInfo | None:
    """Ours from the SDK's (secrets masked, text clipped); None for an overlong name or too
    many arguments."""
    arguments: Sequence[types.PromptArgument] = prompt.arguments or ()
    names = [prompt.name, *(argument.name for argument in arguments)]
    if len(arguments) > MAX_PROMPT_ARGUMENTS or max(map(len, names)) > MAX_ID_CHARS:
        return None
    return PromptInfo(
        name=redact(prompt.name),
        title=_optional(prompt.title, MAX_NAME_CHARS, redact),
        description=_optional(prompt.description, MAX_DESCRIPTION_CHARS, redact),
        arguments=tuple(
            PromptArgumentInfo(
                name=redact(argument.name),
                title=_optional(argument.title, MAX_NAME_CHARS, redact),
                description=_optional(argument.description, MAX_DESCRIPTION_CHARS, redact),
                required=bool(argument.required),
            )
            for argument in arguments
        ),
    )


def _clip(text: str, limit: int, redact: Redact) -> str:
    # Redact first: clipping could cut a secret in half and leave the rest unrecognised.
    text = redact(text)
    return text if len(text) <= limit else text[: limit - 1] + "\u2026"


def _optional(text: str | None, limit: int, redact: Redact) -> str | None:
    return None if text is None else _clip(text, limit, redact)


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
