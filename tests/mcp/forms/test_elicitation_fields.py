"""Fields of a requested form: which are secrets, and how each is asked in one line."""

from __future__ import annotations

from agent.mcp.forms.elicitation import (
    ElicitationRequest,
    describe_form,
    field_question,
    form_fields,
)
from agent.ui.dialogs.frame import screen_rows


def test_password_format_and_secret_like_names_make_secret_fields() -> None:
    schema = {
        "properties": {
            "pin": {"type": "string", "format": "password"},
            "apiKey": {"type": "string"},
            "db_token": {"type": "string"},
            "Client-Secret": {"type": "string"},
            "city": {"type": "string"},
        }
    }
    secrets = {f.name: f.secret for f in form_fields(schema)}
    assert secrets == {
        "pin": True,
        "apiKey": True,
        "db_token": True,
        "Client-Secret": True,
        "city": False,
    }


def test_a_field_question_is_one_line_and_never_shows_a_secret_default() -> None:
    schema = {
        "properties": {
            "password": {"type": "string", "title": "Pass\nword", "default": "hunter2"},
        },
        "required": ["password"],
    }
    (field,) = form_fields(schema)
    assert field_question(field, show_default=True) == "  Pass\\nword (string, secret): "


def test_a_form_lists_every_message_line_and_what_the_server_receives() -> None:
    request = ElicitationRequest(
        "srv", "first\nsecond\x1b[2J", {"properties": {"token": {"type": "string"}}}
    )
    assert describe_form(request) == [
        "MCP server srv asks (its message, every line of it):",
        "  | first",
        "  | second\\x1b[2J",
        "If you answer, MCP server srv will receive: token.",
        "  token is a secret: typed without echo, kept nowhere here, and sent to MCP server srv.",
    ]


def test_screen_rows_split_line_breaks_and_wrap_styled_text_by_its_visible_width() -> None:
    bold = "\x1b[1m" + "x" * 15 + "\x1b[0m"
    assert screen_rows(["a\nb", bold], 12) == ["a", "b", "\x1b[1m" + "x" * 11, "    xxxx\x1b[0m"]
