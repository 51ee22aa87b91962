"""Elicitation: a server asks the person for a few values through a flat form, or (URL mode,
agent.mcp.forms.url_request) to open a web page.

Pure logic here (fields from the requested schema, typed conversion, and the text both
terminal front ends show); drawing is behind the ElicitationHandler protocol. With no person
present, decline. A schema that is not MCP's flat form (agent.mcp.forms.schema) is declined
unseen, with a one-line notice. Everything a server wrote is shown escaped, and each title or
description on one line, so a form cannot draw lines that look like ours.
"""

from __future__ import annotations

import re
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

from agent.errors import McpServerError
from agent.mcp.forms.formats import format_problem
from agent.mcp.forms.schema import form_problem
from agent.mcp.forms.url_request import UrlRequest, declined_without_asking
from agent.text import sanitize, sanitize_line

Action = Literal["accept", "decline", "cancel"]
FieldValue = str | int | float | bool | list[str] | None


@dataclass(frozen=True)
class ElicitationRequest:
    """What a server asks: a message and a flat JSON Schema of primitive fields."""

    server: str
    message: str
    schema: dict[str, Any]


@dataclass(frozen=True)
class ElicitationAnswer:
    """The person's answer; content only when they accepted."""

    action: Action
    content: dict[str, FieldValue] = field(default_factory=dict)


class ElicitationHandler(Protocol):
    """Shows an elicitation form to the person, or asks whether to open a web page."""

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer: ...

    async def elicit_url(self, request: UrlRequest) -> Action:
        """Show the whole URL and its host and ask; open it only on yes ("accept"). Only a
        URL `judge_url` let through reaches a front end."""
        ...

    def notice(self, text: str) -> None:
        """Tell the person, in one line, about a form that was answered without asking them."""


class DeclineElicitation:
    """The answer when nobody can be asked; `tell` (agent -p's stderr) hears of a web page
    declined, with its host, since the person may want to open it themselves."""

    def __init__(self, tell: Callable[[str], None] | None = None) -> None:
        self._tell = tell

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        return ElicitationAnswer("decline")

    async def elicit_url(self, request: UrlRequest) -> Action:
        """Declined, never opened: nobody said yes."""
        if self._tell is not None:
            self._tell(declined_without_asking(request))
        return "decline"

    def notice(self, text: str) -> None:
        """Told to `tell`, if any."""
        if self._tell is not None:
            self._tell(sanitize_line(text))


@dataclass(frozen=True)
class FormField:
    """One field of a form, from one property of the requested schema."""

    name: str
    kind: Literal["string", "number", "integer", "boolean", "choice", "choices"]
    title: str
    description: str
    required: bool
    default: FieldValue = None
    choices: tuple[str, ...] = ()  # what the person sees and types: a choice's title, if any
    choice_values: tuple[FieldValue, ...] = ()  # the schema's own values, in choices' order
    secret: bool = False  # typed without echo and kept nowhere but in the answer
    format: str = ""  # a string's format (email, uri, date, date-time), checked before sending
    min_items: int | None = None  # how many a multi-select field takes
    max_items: int | None = None


# Field names that mean a secret even without "format": "password" ("apiKey", "db_token").
_SECRET_WORDS = re.compile(
    r"pass(word|wd|phrase)|secret|token|api_?key|private_?key|credential|access_?key"
)


def is_secret(name: str, prop: dict[str, Any]) -> bool:
    """True for a password-format field or one named like a secret."""
    if prop.get("format") == "password" or prop.get("writeOnly") is True:
        return True
    words = re.sub(r"([a-z0-9])([A-Z])", r"\1_\2", name).lower().replace("-", "_")
    return _SECRET_WORDS.search(words) is not None


def refusal(request: ElicitationRequest) -> str | None:
    """The one-line notice for a form that must be declined unseen (its schema is not a flat
    form), or None when it can be shown."""
    problem = form_problem(request.schema)
    if problem is None:
        return None
    return (
        f"Declined a form from MCP server {sanitize_line(request.server)}: its schema is not "
        f"a flat form ({problem}); the server's author can fix it."
    )


