"""Elicitation forms in the chat: a server asks for values, one field at a time.

Types are converted and checked against the requested schema and defaults are offered;
Esc or Ctrl-C at the first question declines, Ctrl-C in a field cancels. Drawn with
prompt_toolkit inside the turn, so Ctrl-C never leaves a reader behind.
"""

from __future__ import annotations

from prompt_toolkit.shortcuts import PromptSession

from agent.mcp.elicitation import (
    ElicitationAnswer,
    ElicitationRequest,
    FieldValue,
    FormField,
    convert_value,
    form_fields,
)
from agent.text import sanitize
from agent.ui.dialog import ask_with_pages
from agent.ui.style import styled


async def _field(session: PromptSession[str], field: FormField) -> FieldValue:
    hint = f" ({', '.join(field.choices)})" if field.choices else f" ({field.kind})"
    optional = "" if field.required else ", optional"
    description = f" - {sanitize(field.description)}" if field.description else ""
    default = "" if field.default is None else str(field.default)
    question = f"  {sanitize(field.title)}{description}{hint}{optional}: "
    while True:
        text = await session.prompt_async(question, default=default, handle_sigint=False)
        if not text.strip():
            if not field.required:
                return None
            print(styled("  (required)", "yellow"))
            continue
        try:
            return convert_value(field, text)
        except ValueError as error:
            print(styled(f"  {sanitize(str(error))}", "yellow"))


class ChatElicitation:
    """Shows the server's message, asks whether to answer, then each field."""

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        lines = [
            "",
            styled(f"MCP server {sanitize(request.server)} asks:", "bold"),
            f"  {sanitize(request.message)}",
        ]
        choice = await ask_with_pages(
            lines, "Answer? [y] yes  [n] decline  [c] cancel ", {"y": "y", "n": "n", "c": "c"}
        )
        if choice == "n":
            return ElicitationAnswer("decline")
        if choice != "y":
            return ElicitationAnswer("cancel")
        session: PromptSession[str] = PromptSession()
        content: dict[str, FieldValue] = {}
        try:
            for field in form_fields(request.schema):
                value = await _field(session, field)
                if value is not None:
                    content[field.name] = value
        except (KeyboardInterrupt, EOFError):
            return ElicitationAnswer("cancel")
        return ElicitationAnswer("accept", content)
