"""ServerForms: when forms are answered, and how the trace shows an answer's secrets."""

from __future__ import annotations

from typing import Any

import mcp_types as types
import pytest

from agent.mcp.forms.elicitation import ElicitationAnswer
from agent.mcp.forms.server_forms import ServerForms
from tests.mcp.runtime_helpers import ScriptedElicitation

pytestmark = pytest.mark.anyio

SCHEMA: dict[str, Any] = {
    "type": "object",
    "properties": {"user": {"type": "string"}, "code": {"type": "string", "format": "password"}},
}


def answer_message(request_id: int, content: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": {"action": "accept", "content": content}}


async def test_the_traced_answer_blanks_secret_fields_by_name_however_short() -> None:
    notes: list[str] = []
    forms = ServerForms(
        "fx",
        ScriptedElicitation(ElicitationAnswer("accept", {"user": "ada", "code": "12"})),
        notes.append,
        secret=lambda value: None,
    )
    params = types.ElicitRequestFormParams(message="Sign in", requested_schema=SCHEMA)
    with forms.tool_call():
        answer = await forms.elicit(7, params)
    sent = answer_message(7, {"user": "ada", "code": "12"})

    assert answer == types.ElicitResult(action="accept", content={"user": "ada", "code": "12"})
    # The server's answer to a request of ours may carry the same id: it is not our answer.
    assert forms.for_trace(False, sent) == sent
    assert forms.for_trace(True, sent) == answer_message(7, {"user": "ada", "code": "***"})
    assert notes == []


async def test_a_form_outside_any_tool_call_is_declined_with_a_note() -> None:
    notes: list[str] = []
    handler = ScriptedElicitation(ElicitationAnswer("accept", {"user": "ada"}))
    forms = ServerForms("fx", handler, notes.append, secret=lambda value: None)
    params = types.ElicitRequestFormParams(message="Sign in", requested_schema=SCHEMA)

    assert await forms.elicit(1, params) == types.ElicitResult(action="decline")
    assert handler.requests == []
    assert notes == ["declined a form sent while none of its tool calls was running"]
