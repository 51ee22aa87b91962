"""The forms (elicitations) one server sends, over the life of its connection.

A form is answered only while one of that server's tool calls runs, or a prompt or resource
read the person asked for (a 2026-07-28 server may ask for input there too): nobody waits on
the server otherwise, and a form then would draw over the chat's prompt. A form still open
when the last call ends is closed. What is typed into a secret field goes to the server and
nowhere else: the trace shows our answer with those fields blanked, by field name, since a
short secret (a PIN) cannot be found by searching text; and the value becomes one of the
server's secrets (`secret`), masked in everything it says afterwards, as a server that
echoes it back ("signed in with ...") would otherwise hand it to the model and the session.
Cancel means "stop asking": once the person cancels a question, the server's further ones
are cancelled unseen until its calls end (a 2026-07-28 server's `input_required` rounds come
through here too, so a server cannot re-ask round after round), and counted in one note.

A URL-mode request (a web page to open) follows the same rule, and more: its URL is judged
before anyone sees it (agent.mcp.forms.url_request), only one is asked at a time per server and
only a few per tool call, so a flood cannot bury the chat in questions; the rest are declined
with one note. A page the person agreed to open is remembered by its elicitation id (a few), so
the server's `notifications/elicitation/complete` for it can be told; other ids are ignored, as
the spec says. A `-32042` error (the call needs pages opened first) offers its pages the same way.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import mcp_types as types

from agent.mcp.forms.elicitation import (
    Action,
    ElicitationHandler,
    ElicitationRequest,
    form_fields,
)
from agent.mcp.forms.url_request import (
    RefusedUrlError,
    url_refusal,
    url_request,
)
from agent.redaction import MASK
from agent.text import plural, sanitize_line

_PENDING_ANSWERS = 16
# Web pages asked about during one tool call, and pages agreed to whose completion is awaited.
URL_REQUESTS_PER_CALL = 3
_AWAITED_COMPLETIONS = 16


class ServerForms:
    """Form elicitation for one server: when forms are answered, and what is secret."""

    def __init__(
        self,
        server: str,
        handler: ElicitationHandler,
        note: Callable[[str], None],
        secret: Callable[[str], None],
    ):
        self._server = server
        self._handler = handler
        self._note = note  # a line in the server's log
        self._secret = secret  # typed into a secret field: masked from then on
        self._calls_running = 0
        self._open: set[anyio.CancelScope] = set()  # closed when the last call ends
        self._secret_fields: dict[types.RequestId, list[str]] = {}  # until the answer is sent
        self._url_asking = False  # a web page question of this server is on screen
        self._urls_this_call = 0  # asked since no call was running
        self._urls_declined = 0  # declined as too many, said once the burst is over
        self._awaited: dict[str, str] = {}  # elicitation id -> host, pages agreed to
        # The person cancelled a question during the running calls: cancel means "stop
        # asking", so the server's further questions (a legacy server asking again and again,
        # a modern one's next input_required round) are cancelled unseen until they end.
        self._cancelled = False
        self._cancelled_unseen = 0  # said once the calls are over
        # Questions declined while none of its calls ran: the first is said at once, the rest
        # are counted and said when a call of its starts (a server asking again and again would
        # otherwise fill the chat with one line each).
        self._unsolicited = 0

    @contextmanager
    def tool_call(self) -> Iterator[None]:
        """The span of one tool call (or prompt got, or resource read): forms that arrive
        within it are shown."""
        self._calls_running += 1
        self._say_unsolicited()
        try:
            yield
        finally:
            self._calls_running -= 1
            if self._calls_running == 0:
                # A form outliving the call it belongs to would stay drawn over the prompt.
                for form in self._open:
                    form.cancel()
                self._urls_this_call = 0
                self._say_urls_declined()
                self._cancelled = False
                self._say_cancelled_unseen()

    async def elicit(
        self, request_id: types.RequestId, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        """Ask the person (or decline at once, saying why); remember the secret fields."""
        if self._cancelled and self._calls_running:
            self._cancelled_unseen += 1
            return types.ElicitResult(action="cancel")
        answer = await self._ask(request_id, params)
        if answer.action == "cancel" and self._calls_running:
            self._cancelled = True
        return answer

    async def _ask(
        self, request_id: types.RequestId, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        if isinstance(params, types.ElicitRequestURLParams):
            return types.ElicitResult(action=await self.offer_url(params))
        if self._calls_running == 0:
            self._note("declined a form sent while none of its tool calls was running")
            if not self._unsolicited:
                self._handler.notice(
                    f"Declined a form from MCP server {self._server}: it asked while none of "
                    "its tool calls was running."
                )
            self._unsolicited += 1
            return types.ElicitResult(action="decline")
        request = ElicitationRequest(self._server, params.message, dict(params.requested_schema))
        with anyio.CancelScope() as form:
            self._open.add(form)
            try:
                answer = await self._handler.elicit(request)
            finally:
                self._open.discard(form)
        if form.cancelled_caught:
            self._handler.notice(
                f"Closed a form from MCP server {self._server}: the tool call it asked for ended."
            )
            return types.ElicitResult(action="cancel")
        if answer.action != "accept":
            return types.ElicitResult(action=answer.action)
        secret = [f.name for f in form_fields(request.schema) if f.secret]
        if secret:
            self._secret_fields[request_id] = secret
            while len(self._secret_fields) > _PENDING_ANSWERS:  # untraced answers are never popped
                del self._secret_fields[next(iter(self._secret_fields))]
        for name in secret:
            if answer.content.get(name) not in (None, ""):
                self._secret(str(answer.content[name]))
        return types.ElicitResult(action="accept", content=dict(answer.content))

    async def offer_url(self, params: types.ElicitRequestURLParams) -> Action:
        """Ask the person whether to open a server's web page: "accept" only once they said
        yes (the front end has opened it by then); refused or too many, declined unseen."""
        if self._calls_running == 0:
            reason = "it asked while none of its tool calls was running"
            if self._unsolicited:
                self._note(url_refusal(self._server, reason))
                self._unsolicited += 1
                return "decline"
            self._unsolicited += 1
            return self._decline_url(reason)
        try:
            request = url_request(self._server, params.message, params.url, params.elicitation_id)
        except RefusedUrlError as refused:
            return self._decline_url(str(refused))
        if self._url_asking or self._urls_this_call >= URL_REQUESTS_PER_CALL:
            self._urls_declined += 1
            return "decline"
        self._urls_this_call += 1
        self._url_asking = True
        with anyio.CancelScope() as question:
            self._open.add(question)
            try:
                action = await self._handler.elicit_url(request)
            finally:
                self._open.discard(question)
                self._url_asking = False
        if question.cancelled_caught:
            self._handler.notice(
                f"Closed a question of MCP server {self._server}: the tool call it asked for ended."
            )
            return "cancel"
        self._note(f"web page on {request.judged.ascii_host}: {action}")
        if action == "accept" and request.elicitation_id is not None:
            self._awaited[request.elicitation_id] = request.judged.ascii_host
            while len(self._awaited) > _AWAITED_COMPLETIONS:
                del self._awaited[next(iter(self._awaited))]
        return action

    async def pages_required(self, pages: list[types.ElicitRequestURLParams]) -> str:
        """A call's `-32042` answer: each page offered as a URL request is; the sentence
        that ends the call (the model, or the person, may retry it once the pages are done)."""
        actions = [await self.offer_url(page) for page in pages[:URL_REQUESTS_PER_CALL]]
        self._urls_declined += len(pages) - len(actions)
        if actions and all(action == "accept" for action in actions):
            return (
                "needs a web page finished first; it was opened in the person's browser: "
                "retry the call once they have finished there"
            )
        return (
            "needs a web page finished first and the person did not open it; the call can be "
            "retried if they choose to open it"
        )

    def completed(self, elicitation_id: str) -> None:
        """The server's `notifications/elicitation/complete`: told for a page agreed to."""
        host = self._awaited.pop(elicitation_id, None)
        if host is None:
            self._note("ignored a completion for a web page this client did not open")
            return
        self._note(f"web page on {host} finished")
        self._handler.notice(f"MCP server {self._server} says the page on {host} is finished.")

    def _decline_url(self, reason: str) -> Action:
        said = url_refusal(self._server, reason)
        self._note(said)
        self._handler.notice(said)
        return "decline"

    def _say_unsolicited(self) -> None:
        if self._unsolicited > 1:
            said = (
                f"Declined {plural(self._unsolicited - 1, 'more question')} from MCP server "
                f"{sanitize_line(self._server)}: it asked while none of its tool calls was running."
            )
            self._note(said)
            self._handler.notice(said)
        self._unsolicited = 0

    def _say_urls_declined(self) -> None:
        if self._urls_declined:
            count, self._urls_declined = self._urls_declined, 0
            said = (
                f"Declined {plural(count, 'more web page')} from MCP server "
                f"{sanitize_line(self._server)}: "
                f"one question at a time, at most {URL_REQUESTS_PER_CALL} in a tool call."
            )
            self._note(said)
            self._handler.notice(said)

    def _say_cancelled_unseen(self) -> None:
        if self._cancelled_unseen:
            count, self._cancelled_unseen = self._cancelled_unseen, 0
            said = (
                f"Cancelled {plural(count, 'more question')} from MCP server "
                f"{sanitize_line(self._server)} unseen: you had cancelled one of its questions."
            )
            self._note(said)
            self._handler.notice(said)

    def for_trace(self, sent: bool, payload: dict[str, Any]) -> dict[str, Any]:
        """A message as the trace may show it: our answer to a form has its secret fields
        blanked (by name: a short secret cannot be found by searching text), whether it is
        the result of the server's request or, in a 2026-07-28 multi-round call, an entry of
        the retried request's `inputResponses` (keyed as the server asked)."""
        if not sent:
            return payload
        if "method" in payload:
            return self._request_for_trace(payload)
        request_id = payload.get("id")
        # Only answers we send: the server's answers to our requests carry ids of our own.
        if not isinstance(request_id, int | str):
            return payload
        result = self._blanked(request_id, payload.get("result"))
        return payload if result is None else {**payload, "result": result}

    def _request_for_trace(self, payload: dict[str, Any]) -> dict[str, Any]:
        params = payload.get("params")
        responses = params.get("inputResponses") if isinstance(params, dict) else None
        if not isinstance(params, dict) or not isinstance(responses, dict):
            return payload
        # Kept, not consumed: a retry after HEADER_MISMATCH sends the same answers again.
        blanked = {key: self._blanked(key, answer, keep=True) for key, answer in responses.items()}
        if all(answer is None for answer in blanked.values()):
            return payload
        shown = {key: blanked[key] or answer for key, answer in responses.items()}
        return {**payload, "params": {**params, "inputResponses": shown}}

    def _blanked(
        self, request_id: types.RequestId, result: Any, *, keep: bool = False
    ) -> dict[str, Any] | None:
        """`result` (our answer to the form `request_id`) with its secret fields blanked;
        None when it has none to blank."""
        secret_fields = self._secret_fields
        fields = secret_fields.get(request_id) if keep else secret_fields.pop(request_id, None)
        if (
            not fields
            or not isinstance(result, dict)
            or not isinstance(result.get("content"), dict)
        ):
            return None
        content: dict[str, Any] = result["content"]
        blanked = {
            key: MASK if key in fields and value not in (None, "") else value
            for key, value in content.items()
        }
        return {**result, "content": blanked}
