"""Elicitation: a server asks the person for a few values through a flat form.

Pure logic here (fields from the requested schema, typed conversion); rendering is behind the
ElicitationHandler protocol so a terminal UI can draw it. With no person present, decline.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Any, Literal, Protocol

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
    """Shows an elicitation form to the person."""

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer: ...


class DeclineElicitation:
    """The answer when nobody can be asked."""

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        return ElicitationAnswer("decline")


@dataclass(frozen=True)
class FormField:
    """One field of a form, from one property of the requested schema."""

    name: str
    kind: Literal["string", "number", "integer", "boolean", "choice", "choices"]
    title: str
    description: str
    required: bool
    default: FieldValue = None
    choices: tuple[str, ...] = ()
    choice_values: tuple[FieldValue, ...] = ()  # the schema's own values, in choices' order


def form_fields(schema: dict[str, Any]) -> list[FormField]:
    """The fields of a requested schema, in declaration order."""
    required = set(schema.get("required", []))
    fields = []
    for name, prop in (schema.get("properties") or {}).items():
        if not isinstance(prop, dict):
            continue
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
            )
        )
    return fields


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
    source = prop.get("items", prop) if prop.get("type") == "array" else prop
    if "enum" in source:
        return tuple(str(value) for value in source["enum"])
    options = source.get("oneOf") or source.get("anyOf") or []
    return tuple(str(option.get("const")) for option in options if isinstance(option, dict))


def _choice_values(prop: dict[str, Any]) -> tuple[FieldValue, ...]:
    source = prop.get("items", prop) if prop.get("type") == "array" else prop
    if "enum" in source:
        return tuple(source["enum"])
    options = source.get("oneOf") or source.get("anyOf") or []
    return tuple(option.get("const") for option in options if isinstance(option, dict))


def convert_value(form_field: FormField, text: str) -> FieldValue:
    """The typed value for `text`, or ValueError with a message for the person."""
    text = text.strip()
    if form_field.kind == "integer":
        try:
            return int(text)
        except ValueError:
            raise ValueError(f"{form_field.title}: enter a whole number") from None
    if form_field.kind == "number":
        try:
            return float(text) if any(c in text for c in ".eE") else int(text)
        except ValueError:
            raise ValueError(f"{form_field.title}: enter a number") from None
    if form_field.kind == "boolean":
        lowered = text.lower()
        if lowered in ("y", "yes", "true", "1"):
            return True
        if lowered in ("n", "no", "false", "0"):
            return False
        raise ValueError(f"{form_field.title}: answer yes or no")
    if form_field.kind == "choice":
        if text not in form_field.choices:
            raise ValueError(f"{form_field.title}: choose one of {', '.join(form_field.choices)}")
        return _typed_choice(form_field, text)
    if form_field.kind == "choices":
        picked = [part.strip() for part in text.split(",") if part.strip()]
        unknown = [p for p in picked if p not in form_field.choices]
        if unknown:
            raise ValueError(f"{form_field.title}: not a choice: {', '.join(unknown)}")
        return picked
    return text


def _typed_choice(form_field: FormField, text: str) -> FieldValue:
    """The schema's value for the chosen text: an enum of numbers answers a number."""
    if len(form_field.choice_values) == len(form_field.choices):
        return form_field.choice_values[form_field.choices.index(text)]
    return text
