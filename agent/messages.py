"""The shared vocabulary of a chat: messages, tool calls, tool results, usage. No I/O here."""

from __future__ import annotations

import base64
import binascii
import json
import uuid
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass, field, replace
from typing import Any, Literal

from agent.depth import MAX_DEPTH, too_deep
from agent.text import plural

Role = Literal["system", "user", "assistant", "tool"]

CHARS_PER_TOKEN = 4  # a rough, provider-independent estimate (compaction; usage a server omits)


def estimate_tokens(messages: Sequence[dict[str, Any]]) -> int:
    """A rough token count of a request's messages."""
    return len(json.dumps(messages, ensure_ascii=False)) // CHARS_PER_TOKEN


@dataclass(frozen=True)
class ToolCall:
    """One tool call proposed by the model; `arguments` is the raw JSON text it sent."""

    id: str
    name: str
    arguments: str = "{}"

    def to_openai(self) -> dict[str, Any]:
        return {
            "id": self.id,
            "type": "function",
            "function": {"name": self.name, "arguments": self.arguments},
        }


@dataclass(frozen=True)
class TextPart:
    """Text attached to a message (an attached resource, a prompt's embedded resource)."""

    text: str

    def to_json(self) -> dict[str, Any]:
        """The part as a session file holds it."""
        return {"type": "text", "text": self.text}