def form_fields(schema: dict[str, Any]) -> list[FormField]:
    """The fields of a requested schema, in declaration order (a schema that is not a flat
    form is a McpServerError: front ends check `refusal` first and never show it)."""
    problem = form_problem(schema)
    if problem is not None:
        raise McpServerError(f"bad form schema: {problem}")
    required = set(schema.get("required") or [])
    fields = []
    for name, prop in (schema.get("properties") or {}).items():
        fields.append(
            FormField(
                name=name,
                kind=_kind(prop),
                title=str(prop.get("title") or name),
                description=str(prop.get("description") or ""),
                required=name in required,
                default=prop.get("default"),
                choices=_choices(prop),
                choice_values=_choice_values(prop),
                secret=is_secret(name, prop),
                format=str(prop.get("format") or ""),
                min_items=_whole(prop.get("minItems")),
                max_items=_whole(prop.get("maxItems")),
            )
        )
    return fields


def describe_form(request: ElicitationRequest) -> list[str]:
    """The lines above a form: who asks, the server's whole message (marked as its words),
    and what the server will receive, secrets named as such."""
    server = sanitize_line(request.server)
    lines = [f"MCP server {server} asks (its message, every line of it):"]
    lines.extend(f"  | {line}" for line in sanitize(request.message).split("\n"))
    fields = form_fields(request.schema)
    if fields:
        names = ", ".join(sanitize_line(f.title) for f in fields)
        lines.append(f"If you answer, MCP server {server} will receive: {names}.")
    for secret in (f for f in fields if f.secret):
        lines.append(
            f"  {sanitize_line(secret.title)} is a secret: typed without echo, kept nowhere here, "
            f"and sent to MCP server {server}."
        )
    return lines


def field_question(form_field: FormField, *, show_default: bool) -> str:
    """One line asking for a field: its title, description, type, and whether it is needed."""
    if form_field.choices:
        several = ""
        if form_field.kind == "choices":
            several = f"; {_how_many(form_field)}, separated by commas"
        hint = f" ({', '.join(sanitize_line(c) for c in form_field.choices)}{several})"
    elif form_field.secret:  # "secret" says what the person needs to know: it is not echoed
        hint = f" ({form_field.kind}, secret)"
    elif form_field.format:
        hint = f" ({form_field.kind}, {sanitize_line(form_field.format)})"
    else:
        hint = f" ({form_field.kind})"
    optional = "" if form_field.required else " (optional)"
    description = f" - {sanitize_line(form_field.description)}" if form_field.description else ""
    default = ""
    if show_default and form_field.default is not None and not form_field.secret:
        default = f" [{sanitize_line(default_text(form_field))}]"
    return f"  {sanitize_line(form_field.title)}{description}{hint}{optional}{default}: "


def _kind(
    prop: dict[str, Any],
) -> Literal["string", "number", "integer", "boolean", "choice", "choices"]:
    if prop.get("type") == "array":
        return "choices"
    if "enum" in prop or "oneOf" in prop:
        return "choice"
    kind = prop.get("type")
    if kind in ("number", "integer", "boolean"):
        return kind  # type: ignore[no-any-return]
    return "string"


def _choices(prop: dict[str, Any]) -> tuple[str, ...]:
    """The choices as the person sees them: each option's title (or, for an `enum`, the legacy
    `enumNames` beside it), else its value."""
    source = prop.get("items", prop) if prop.get("type") == "array" else prop
    if "enum" in source:
        names = source.get("enumNames")
        if not (isinstance(names, list) and len(names) == len(source["enum"])):
            names = source["enum"]
        return tuple(str(name) for name in names)
    options = source.get("oneOf") or source.get("anyOf") or []
    return tuple(
        str(option.get("title") or option.get("const"))
        for option in options
        if isinstance(option, dict)
    )


