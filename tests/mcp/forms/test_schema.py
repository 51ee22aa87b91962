"""A form's schema is MCP's flat form, or it is declined with one line naming the problem."""

from __future__ import annotations

from typing import Any

import pytest

from agent.errors import McpServerError
from agent.mcp.forms.elicitation import ElicitationRequest, form_fields, refusal
from agent.mcp.forms.schema import form_problem

# One field of every kind the MCP spec (2025-11-25) allows, as servers write them.
EVERY_KIND: dict[str, Any] = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "type": "object",
    "title": "Sign up",
    "properties": {
        "name": {"type": "string", "title": "Name", "minLength": 1, "maxLength": 50},
        "email": {"type": "string", "format": "email", "default": "a@b.c"},
        "pin": {"type": "string", "format": "password"},
        "age": {"type": "integer", "minimum": 0, "maximum": 150, "default": 30},
        "height": {"type": "number", "default": 1.8},
        "agree": {"type": "boolean", "default": False},
        "size": {"type": "string", "enum": ["S", "M"], "enumNames": ["Small", "Medium"]},
        "colour": {"type": "string", "oneOf": [{"const": "r", "title": "Red"}, {"const": "g"}]},
        "tags": {"type": "array", "items": {"type": "string", "enum": ["a", "b"]}, "minItems": 1},
        "pets": {"type": "array", "items": {"anyOf": [{"const": "cat", "title": "Cat"}]}},
    },
    "required": ["name", "email"],
}


def test_every_kind_of_field_the_spec_allows_makes_a_form() -> None:
    assert form_problem(EVERY_KIND) is None
    assert [f.kind for f in form_fields(EVERY_KIND)] == [
        "string",
        "string",
        "string",
        "integer",
        "number",
        "boolean",
        "choice",
        "choice",
        "choices",
        "choices",
    ]


def test_a_schema_without_fields_or_a_top_level_type_is_still_a_form() -> None:
    assert (form_problem({}), form_problem({"properties": {"a": {"type": "string"}}})) == (
        None,
        None,
    )


@pytest.mark.parametrize(
    ("schema", "problem"),
    [
        ([], "the schema must be an object, not an empty list"),
        ({"type": "array"}, '"type" must be "object", not the text "array"'),
        ({"properties": []}, '"properties" must be an object of fields, not an empty list'),
        (
            {"properties": {}, "required": 5},
            '"required" must be a list of field names, not a number',
        ),
        (
            {"properties": {"a": {"type": "string"}}, "required": ["a", "b"]},
            '"required" names "b", which is not one of its fields',
        ),
        ({"properties": {"a": "x"}}, 'field "a": must be an object, not the text "x"'),
        (
            {"properties": {"a": {}}},
            'field "a": has no "type" (one of string, number, integer, boolean, array)',
        ),
        (
            {"properties": {"a": {"type": "string", "title": 5}}},
            'field "a": "title" must be text, not a number',
        ),
        (
            {"properties": {"a": {"type": "string", "default": 5}}},
            'field "a": "default" does not fit its type string: a number',
        ),
        (
            {"properties": {"a": {"type": "integer", "default": 1.5}}},
            'field "a": "default" does not fit its type integer: a number',
        ),
        (
            {"properties": {"a": {"type": "number", "maximum": "9"}}},
            'field "a": "maximum" must be a number, not the text "9"',
        ),
        (
            {"properties": {"a": {"type": "string", "enum": []}}},
            'field "a": "enum" must be a non-empty list of values, not an empty list',
        ),
        (
            {"properties": {"a": {"type": "string", "oneOf": [{"title": "x"}]}}},
            'field "a": "oneOf" must hold objects with a "const" value, not an object',
        ),
        (
            {"properties": {"a": {"type": "array"}}},
            'field "a": "items" must be an object with the choices, not null',
        ),
        (
            {"properties": {"a": {"type": "array", "items": {"type": "string"}}}},
            'field "a": "items" must list its choices in "enum" or "anyOf"',
        ),
        (
            {"properties": {"a": {"type": "array", "items": {"enum": ["x"]}, "default": "x"}}},
            'field "a": "default" does not fit its type array: the text "x"',
        ),
    ],
)
def test_a_schema_that_is_not_a_flat_form_is_named_in_one_line(schema: Any, problem: str) -> None:
    assert form_problem(schema) == problem


def test_a_malformed_form_is_refused_with_the_server_and_the_problem_and_never_read() -> None:
    name = "n\n" + "x" * 100
    request = ElicitationRequest("hx\x1b[2J", "Hi", {"properties": {name: {"type": "object"}}})
    assert refusal(request) == (
        "Declined a form from MCP server hx\\x1b[2J: its schema is not a flat form "
        '(field "n\\n' + "x" * 37 + '…": "type" must be one of string, number, integer, '
        'boolean, array, not the text "object"); the server\'s author can fix it.'
    )
    with pytest.raises(McpServerError, match="bad form schema: field"):
        form_fields(request.schema)
