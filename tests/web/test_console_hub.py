"""The console's log and event queues, through the real module: bounded everywhere."""

from __future__ import annotations

import json

import pytest

from agent.web.console_hub import LOG_KEPT, MAX_STREAMS, QUEUE_EVENTS, TEXT_CHARS, ConsoleHub


@pytest.mark.anyio
async def test_a_tab_that_falls_behind_loses_its_oldest_events_and_is_told_how_many() -> None:
    hub = ConsoleHub()
    tab = hub.subscribe(list)
    assert tab is not None

    for number in range(QUEUE_EVENTS + 5):
        hub.note("fx", f"line {number}")
    events = await tab.take(0)
    note = hub.dropped_note(tab)

    assert len(events) == QUEUE_EVENTS
    assert events[0].data["text"] == "line 5"
    assert note is not None and note.data["text"] == "this tab fell behind: 5 events were dropped"
    assert hub.dropped_note(tab) is None


@pytest.mark.anyio
async def test_a_new_tab_gets_the_last_entries_of_the_log_first() -> None:
    hub = ConsoleHub()
    for number in range(LOG_KEPT + 10):
        hub.observe("fx", "send", f'{{"jsonrpc": "2.0", "id": {number}, "method": "ping"}}')

    tab = hub.subscribe(list)
    assert tab is not None
    events = await tab.take(0)

    assert len(events) == LOG_KEPT
    first = events[0].data
    assert (first["id"], first["kind"], first["method"], first["direction"]) == (
        10,
        "request",
        "ping",
        "sent",
    )


def test_streams_are_capped_and_a_long_text_is_cut_with_a_note() -> None:
    hub = ConsoleHub()
    tabs = [hub.subscribe(list) for _ in range(MAX_STREAMS + 1)]
    hub.observe_stderr("fx", "x" * (TEXT_CHARS + 10))

    assert tabs[-1] is None and all(tab is not None for tab in tabs[:-1])
    entry = hub.log[-1].data
    assert entry["cut"] is True
    assert (
        entry["text"]
        == "x" * TEXT_CHARS + f" [cut: {TEXT_CHARS} of {TEXT_CHARS + 10:,} characters]"
    )


def test_only_the_sessions_own_probe_refusals_are_the_normal_fallback() -> None:
    """The era probe refused is the normal way of a connection; a refusal of anything else,
    a hand-written `initialize` (under the bridge's string id), or an `initialize` refused for
    another reason stays an error."""
    hub = ConsoleHub()

    def exchange(request_id: object, method: str, code: int) -> dict[str, object]:
        sent = {"jsonrpc": "2.0", "id": request_id, "method": method}
        hub.observe("fx", "send", json.dumps(sent))
        error = {"code": code, "message": "no"}
        hub.observe(
            "fx", "receive", json.dumps({"jsonrpc": "2.0", "id": request_id, "error": error})
        )
        return hub.log[-1].data

    assert exchange(1, "server/discover", -32601)["kind"] == "fallback"
    assert exchange(2, "initialize", -32022)["kind"] == "fallback"
    assert exchange(3, "initialize", -32603)["kind"] == "error"
    assert exchange("console-ab12-1", "initialize", -32022)["kind"] == "error"
    assert exchange(4, "tools/list", -32601)["kind"] == "error"
    assert exchange(5, "server/discover", -32022)["kind"] == "error"  # may name no version of ours
    assert "the server speaks the 2025 era" in str(hub.log[1].data["note"])
