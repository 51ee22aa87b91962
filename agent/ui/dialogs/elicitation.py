"""Elicitation forms in the chat: a server asks for values, one field at a time.

The form first shows which server asks, its whole message (paged when long) and what the
server will receive; types are converted and checked against the requested schema and
defaults are offered; Esc or Ctrl-C at the first question declines, Ctrl-C in a field
cancels. A secret field is typed without echo into a prompt with no history, so it stays
out of the scrollback and every file. Drawn with prompt_toolkit inside the turn, so Ctrl-C
never leaves a reader behind. The question and each field hear only keys pressed after they
are drawn (agent.ui.dialogs.fresh_keys): a value typed before its field was asked is dropped.

A web page request (URL mode) shows the whole URL, wrapped, and its host on a line of its own
(agent.mcp.forms.url_request), then asks: y opens it in the browser and accepts, n declines,
Esc or Ctrl-C cancels. Nothing is opened but after that y.
"""

from __future__ import annotations

from prompt_toolkit.history import InMemoryHistory
from prompt_toolkit.shortcuts import PromptSession

from agent.mcp.forms.elicitation import (
    Action,
    ElicitationAnswer,
    ElicitationRequest,
    FieldValue,
    FormField,
    convert_value,
    default_text,
    describe_form,
    field_question,
    form_fields,
    refusal,
)
from agent.mcp.forms.url_opening import open_in_browser, opened_line
from agent.mcp.forms.url_request import UrlRequest, describe_url_request
from agent.text import sanitize, sanitize_line
from agent.ui.dialogs.frame import ask_with_pages
from agent.ui.dialogs.fresh_keys import ask_line
from agent.ui.dialogs.one_question import QUESTION_TURN
from agent.ui.style import styled
from agent.ui.typeahead import dialog_keys


class _NoHistory(InMemoryHistory):
    """A history that keeps nothing: a secret typed once must not come back with Up."""

    def store_string(self, string: str) -> None:
        """Forget it."""


async def ask_field(session: PromptSession[str], field: FormField) -> FieldValue:
    """One field asked until it is valid; None for an optional field left empty."""
    default = "" if field.default is None or field.secret else default_text(field)
    question = field_question(field, show_default=False)
    while True:
        if field.secret:
            secret_session = PromptSession[str](history=_NoHistory())
            text = await ask_line(secret_session, question, is_password=True)
        else:
            text = await ask_line(session, question, default=default)
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
        """Ask the person; only an answered form is accepted."""
        refused = refusal(request)
        if refused is not None:
            self.notice(refused)
            return ElicitationAnswer("decline")
        async with QUESTION_TURN:
            with dialog_keys():  # the form's keys are its own, never typed-ahead ones
                return await self._ask(request)

    async def _ask(self, request: ElicitationRequest) -> ElicitationAnswer:
        lines = describe_form(request)
        lines[0] = styled(lines[0], "bold")
        server = sanitize_line(request.server)
        choice = await ask_with_pages(
            ["", *lines],
            f"Answer MCP server {server}? [y] yes  [n] decline  [c] cancel ",
            {"y": "y", "n": "n", "c": "c"},
        )
        if choice == "n":
            return ElicitationAnswer("decline")
        if choice != "y":
            return ElicitationAnswer("cancel")
        session: PromptSession[str] = PromptSession(history=_NoHistory())
        content: dict[str, FieldValue] = {}
        try:
            for field in form_fields(request.schema):
                value = await ask_field(session, field)
                if value is not None:
                    content[field.name] = value
        except (KeyboardInterrupt, EOFError):
            return ElicitationAnswer("cancel")
        return ElicitationAnswer("accept", content)

    async def elicit_url(self, request: UrlRequest) -> Action:
        """Ask whether to open the page; open it only on y."""
        async with QUESTION_TURN:
            with dialog_keys():  # a y typed ahead must never open a page
                lines = describe_url_request(request)
                lines[0] = styled(lines[0], "bold")
                choice = await ask_with_pages(
                    ["", *lines],
                    "Open it in your browser? [y] yes  [n] no  [Esc] cancel ",
                    {"y": "y", "n": "no"},  # Esc and Ctrl-C answer "n": cancel, not no
                )
        if choice == "no":
            return "decline"
        if choice != "y":
            return "cancel"
        self.notice(opened_line(request, await open_in_browser(request)))
        return "accept"

    def notice(self, text: str) -> None:
        """One line above the prompt."""
        print(styled(sanitize_line(text), "yellow"))
