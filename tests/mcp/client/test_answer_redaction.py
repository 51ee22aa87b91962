"""What masking a server's answers keeps, masks and withholds (mcp/client/answer_redaction.py)."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest

from agent.mcp.client.answer_redaction import (
    WithheldTool,
    redact_answer,
    redact_form,
    redact_tools,
    redact_url_elicitation,
)
from agent.mcp.client.json_redaction import (
    FORM_PROBLEM,
    INPUT_PROBLEM,
    NAME_PROBLEM,
    OUTPUT_PROBLEM,
    UnmaskableError,
)
from agent.redaction import Redactor

SECRET = "s3cr3t-value"
REDACTOR = Redactor([SECRET])


def tool(name: str = "go", **schema: Any) -> types.Tool:
    return types.Tool(name=name, input_schema={"type": "object", **schema})


def listed(*tools: types.Tool) -> types.ListToolsResult:
    return types.ListToolsResult(tools=list(tools))


def test_a_schemas_words_and_examples_are_masked_and_its_structure_kept() -> None:
    properties = {
        "x": {
            "type": "string",
            "title": f"x {SECRET}",
            "enum": [SECRET, "b"],
            "default": {SECRET: SECRET},
        },
        "y": {"$ref": "#/$defs/y"},
    }
    schema = {"properties": properties, "required": ["x"], "$defs": {"y": {"const": SECRET}}}

    masked, withheld = redact_tools(listed(tool(**schema)), REDACTOR)

    assert withheld == []
    assert masked.tools[0].input_schema == {
        "type": "object",
        "properties": {
            "x": {
                "type": "string",
                "title": "x ***",
                "enum": ["***", "b"],
                "default": {"***": "***"},
            },
            "y": {"$ref": "#/$defs/y"},
        },
        "required": ["x"],
        "$defs": {"y": {"const": "***"}},
    }


@pytest.mark.parametrize(
    ("given", "problem"),
    [
        (tool(f"go_{SECRET}"), NAME_PROBLEM),
        (tool(properties={f"pw_{SECRET}": {"type": "string"}}), INPUT_PROBLEM),
        (tool(properties={"x": {"type": "string", "pattern": f"^{SECRET}$"}}), INPUT_PROBLEM),
        (tool(**{"$defs": {SECRET: {}}}), INPUT_PROBLEM),
        (
            types.Tool(
                name="go",
                input_schema={"type": "object"},
                output_schema={"type": "object", "properties": {SECRET: {}}},
            ),
            OUTPUT_PROBLEM,
        ),
    ],
)
def test_a_tool_whose_names_or_structure_carry_a_secret_is_withheld(
    given: types.Tool, problem: str
) -> None:
    masked, withheld = redact_tools(listed(given, tool("other")), REDACTOR)

    assert [t.name for t in masked.tools] == ["other"]
    assert withheld == [WithheldTool(REDACTOR.redact(given.name), problem)]


def test_protocol_fields_are_never_masked_even_when_a_secret_spells_them() -> None:
    redactor = Redactor(["text", "image/png", "QUJD"])
    result = types.ReadResourceResult(
        contents=[
            types.TextResourceContents(uri="a://1", text="text here", mime_type="image/png"),
            types.BlobResourceContents(uri="a://2", blob="QUJDQUJD", mime_type="image/png"),
        ]
    )

    masked = redact_answer(result, redactor)

    text, blob = masked.contents
    assert isinstance(text, types.TextResourceContents)
    assert isinstance(blob, types.BlobResourceContents)
    assert (text.text, text.mime_type) == ("*** here", "image/png")
    assert (blob.blob, blob.mime_type) == ("QUJDQUJD", "image/png")


def test_a_media_type_with_a_secret_becomes_opaque_and_a_well_known_one_is_kept() -> None:
    redactor = Redactor(["text", SECRET])
    types_given = [
        "text/plain",  # well known: kept though the secret "text" is in it
        "Text/Markdown; charset=utf-8",
        f"text/plain; charset={SECRET}",  # well known, its parameter carries it
        "text/x-python",  # carries the secret "text", not well known
        f"application/x-dump+{SECRET}",
        "application/x-other",  # no secret: as it was
    ]
    result = types.ReadResourceResult(
        contents=[
            types.BlobResourceContents(uri=f"a://{n}", blob="AAAA", mime_type=given)
            for n, given in enumerate(types_given)
        ]
    )

    masked = redact_answer(result, redactor)

    assert [item.mime_type for item in masked.contents] == [
        "text/plain",
        "Text/Markdown; charset=utf-8",
        "text/plain",
        "application/octet-stream",
        "application/octet-stream",
        "application/x-other",
    ]


def test_the_handshake_is_masked_but_its_protocol_version() -> None:
    result = types.InitializeResult(
        protocol_version="2025-11-25",
        capabilities=types.ServerCapabilities(experimental={SECRET: {"k": SECRET}}),
        server_info=types.Implementation(name=f"n {SECRET}", version=SECRET),
        instructions=f"use {SECRET}",
    )

    masked = redact_answer(result, REDACTOR)

    assert masked.protocol_version == "2025-11-25"
    assert masked.instructions == "use ***"
    assert (masked.server_info.name, masked.server_info.version) == ("n ***", "***")
    assert masked.capabilities.experimental == {"***": {"k": "***"}}


def test_a_forms_words_are_masked_and_a_field_named_after_a_secret_cannot_be() -> None:
    schema = {"type": "object", "properties": {"u": {"type": "string", "title": SECRET}}}
    form = types.ElicitRequestFormParams(message=f"hi {SECRET}", requested_schema=schema)
    named = {"type": "object", "properties": {SECRET: {"type": "string"}}}
    leaky = types.ElicitRequestFormParams(message="hi", requested_schema=named)

    masked = redact_form(form, REDACTOR)

    assert masked.message == "hi ***"
    assert masked.requested_schema["properties"] == {"u": {"type": "string", "title": "***"}}
    with pytest.raises(UnmaskableError, match="a field name"):
        redact_form(leaky, REDACTOR)
    assert str(FORM_PROBLEM).startswith("a field name")


def test_a_web_pages_message_is_masked_and_a_url_carrying_a_secret_cannot_be() -> None:
    plain = types.ElicitRequestURLParams(
        message=f"key {SECRET}", url="https://example.com/x", elicitation_id="e1"
    )
    leaky = types.ElicitRequestURLParams(
        message="hi", url=f"https://example.com/?key={SECRET}", elicitation_id="e2"
    )

    masked = redact_url_elicitation(plain, REDACTOR)

    assert (masked.message, masked.url) == ("key ***", "https://example.com/x")
    with pytest.raises(UnmaskableError, match="its URL carries a secret"):
        redact_url_elicitation(leaky, REDACTOR)
