"""What a server offers besides tools: its resources, resource templates and prompts.

Plain dataclasses of ours, so the chat and the console never touch mcp types. Every string
in them is the server's (only secrets are masked): sanitize before printing, and treat it as
untrusted wherever it goes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from typing import Generic, Literal, TypeVar

from agent.errors import McpServerError
from agent.text import noun_for, sanitize_line

T = TypeVar("T")
CatalogKind = Literal["resources", "templates", "prompts"]


@dataclass(frozen=True)
class ResourceInfo:
    """One entry of resources/list."""

    uri: str
    name: str
    title: str | None
    description: str | None
    mime_type: str | None
    size: int | None  # bytes, as the server claims


@dataclass(frozen=True)
class ResourceTemplateInfo:
    """One entry of resources/templates/list: `uri_template` is an RFC 6570 template."""

    uri_template: str
    name: str
    title: str | None
    description: str | None
    mime_type: str | None


@dataclass(frozen=True)
class PromptArgumentInfo:
    """One argument a prompt takes."""

    name: str
    title: str | None
    description: str | None
    required: bool


@dataclass(frozen=True)
class PromptInfo:
    """One entry of prompts/list."""

    name: str
    title: str | None
    description: str | None
    arguments: tuple[PromptArgumentInfo, ...]

    @property
    def required(self) -> tuple[str, ...]:
        """Names of the arguments the prompt cannot do without."""
        return tuple(argument.name for argument in self.arguments if argument.required)


@dataclass(frozen=True)
class Listing(Generic[T]):
    """A whole list, or as much as the page cap allowed: `note` then says what was left out."""

    items: tuple[T, ...]
    note: str | None = None  # e.g. "listing stopped after 50 pages (the server kept paging)"


@dataclass(frozen=True)
class CompletionRef:
    """What completion/complete completes an argument of: a prompt, or a resource template."""

    kind: Literal["prompt", "template"]
    name: str  # the prompt's name, or the template's uri_template


def check_prompt_arguments(
    server: str, prompts: Sequence[PromptInfo], name: str, arguments: Mapping[str, str]
) -> PromptInfo:
    """The prompt called `name`; raises McpServerError naming what is wrong with `arguments`
    (an unknown prompt or argument, a required argument missing)."""
    found = next((prompt for prompt in prompts if prompt.name == name), None)
    if found is None:
        known = ", ".join(prompt.name for prompt in prompts) or "none"
        raise McpServerError(
            f"MCP server {server!r} has no prompt {sanitize_line(repr(name))} "
            f"(its prompts: {sanitize_line(known)})"
        )
    takes = [argument.name for argument in found.arguments]
    unknown = [key for key in arguments if key not in takes]
    if unknown:
        raise McpServerError(
            f"prompt {sanitize_line(repr(name))} of MCP server {server!r} takes no argument "
            f"{sanitize_line(', '.join(map(repr, unknown)))} "
            f"(its arguments: {sanitize_line(', '.join(takes)) or 'none'})"
        )
    missing = [argument for argument in found.required if argument not in arguments]
    if missing:
        raise McpServerError(
            f"prompt {sanitize_line(repr(name))} of MCP server {server!r} needs the "
            f"{noun_for(len(missing), 'argument')} {sanitize_line(', '.join(map(repr, missing)))}"
        )
    return found
