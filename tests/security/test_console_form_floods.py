"""A server cannot flood the console's tabs with forms (review of issue 14, F4).

The attack: one tool call sends thousands of `elicitation/create` requests at once; each became
a pending form shown in every tab and replayed to each new one, burying the log. Now a server
has at most one form open at a time and all servers eight; the rest are declined at once, with
one note in the log per burst.
"""

from __future__ import annotations

import json
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.mcp.forms.elicitation import ElicitationAnswer, ElicitationRequest
from agent.web.console_hub import ConsoleHub
from agent.web.elicitations import FORMS_OPEN_IN_ALL, PageElicitation
from tests.security.test_schema_pattern_bounds import save_attack_server
from tests.web.console_helpers import EventStream, running_console

FORM = {"type": "object", "properties": {"x": {"type": "string"}}}


def our_answers(seen: list[tuple[str, Any]]) -> int:
    """How many answers to server requests the log shows we sent."""
    return sum(
        1
        for kind, data in seen
        if kind == "log" and data["direction"] == "sent" and data["kind"] == "response"
    )


def test_a_hundred_forms_at_once_show_one_and_the_rest_are_declined_with_one_note(
    tmp_path: Path,
) -> None:
    save_attack_server(tmp_path / "home", tmp_path / "calls.jsonl")
    with running_console(tmp_path / "home") as console, ThreadPoolExecutor(1) as pool:
        assert console.post("/api/servers/sx/connect", {}).status == 200
        events = EventStream(console)
        try:
            body = {"tool": "flood", "arguments": {"count": 100}}
            called = pool.submit(console.post, "/api/servers/sx/call", body)
            _, form = events.wait_for(lambda kind, data: kind == "elicitation")
            # Every other form is answered (declined) before the open one is.
            events.wait_for(lambda kind, data: our_answers(events.seen) == 99)
            answer = {"action": "accept", "content": {"x": "hi"}}
            assert console.post(f"/api/elicitations/{form['id']}", answer).status == 200
            result = called.result(timeout=60)
            events.wait_for(lambda kind, data: kind == "log" and data["direction"] == "note")
        finally:
            events.close()

    assert result.status == 200, result.text
    told = json.loads(result.json()["result"]["content"][0]["text"])
    assert told == {"accept": 1, "decline": 99, "cancel": 0}
    assert [data["id"] for kind, data in events.seen if kind == "elicitation"] == [form["id"]]
    notes = [
        data["text"] for kind, data in events.seen if kind == "log" and data["direction"] == "note"
    ]
    assert notes == ["Declined 99 more forms from MCP server sx: one is already open."]


@pytest.mark.anyio
async def test_forms_of_many_servers_at_once_show_at_most_eight() -> None:
    hub = ConsoleHub()
    tab = hub.subscribe(lambda: [])
    assert tab is not None
    forms = PageElicitation(hub, wait_seconds=30)
    answers: list[ElicitationAnswer] = []

    async def ask(server: str) -> None:
        answers.append(await forms.elicit(ElicitationRequest(server, "Name?", FORM)))

    with anyio.fail_after(10):
        async with anyio.create_task_group() as group:
            for index in range(100):
                group.start_soon(ask, f"s{index % 20}")
            await wait_until(lambda: len(answers) == 100 - FORMS_OPEN_IN_ALL)
            shown = [event for event in await tab.take(0) if event.type == "elicitation"]
            for event in shown:
                forms.answer(event.data["id"], "decline", None)

    assert len(shown) == FORMS_OPEN_IN_ALL
    assert len({event.data["server"] for event in shown}) == FORMS_OPEN_IN_ALL  # one each
    assert [answer.action for answer in answers] == ["decline"] * 100
    notes = [event.data["text"] for event in hub.log if event.data["direction"] == "note"]
    assert sorted(notes) == sorted(expected_notes())


def expected_notes() -> list[str]:
    # s0..s7 got a form shown and 4 more declined ("one is already open"); s8..s19 had none
    # shown: their 5 forms each were declined because eight were open.
    own = [f"Declined 4 more forms from MCP server s{i}: one is already open." for i in range(8)]
    full = [
        f"Declined 5 more forms from MCP server s{i}: 8 forms are already open."
        for i in range(8, 20)
    ]
    return own + full


async def wait_until(done: Any) -> None:
    """Let the other tasks run until `done()` (the caller bounds the wait)."""
    while not done():
        await anyio.sleep(0)
