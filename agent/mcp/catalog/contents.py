"""What resources/read and prompts/get return, as plain dataclasses of ours.

Everything here is the server's: texts, URIs, claimed MIME types. Secrets are masked; nothing
is sanitized (the caller decides how to show it). A blob's bytes are decoded once; its claimed
MIME type is kept as claimed, and `image_type` says what the bytes really are, so a "PNG"
that is not one never reaches a model as an image.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Literal

from agent.messages import sniff_image


@dataclass(frozen=True)
class ResourceText:
    """A text part of a resource."""

    uri: str
    mime_type: str | None
    text: str


@dataclass(frozen=True)
class ResourceBlob:
    """A binary part of a resource: its bytes, decoded from base64."""

    uri: str
    mime_type: str | None  # as the server claims it
    data: bytes = field(repr=False)

    @property
    def size(self) -> int:
        """Bytes."""
        return len(self.data)

    @property
    def image_type(self) -> str | None:
        """The image type the bytes really are (PNG, JPEG, GIF, WebP), else None."""
        return sniff_image(self.data)


ResourcePart = ResourceText | ResourceBlob


@dataclass(frozen=True)
class PromptText:
    """Text in a prompt message."""

    text: str


@dataclass(frozen=True)
class PromptMedia:
    """An image or audio clip in a prompt message; `mime_type` as the server claims it."""

    kind: Literal["image", "audio"]
    mime_type: str
    data: bytes = field(repr=False)

    @property
    def image_type(self) -> str | None:
        """The image type the bytes really are, else None (so also None for audio)."""
        return sniff_image(self.data) if self.kind == "image" else None


@dataclass(frozen=True)
class PromptResource:
    """A resource embedded in a prompt message."""

    part: ResourcePart


@dataclass(frozen=True)
class PromptLink:
    """A link to a resource (not its contents) in a prompt message."""

    uri: str
    name: str


PromptContent = PromptText | PromptMedia | PromptResource | PromptLink


@dataclass(frozen=True)
class PromptMessage:
    """One message of a prompt: who says it and what."""

    role: Literal["user", "assistant"]
    content: PromptContent


@dataclass(frozen=True)
class PromptResult:
    """What prompts/get returned."""

    description: str | None
    messages: tuple[PromptMessage, ...]