@dataclass(frozen=True)
class ImagePart:
    """An image attached to a message: base64 data as the server or file gave it."""

    mime_type: str
    data: str  # base64
    source: str = ""  # where it came from, for the note a text-only model reads

    @property
    def size(self) -> int:
        """The decoded size in bytes, from the base64 length (no decoding needed)."""
        padding = len(self.data) - len(self.data.rstrip("="))
        return max(0, len(self.data) * 3 // 4 - padding)

    def note(self, why: str) -> str:
        """What a model reads in the image's place."""
        source = f" from {self.source}" if self.source else ""
        return f"[image{source}: {self.mime_type}, {self.size} bytes; {why}]"

    def to_openai(self) -> dict[str, Any]:
        """The image as an OpenAI content part (litellm translates it for each provider)."""
        url = f"data:{self.mime_type};base64,{self.data}"
        return {"type": "image_url", "image_url": {"url": url}}

    def to_json(self) -> dict[str, Any]:
        """The part as a session event holds it (the store keeps the data beside the file)."""
        return {
            "type": "image",
            "mime_type": self.mime_type,
            "data": self.data,
            "source": self.source,
        }


Part = TextPart | ImagePart
NO_VISION = "not shown: this model does not accept images"


def part_from_json(data: object) -> Part:
    """A saved part; ValueError says what is malformed."""
    if not isinstance(data, dict):
        raise ValueError("a message part must be an object")
    kind = data.get("type")
    if kind == "text" and isinstance(data.get("text"), str):
        return TextPart(data["text"])
    if kind == "image":
        fields = [data.get(key) for key in ("mime_type", "data")]
        source = data.get("source", "")
        if all(isinstance(value, str) for value in fields) and isinstance(source, str):
            return ImagePart(str(fields[0]), str(fields[1]), source)
    raise ValueError(f"a message part of type {kind!r} is malformed")


MAX_IMAGE_BYTES = 5 * 1024 * 1024  # the smallest provider limit (Anthropic's); larger fails there
MAX_IMAGES = 8  # per result or attachment: more is a note each, not a request too big to send
_CLAIM_CHARS = 80


# Magic numbers of the image formats models accept (and litellm passes on).
_IMAGE_MAGIC = (
    (b"\x89PNG\r\n\x1a\n", "image/png"),
    (b"\xff\xd8\xff", "image/jpeg"),
    (b"GIF87a", "image/gif"),
    (b"GIF89a", "image/gif"),
)


def sniff_image(data: bytes) -> str | None:
    """The MIME type of an image by its first bytes; None when it is not one we know."""
    for magic, mime in _IMAGE_MAGIC:
        if data.startswith(magic):
            return mime
    if data[:4] == b"RIFF" and data[8:12] == b"WEBP":
        return "image/webp"
    return None


def checked_image(claimed: str, data: str, source: str, count: int) -> ImagePart | str:
    """An image part when `data` is base64 of an image within the limits, else a note why not.

    The part's type is what the bytes are, never what was `claimed`: a provider refuses a
    request whose image is not the type it says (and then every later request of the session,
    which still holds it), so a server's "image/png" that is text, or an SVG, is a note.
    """
    if not claimed.lower().startswith("image/"):
        return f"[image not sent: its type {_quoted(claimed)} is not an image type]"
    raw = _decoded(data)
    if raw is None:
        return f"[image not sent: its data ({claimed}) is not valid base64]"
    real = sniff_image(raw)
    if real is None:
        return (
            f"[image not sent: called {_quoted(claimed)}, but its "
            f"{plural(len(raw), 'byte')} are not a PNG, "
            "JPEG, GIF or WebP image]"
        )
    if len(raw) > MAX_IMAGE_BYTES:
        return (
            f"[image not sent: {real}, {plural(len(raw), 'byte')} is over {MAX_IMAGE_BYTES} bytes]"
        )
    if count >= MAX_IMAGES:
        return (
            f"[image not sent: {real}, {plural(len(raw), 'byte')}; only {MAX_IMAGES} are sent "
            "at once]"
        )
    return ImagePart(real, data, source)


def _quoted(claimed: str) -> str:
    # The claim is the server's text: bounded, and quoted so its escapes stay visible.
    return repr(claimed[:_CLAIM_CHARS] + ("…" if len(claimed) > _CLAIM_CHARS else ""))


def _decoded(data: str) -> bytes | None:
    try:
        return base64.b64decode(data, validate=True)
    except (binascii.Error, ValueError):
        return None


def decoded_size(data: str) -> int | None:
    """The byte size base64 `data` decodes to; None when it is not base64."""
    raw = _decoded(data)
    return None if raw is None else len(raw)


@dataclass(frozen=True)
class ToolResult:
    """What a tool gives back to the model: text, images, and whether it is an error."""

    text: str
    is_error: bool = False
    images: tuple[ImagePart, ...] = ()


@dataclass(frozen=True)
class Message:
    """One message of the history, in the OpenAI chat shape litellm accepts for every provider.

    `parts` are what was attached to it: for the person's message, resources they chose
    (sent as content parts after their text); for a tool result, its images.
    """

    role: Role
    content: str | None = None
    tool_calls: tuple[ToolCall, ...] = ()
    tool_call_id: str | None = None  # for role "tool": the call this answers
    parts: tuple[Part, ...] = ()

    def to_openai(self, images: bool = True) -> dict[str, Any]:
        """The message for a request; `images` False turns each image into a note."""
        data: dict[str, Any] = {"role": self.role, "content": self._content(images)}
        if self.tool_calls:
            data["tool_calls"] = [call.to_openai() for call in self.tool_calls]
        if self.tool_call_id is not None:
            data["tool_call_id"] = self.tool_call_id
        return data

    def _content(self, images: bool) -> str | list[dict[str, Any]] | None:
        if not self.parts:
            return self.content
        if self.role == "tool":
            # OpenAI takes only text from a tool; its images follow in a user message.
            texts = [part.text for part in self.parts if isinstance(part, TextPart)]
            if self.images():
                texts.append(
                    "[its images follow in the next user message]"
                    if images
                    else f"[its images are {NO_VISION}]"
                )
            return "\n".join([self.content or "", *texts]).strip("\n")
        content = [{"type": "text", "text": self.content}] if self.content else []
        for part in self.parts:
            if isinstance(part, TextPart):
                content.append(part.to_json())
            elif images:
                content.append(part.to_openai())
            else:
                content.append({"type": "text", "text": part.note(NO_VISION)})
        return content

    def images(self) -> tuple[ImagePart, ...]:
        """The images attached to this message."""
        return tuple(part for part in self.parts if isinstance(part, ImagePart))


def user_message(text: str, parts: Iterable[Part] = ()) -> Message:
    """A message the person typed, with what they attached."""
    return Message("user", text, parts=tuple(parts))


def tool_message(call: ToolCall, result: ToolResult) -> Message:
    """The answer to one tool call, as the model will read it."""
    text = f"Error: {result.text}" if result.is_error else result.text
    return Message("tool", text, tool_call_id=call.id, parts=result.images)


def openai_messages(
    messages: Iterable[Message], accepts_images: Callable[[], bool]
) -> list[dict[str, Any]]:
    """The history as a request sends it.

    OpenAI's chat format allows images only in user messages (litellm passes tool messages
    through unchanged for OpenAI-compatible providers), so the images of a round of tool
    results follow that round in one user message, each labelled with its call.
    `accepts_images` is asked only when an image is present (it may load litellm).
    """
    vision: list[bool] = []

    def images() -> bool:
        if not vision:
            vision.append(accepts_images())
        return vision[0]

    sent: list[dict[str, Any]] = []
    waiting: list[dict[str, Any]] = []  # image parts of the current round of tool results
    for message in messages:
        if message.role != "tool" and waiting:
            sent.append({"role": "user", "content": waiting})
            waiting = []
        found = message.images()
        allowed = images() if found else True
        sent.append(message.to_openai(allowed))
        if message.role == "tool" and found and allowed:
            for image in found:
                label = f"[image from the result of tool call {message.tool_call_id}]"
                waiting += [{"type": "text", "text": label}, image.to_openai()]
    if waiting:
        sent.append({"role": "user", "content": waiting})
    return sent


@dataclass(frozen=True)
class Usage:
    """Tokens (and cost in USD when the price is known) of one model request or a sum of them."""

    prompt_tokens: int = 0
    completion_tokens: int = 0
    cost_usd: float | None = None

    def __add__(self, other: Usage) -> Usage:
        cost = None
        if self.cost_usd is not None or other.cost_usd is not None:
            cost = (self.cost_usd or 0.0) + (other.cost_usd or 0.0)
        return Usage(
            self.prompt_tokens + other.prompt_tokens,
            self.completion_tokens + other.completion_tokens,
            cost,
        )

    def to_json(self) -> dict[str, Any]:
        """The usage fields as session files and one-shot JSON output hold them."""
        return {
            "prompt_tokens": self.prompt_tokens,
            "completion_tokens": self.completion_tokens,
            "cost_usd": self.cost_usd,
        }


@dataclass(frozen=True)
class Completion:
    """A whole assistant reply: its text, its tool calls, and what it cost."""

    text: str
    tool_calls: tuple[ToolCall, ...] = ()
    usage: Usage = field(default_factory=Usage)

    def message(self) -> Message:
        return Message("assistant", self.text or None, self.tool_calls)

    def with_unique_call_ids(self) -> Completion:
        """This reply with each tool call under an id of its own. Results, approvals and the
        session file find a call by its id: two calls of one id (a hostile or broken answer)
        would let one call's result and approval pass for the other's, so that a resume shows
        the call that ran as interrupted; providers refuse such a history too."""
        seen: set[str] = set()
        calls = []
        for call in self.tool_calls:
            if call.id in seen:
                call = replace(call, id=f"call_{uuid.uuid4().hex[:12]}")
            seen.add(call.id)
            calls.append(call)
        return replace(self, tool_calls=tuple(calls))


class _NotJsonNumber(ValueError):
    """A number Python's JSON reader takes but JSON cannot carry."""


# Python reads NaN, Infinity and 1e999 (inf); the SDK sends them as null. The approval would
# show one value and the server get another, so such arguments are refused before asking.
def _no_constant(name: str) -> float:
    raise _NotJsonNumber(name)


def _finite_float(text: str) -> float:
    number = float(text)
    if number != number or number in (float("inf"), float("-inf")):
        raise _NotJsonNumber(f"{text[:40]} (not a finite number)")
    return number


def parse_arguments(call: ToolCall) -> dict[str, Any]:
    """The call's arguments as an object; ValueError says what is wrong with them."""
    text = call.arguments.strip() or "{}"
    try:
        value = json.loads(text, parse_constant=_no_constant, parse_float=_finite_float)
    except _NotJsonNumber as error:
        raise ValueError(f"arguments hold {error}, which JSON cannot carry") from None
    except json.JSONDecodeError as error:
        raise ValueError(
            f"arguments are not valid JSON ({error.msg} at column {error.colno})"
        ) from None
    except RecursionError:  # nested deeper than the decoder's stack: hostile, never real
        raise ValueError(f"arguments nest more than {MAX_DEPTH} levels deep") from None
    if not isinstance(value, dict):
        raise ValueError("arguments must be a JSON object")
    # Shown to the person, validated and sent on by code that recurses: keep it shallow.
    if too_deep(value):
        raise ValueError(f"arguments nest more than {MAX_DEPTH} levels deep")
    return value
