"""The shape a form's schema must have: MCP's restricted elicitation schema.

A server may ask only for a flat object of primitive fields: text (with an optional format),
numbers, yes/no, and single- or multi-select choices. A schema of any other shape cannot be
shown truthfully as a form (and code that reads it would trip over a `"required": 5`), so it is
checked whole before anything of it is shown, and the form is declined with one line naming
the problem. Keys the spec does not know are ignored, as its own models ignore them; a missing
top-level `"type"` is read as the object it must be.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from agent.text import sanitize_line

_TYPES = ("string", "number", "integer", "boolean", "array")
# The keywords of MCP's restricted form schema (PrimitiveSchemaDefinition); anything else a
# server adds (`pattern`, `allOf`, `$ref`, ...) is not part of a form and is not checked.
_FIELD_KEYWORDS = (
    "type",
    "title",
    "description",
    "format",
    "minLength",
    "maxLength",
    "minimum",
    "maximum",
    "minItems",
    "maxItems",
    "enum",
    "oneOf",
    "anyOf",
    "items",
    "default",
)
_CHOICE_KEYWORDS = ("const", "title")
_NAME_CHARS = 40  # a field name in a one-line notice, however long the server made it


def form_problem(schema: object) -> str | None:
    """What is wrong with a requested form schema, in one line; None when it is a flat form."""
    if not isinstance(schema, dict):
        return f"the schema must be an object, not {_what(schema)}"
    if schema.get("type", "object") != "object":
        return f'"type" must be "object", not {_what(schema.get("type"))}'
    properties = schema.get("properties")
    if properties is None:
        properties = {}
    if not isinstance(properties, dict):
        return f'"properties" must be an object of fields, not {_what(properties)}'
    required = schema.get("required")
    if required is not None:
        if not isinstance(required, list) or not all(isinstance(n, str) for n in required):
            return f'"required" must be a list of field names, not {_what(required)}'
        for name in required:
            if name not in properties:
                return f'"required" names {_name(name)}, which is not one of its fields'
    for name, prop in properties.items():
        problem = _field_problem(prop)
        if problem:
            return f"field {_name(name)}: {problem}"
    return None


def form_keywords(schema: dict[str, Any]) -> dict[str, Any]:
    """A flat form's schema (form_problem found none) with only MCP's form keywords, to check
    an answer against: a server's `pattern` there would be a regex of its choosing run on the
    person's answer (MCP's StringSchema has none), so it is dropped, not checked."""
    fields = {
        name: _known(prop, _FIELD_KEYWORDS)
        for name, prop in (schema.get("properties") or {}).items()
    }
    kept = {"type": "object", "properties": fields}
    if "required" in schema:
        kept["required"] = schema["required"]
    return kept


def _known(prop: dict[str, Any], keywords: tuple[str, ...]) -> dict[str, Any]:
    kept = {key: prop[key] for key in keywords if key in prop}
    for key in ("oneOf", "anyOf"):
        if isinstance(kept.get(key), list):
            kept[key] = [_known(choice, _CHOICE_KEYWORDS) for choice in kept[key]]
    if isinstance(kept.get("items"), dict):
        kept["items"] = _known(kept["items"], ("type", "enum", "anyOf", "oneOf"))
    return kept


def _field_problem(prop: object) -> str | None:
    if not isinstance(prop, dict):
        return f"must be an object, not {_what(prop)}"
    if "type" not in prop:
        return f'has no "type" (one of {", ".join(_TYPES)})'
    kind = prop["type"]
    if kind not in _TYPES:
        return f'"type" must be one of {", ".join(_TYPES)}, not {_what(kind)}'
    for key in ("title", "description", "format"):
        if key in prop and not isinstance(prop[key], str):
            return f'"{key}" must be text, not {_what(prop[key])}'
    for key in ("minLength", "maxLength", "minimum", "maximum", "minItems", "maxItems"):
        if key in prop and not _is_number(prop[key]):
            return f'"{key}" must be a number, not {_what(prop[key])}'
    if kind == "array":
        return _choices_problem(prop.get("items"), "items") or _default_problem(
            prop, lambda v: isinstance(v, list) and all(isinstance(i, str) for i in v)
        )
    if "enum" in prop or "oneOf" in prop:
        problem = _choices_problem(prop, None)
        if problem:
            return problem
    if kind == "string":
        return _default_problem(prop, lambda v: isinstance(v, str))
    if kind == "boolean":
        return _default_problem(prop, lambda v: isinstance(v, bool))
    if kind == "integer":
        return _default_problem(prop, _is_whole_number)
    return _default_problem(prop, _is_number)


def _choices_problem(source: object, where: str | None) -> str | None:
    """What is wrong with the choices of a select field (`where` names the key they are in)."""
    at = f'"{where}" ' if where else ""
    if not isinstance(source, dict):
        return f"{at}must be an object with the choices, not {_what(source)}"
    if "enum" in source:
        values = source["enum"]
        if not isinstance(values, list) or not values or not all(_is_scalar(v) for v in values):
            return f'{at}"enum" must be a non-empty list of values, not {_what(values)}'
        return None
    key = "oneOf" if "oneOf" in source else "anyOf" if where and "anyOf" in source else None
    if key is None:
        return f'{at}must list its choices in "enum" or "{"anyOf" if where else "oneOf"}"'
    options = source[key]
    if not isinstance(options, list) or not options:
        return f'{at}"{key}" must be a non-empty list of choices, not {_what(options)}'
    for option in options:
        if not isinstance(option, dict) or not _is_scalar(option.get("const")):
            return f'{at}"{key}" must hold objects with a "const" value, not {_what(option)}'
        if "title" in option and not isinstance(option["title"], str):
            return f'{at}"{key}": a choice\'s "title" must be text, not {_what(option["title"])}'
    return None


def _default_problem(prop: dict[str, Any], fits: Callable[[object], bool]) -> str | None:
    if "default" in prop and prop["default"] is not None and not fits(prop["default"]):
        return f'"default" does not fit its type {prop["type"]}: {_what(prop["default"])}'
    return None


def _is_number(value: object) -> bool:
    return isinstance(value, int | float) and not isinstance(value, bool)


def _is_whole_number(value: object) -> bool:
    if isinstance(value, bool):
        return False
    return isinstance(value, int) or (isinstance(value, float) and value.is_integer())


def _is_scalar(value: object) -> bool:
    return isinstance(value, str | int | float) and not isinstance(value, bool)


def _name(name: str) -> str:
    """A server's field name, quoted, on one line and short."""
    shown = sanitize_line(name)
    return f'"{shown[:_NAME_CHARS]}…"' if len(shown) > _NAME_CHARS else f'"{shown}"'


def _what(value: object) -> str:
    """What kind of JSON value this is, in words (never the value: it may be huge or hostile)."""
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "true/false"
    if isinstance(value, int | float):
        return "a number"  # not its digits: a 5000-digit integer cannot even be printed
    if isinstance(value, str):
        return f"the text {_name(value)}"
    if isinstance(value, list):
        return "a list" if value else "an empty list"
    return "an object"
