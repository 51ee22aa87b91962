"""Forms (elicitations) from servers, answered in the page: shown to every open tab, and the
first valid answer wins.

With no tab open nobody can answer: the form is cancelled at once (nobody declined it); a form
whose every tab closed is cancelled too, with a note saying so. A form of a server that already
has one open is declined at once, and so is one beyond eight open in all (a note in the log says
how many, once the open form closes). A form nobody answers within the wait is cancelled, and so
is one whose tool call ended (the runtime cancels the wait). An answer is checked against the
requested schema first (MCP's form keywords only: a server's `pattern` is not one), and a wrong
one is refused with its problems; the form stays open.

A web page request (URL mode) is shown the same way, under the same limits: the page gets the
whole URL and its host lines as text, and only the person's click on its link opens it, in a
new tab (the console page never navigates itself); that click answers accept.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass, field
from typing import Any

import anyio

from agent.mcp.forms.elicitation import Action, ElicitationAnswer, ElicitationRequest, refusal
from agent.mcp.forms.schema import form_keywords
from agent.mcp.forms.url_request import UrlRequest, host_lines
from agent.text import plural
from agent.tools.validation import argument_problems
from agent.web.console_hub import ConsoleHub, Event

ACTIONS: tuple[Action, ...] = ("accept", "decline", "cancel")
# A server may send thousands of forms at once, each shown in every tab and replayed to every
# new one. The terminal shows one form at a time; the page keeps one open per server and a few
# in all, and declines the rest at once.
FORMS_OPEN_PER_SERVER = 1
FORMS_OPEN_IN_ALL = 8
ONE_OPEN = "one is already open"
# A form whose pages all closed is cancelled once none has come back for this long: a page's
# stream reconnects after one second, so a reload or a broken connection keeps the form.
PAGE_GONE_SECONDS = 3.0
_LOOK_EVERY = 0.5


class UnknownFormError(LookupError):
    """No form with that id is waiting (never was, or already answered)."""


class BadAnswerError(ValueError):
    """The answer does not fit the form (the text lists the problems)."""


@dataclass
class _Pending:
    id: str
    request: ElicitationRequest | UrlRequest
    done: anyio.Event = field(default_factory=anyio.Event)
    answer: ElicitationAnswer | None = None

    def shown(self) -> dict[str, Any]:
        if isinstance(self.request, UrlRequest):
            return {
                "id": self.id,
                "mode": "url",
                "server": self.request.server,
                "message": self.request.message,
                "url": self.request.url,
                "host": self.request.judged.ascii_host,
                "hostLines": host_lines(self.request.judged),
            }
        return {
            "id": self.id,
            "server": self.request.server,
            "message": self.request.message,
            "schema": self.request.schema,
        }


class PageElicitation:
    """The ElicitationHandler of the console: forms go to the tabs through the hub."""

    def __init__(self, hub: ConsoleHub, wait_seconds: float) -> None:
        self._hub = hub
        self._wait = wait_seconds
        self._pending: dict[str, _Pending] = {}
        self._ids = itertools.count(1)
        # Forms declined for being too many, by (server, why), noted once the burst is over.
        self._declined: dict[tuple[str, str], int] = {}

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        """Show the form to every tab and wait for the first valid answer (bounded)."""
        refused = refusal(request)
        if refused is not None:
            self.notice(refused)
            return ElicitationAnswer("decline")
        if self._hub.streams == 0:
            # Nobody declined it: nobody saw it. MCP's answer for a form dismissed unanswered
            # is cancel.
            self.notice(
                f"Cancelled a form from MCP server {request.server}: no console page is open."
            )
            return ElicitationAnswer("cancel")
        return await self._shown_until_answered(request)

    async def elicit_url(self, request: UrlRequest) -> Action:
        """Show the page's URL to every tab; accept only once a tab's link was clicked."""
        if self._hub.streams == 0:
            self.notice(
                f"Declined a web page from MCP server {request.server}: no console tab is open."
            )
            return "decline"
        return (await self._shown_until_answered(request)).action

    async def _shown_until_answered(
        self, request: ElicitationRequest | UrlRequest
    ) -> ElicitationAnswer:
        too_many = self._too_many(request.server)
        if too_many is not None:
            key = (request.server, too_many)
            self._declined[key] = self._declined.get(key, 0) + 1
            return ElicitationAnswer("decline")
        pending = _Pending(f"e{next(self._ids)}", request)
        self._pending[pending.id] = pending
        self._hub.publish(Event("elicitation", pending.shown()))
        answer = ElicitationAnswer("cancel")
        try:
            with anyio.move_on_after(self._wait):
                await self._answered_while_a_page_is_open(pending)
            if pending.answer is None and self._hub.streams == 0:
                self.notice(
                    f"Cancelled a form from MCP server {request.server}: the console page "
                    "closed before the form was answered."
                )
            if pending.answer is not None:
                answer = pending.answer
        finally:
            # Answered, timed out, or cancelled (the tool call ended): the tabs close it.
            self._pending.pop(pending.id, None)
            done = {"id": pending.id, "action": answer.action}
            self._hub.publish(Event("elicitation-done", done))
            self._note_declined(request.server)
        return answer

    async def _answered_while_a_page_is_open(self, pending: _Pending) -> None:
        """Wait for the answer, or until no page has been open for PAGE_GONE_SECONDS (a page
        that reloads reconnects within one second and keeps the form)."""
        gone = 0.0
        while gone < PAGE_GONE_SECONDS:
            with anyio.move_on_after(_LOOK_EVERY):
                await pending.done.wait()
                return
            gone = gone + _LOOK_EVERY if self._hub.streams == 0 else 0.0

    def _too_many(self, server: str) -> str | None:
        """Why a new form of `server` cannot be shown now, or None when it can."""
        same = sum(1 for pending in self._pending.values() if pending.request.server == server)
        if same >= FORMS_OPEN_PER_SERVER:
            return ONE_OPEN
        if len(self._pending) >= FORMS_OPEN_IN_ALL:
            return f"{FORMS_OPEN_IN_ALL} forms are already open"
        return None

    def _note_declined(self, closed: str) -> None:
        """One note per burst: the forms of `closed` declined while its form was open, and
        any declined because too many were open in all."""
        for server, why in list(self._declined):
            if server != closed and why == ONE_OPEN:
                continue  # that server's form is still open: its burst goes on
            count = self._declined.pop((server, why))
            self.notice(f"Declined {plural(count, 'more form')} from MCP server {server}: {why}.")

    def notice(self, text: str) -> None:
        """A form answered without asking: a note in the log."""
        self._hub.note("", text)

    def replay(self) -> list[Event]:
        """The forms still waiting, for a tab that opens now."""
        return [Event("elicitation", pending.shown()) for pending in self._pending.values()]

    def answer(self, form_id: str, action: object, content: object) -> None:
        """A tab's answer; UnknownFormError or BadAnswerError (the form stays open) if wrong."""
        pending = self._pending.get(form_id)
        if pending is None or pending.answer is not None:
            raise UnknownFormError(f"no form {form_id!r} is waiting for an answer")
        if action not in ACTIONS:
            raise BadAnswerError('action: must be "accept", "decline" or "cancel"')
        if isinstance(pending.request, UrlRequest):
            pending.answer = ElicitationAnswer(action)  # accept: the tab opened the page
        elif action != "accept":
            pending.answer = ElicitationAnswer(action)
        else:
            checked = _checked_content(pending.request.schema, content)
            pending.answer = ElicitationAnswer("accept", checked)
        pending.done.set()


def _checked_content(schema: dict[str, Any], content: object) -> dict[str, Any]:
    if not isinstance(content, dict):
        raise BadAnswerError("content: must be an object of the form's fields")
    fields = schema.get("properties") or {}
    unknown = [name for name in content if name not in fields]
    problems = [f"content.{name}: not a field of this form" for name in unknown]
    problems += argument_problems(form_keywords(schema), content)
    if problems:
        raise BadAnswerError("; ".join(problems))
    return dict(content)
