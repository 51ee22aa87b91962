"""ServerForms and web page requests (URL mode): when they are asked, which are declined
unseen, and which completions are told."""

from __future__ import annotations

import mcp_types as types
import pytest

from agent.mcp.forms.elicitation import ElicitationAnswer
from agent.mcp.forms.server_forms import URL_REQUESTS_PER_CALL, ServerForms
from tests.mcp.runtime_helpers import ScriptedElicitation

pytestmark = pytest.mark.anyio

URL = "https://example.com/connect"


def page(url: str = URL, elicitation_id: str = "e1") -> types.ElicitRequestURLParams:
    return types.ElicitRequestURLParams(message="Connect", url=url, elicitation_id=elicitation_id)


def forms_with(handler: ScriptedElicitation, notes: list[str]) -> ServerForms:
    return ServerForms("fx", handler, notes.append, secret=lambda value: None)


async def test_an_accepted_page_is_asked_with_its_judged_url_and_its_completion_is_told() -> None:
    handler = ScriptedElicitation(ElicitationAnswer("decline"), url_action="accept")
    forms = forms_with(handler, [])
    with forms.tool_call():
        assert await forms.elicit(1, page()) == types.ElicitResult(action="accept")
    forms.completed("someone-elses-id")
    forms.completed("e1")
    forms.completed("e1")  # told once: a repeat is a completed id, ignored
    assert [request.url for request in handler.url_requests] == [URL]
    assert handler.notices == ["MCP server fx says the page on example.com is finished."]


async def test_a_declined_page_has_no_completion_to_tell() -> None:
    handler = ScriptedElicitation(ElicitationAnswer("decline"), url_action="decline")
    forms = forms_with(handler, [])
    with forms.tool_call():
        assert await forms.elicit(1, page()) == types.ElicitResult(action="decline")
    forms.completed("e1")
    assert handler.notices == []


async def test_a_page_outside_any_tool_call_is_declined_unasked_with_a_notice() -> None:
    handler = ScriptedElicitation(ElicitationAnswer("decline"), url_action="accept")
    notes: list[str] = []
    forms = forms_with(handler, notes)
    assert await forms.elicit(1, page()) == types.ElicitResult(action="decline")
    assert handler.url_requests == []
    assert handler.notices == [
        "Declined a web page from MCP server fx: it asked while none of its tool calls was running."
    ]


async def test_a_refused_url_never_reaches_the_front_end() -> None:
    handler = ScriptedElicitation(ElicitationAnswer("decline"), url_action="accept")
    forms = forms_with(handler, [])
    with forms.tool_call():
        result = await forms.elicit(1, page("javascript:alert(1)"))
    assert result == types.ElicitResult(action="decline")
    assert handler.url_requests == []
    assert "this URL has javascript:" in handler.notices[0]


async def test_more_pages_than_a_call_may_ask_are_declined_and_said_once_when_it_ends() -> None:
    handler = ScriptedElicitation(ElicitationAnswer("decline"), url_action="decline")
    forms = forms_with(handler, [])
    with forms.tool_call():
        for number in range(URL_REQUESTS_PER_CALL + 5):
            await forms.elicit(number, page(elicitation_id=f"e{number}"))
        assert handler.notices == []
    assert len(handler.url_requests) == URL_REQUESTS_PER_CALL
    assert handler.notices == [
        "Declined 5 more web pages from MCP server fx: one question at a time, "
        f"at most {URL_REQUESTS_PER_CALL} in a tool call."
    ]


async def test_a_call_needing_pages_offers_them_and_says_it_can_be_retried() -> None:
    handler = ScriptedElicitation(ElicitationAnswer("decline"), url_action="accept")
    forms = forms_with(handler, [])
    with forms.tool_call():
        said = await forms.pages_required([page()])
    assert "retry the call once they have finished there" in said
    assert [request.url for request in handler.url_requests] == [URL]
