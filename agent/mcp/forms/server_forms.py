"""The forms (elicitations) one server sends, over the life of its connection.

A form is answered only while one of that server's tool calls runs: nobody waits on the
server otherwise, and a form then would draw over the chat's prompt. A form still open
when the last call ends is closed. What is typed into a secret field goes to the server and
nowhere else: the trace shows our answer with those fields blanked, by field name, since a
short secret (a PIN) cannot be found by searching text; and the value becomes one of the
server's secrets (`secret`), masked in everything it says afterwards, as a server that
echoes it back ("signed in with ...") would otherwise hand it to the model and the session.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager
from typing import Any

import anyio
import mcp_types as types

from agent.mcp.forms.elicitation import ElicitationHandler, ElicitationRequest, form_fields
from agent.redaction import MASK

_PENDING_ANSWERS = 16


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

    @contextmanager
    def tool_call(self) -> Iterator[None]:
        """The span of one tool call: forms that arrive within it are shown."""
        self._calls_running += 1
        try:
            yield
        finally:
            self._calls_running -= 1
            if self._calls_running == 0:
                # A form outliving the call it belongs to would stay drawn over the prompt.
                for form in self._open:
                    form.cancel()

    async def elicit(
        self, request_id: types.RequestId, params: types.ElicitRequestParams
    ) -> types.ElicitResult:
        """Ask the person (or decline at once, saying why); remember the secret fields."""
        if not isinstance(params, types.ElicitRequestFormParams):
            return types.ElicitResult(action="decline")  # URL mode is not advertised
        if self._calls_running == 0:
            self._note("declined a form sent while none of its tool calls was running")
            self._handler.notice(
                f"Declined a form from MCP server {self._server}: it asked while none of its "
                "tool calls was running."
            )
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

    def for_trace(self, sent: bool, payload: dict[str, Any]) -> dict[str, Any]:
        """A message as the trace may show it: our answer to a form has its secret fields
        blanked (by name: a short secret cannot be found by searching text)."""
        result = payload.get("result")
        request_id = payload.get("id")
        # Only answers we send: the server's answers to our requests carry ids of our own.
        if not sent or "method" in payload or not isinstance(request_id, int | str):
            return payload
        fields = self._secret_fields.pop(request_id, None)
        if (
            not fields
            or not isinstance(result, dict)
            or not isinstance(result.get("content"), dict)
        ):
            return payload
        content: dict[str, Any] = result["content"]
        blanked = {
            key: MASK if key in fields and value not in (None, "") else value
            for key, value in content.items()
        }
        return {**payload, "result": {**result, "content": blanked}}