def _whole(value: object) -> int | None:
    if isinstance(value, int | float) and not isinstance(value, bool) and value >= 0:
        return int(value) if value < 2**31 else None
    return None


def _how_many(form_field: FormField) -> str:
    low, high = form_field.min_items, form_field.max_items
    if low and high:
        return f"{low} to {high} of them" if low != high else f"{low} of them"
    if high:
        return f"up to {high} of them"
    return f"at least {low} of them" if low else "any of them"


def default_text(form_field: FormField) -> str:
    """The default as the person would type it: a choice's title, a multi-select's titles
    joined by commas (so the default, taken as it is, is the choice it is)."""
    default = form_field.default
    if form_field.kind == "choices" and isinstance(default, list):
        return ", ".join(_label(form_field, value) for value in default)
    if form_field.kind == "choice":
        return _label(form_field, default)
    return "" if default is None else str(default)


def _label(form_field: FormField, value: FieldValue) -> str:
    if value in form_field.choice_values:
        return form_field.choices[form_field.choice_values.index(value)]
    return str(value)


def _choice_values(prop: dict[str, Any]) -> tuple[FieldValue, ...]:
    source = prop.get("items", prop) if prop.get("type") == "array" else prop
    if "enum" in source:
        return tuple(source["enum"])
    options = source.get("oneOf") or source.get("anyOf") or []
    return tuple(option.get("const") for option in options if isinstance(option, dict))


def convert_value(form_field: FormField, text: str) -> FieldValue:
    """The typed value for `text`, or ValueError with a message for the person."""
    text = text.strip()
    title = sanitize_line(form_field.title)
    if form_field.kind == "integer":
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{title}: enter a whole number") from None
    if form_field.kind == "number":
        try:
            return float(text) if any(c in text for c in ".eE") else int(text)
        except ValueError:
            raise ValueError(f"{title}: enter a number") from None
    if form_field.kind == "boolean":
        lowered = text.lower()
        if lowered in ("y", "yes", "true", "1"):
            return True
        if lowered in ("n", "no", "false", "0"):
            return False
        raise ValueError(f"{title}: answer yes or no")
    if form_field.kind == "choice":
        value = _chosen(form_field, text)
        if value is None:
            shown = ", ".join(sanitize_line(c) for c in form_field.choices)
            raise ValueError(f"{title}: choose one of {shown}")
        return value
    if form_field.kind == "choices":
        return _several(form_field, title, text)
    problem = format_problem(form_field.format, text)
    if problem is not None:
        raise ValueError(f"{title}: {problem}")
    return text


def _several(form_field: FormField, title: str, text: str) -> list[str]:
    picked = [part.strip() for part in text.split(",") if part.strip()]
    unknown = [p for p in picked if _chosen(form_field, p) is None]
    if unknown:
        shown = ", ".join(sanitize_line(u) for u in unknown)
        choices = ", ".join(sanitize_line(c) for c in form_field.choices)
        raise ValueError(f"{title}: not a choice: {shown} (the choices: {choices})")
    values: list[str] = []
    for part in picked:
        value = str(_chosen(form_field, part))  # a multi-select's items are text (schema.py)
        if value not in values:  # the same choice twice is that choice once
            values.append(value)
    low, high = form_field.min_items, form_field.max_items
    if (low is not None and len(values) < low) or (high is not None and len(values) > high):
        raise ValueError(f"{title}: choose {_how_many(form_field)}")
    return values


def _chosen(form_field: FormField, text: str) -> FieldValue:
    """The schema's value for a choice typed as its title (or as the value itself); None for
    no choice. An enum of numbers answers a number."""
    for labels in (form_field.choices, tuple(str(v) for v in form_field.choice_values)):
        if text in labels and len(form_field.choice_values) == len(labels):
            return form_field.choice_values[labels.index(text)]
    return None
