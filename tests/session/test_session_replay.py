"""The turns a resume draws again, read from a session's events: in order, with each call's
outcome, attachments by name, nothing malformed, nothing before the first message."""

from __future__ import annotations

import json

from agent.session.replay import ReplayedCall, ReplayedTurn, replayed_turns
from agent.ui.slash.replay import call_title, replay_text, result_size
from tests.session.session_helpers import approval, assistant, result, snapshot_event, user


def test_turns_keep_text_and_calls_in_order_with_each_outcome() -> None:
    events = [
        snapshot_event("notes", "body"),  # before any message: not a turn
        user("first"),
        assistant("Looking.", ("c1", "read_file", '{"path": "a"}'), ("c2", "mcp__fx__echo", "{}")),
        result("c1", "one\ntwo"),
        approval("c2", "mcp__fx__echo", False, "not now"),
        result("c2", "Error: The person declined this tool call."),
        {"type": "assistant", "content": ["malformed"]},
        assistant("Done."),
        user("second"),
        assistant(None, ("c3", "run", "{}")),  # interrupted: no result recorded
    ]

    turns = replayed_turns(events)

    assert turns == [
        ReplayedTurn(
            "first",
            [],
            [
                "Looking.",
                ReplayedCall("read_file", '{"path": "a"}', "one\ntwo"),
                ReplayedCall(
                    "mcp__fx__echo",
                    "{}",
                    "Error: The person declined this tool call.",
                    declined=True,
                    reason="not now",
                ),
                "Done.",
            ],
        ),
        ReplayedTurn("second", [], [ReplayedCall("run", "{}")]),
    ]


def test_attachments_are_named_by_their_labels_and_images_by_type() -> None:
    label = f"server={json.dumps('fx')} uri={json.dumps('doc://a b')}"
    block = f'<attachment boundary="00ff00ff00ff00ff" {label} note="x">\nhi\n</attachment>'
    parts = [
        {"type": "text", "text": block},
        {"type": "text", "text": block},  # one resource in two parts: named once
        {"type": "text", "text": "plain words"},
        {"type": "image", "mime_type": "image/png", "data": "iVBORw0KGgo=", "source": "fx:pic"},
    ]
    turns = replayed_turns([{"type": "user", "content": "look", "parts": parts}])
    assert turns[0].attachments == [
        "@fx:doc://a b",
        "text (11 characters)",
        "an image (image/png, fx:pic)",
    ]


def test_the_drawing_counts_what_it_leaves_out_and_sizes_results() -> None:
    turns = [ReplayedTurn(f"q{n}") for n in range(12)]
    turns.append(ReplayedTurn("\n".join(f"line {n}" for n in range(20))))
    turns.append(ReplayedTurn("calls", steps=[ReplayedCall("run", "{}")]))

    lines = replay_text(turns, "ID", last=3).split("\n")

    assert (
        lines[0] == "… 11 earlier turns not shown (agent sessions show ID prints the whole session)"
    )
    assert lines[1:3] == ["› q11", "› line 0"]
    assert lines[13:15] == ["  line 11", "    … 8 more lines"]
    assert lines[-2:] == ["⏺ run {}", "  ⎿ no result (interrupted)"]
    assert [result_size(t) for t in ("", "x", "a\nb", "a\n" * 1200)] == [
        "empty",
        "1 character",
        "2 lines, 3 characters",
        "1,200 lines, 2,400 characters",
    ]


def test_a_calls_title_is_the_chats_mcp_or_builtin_title() -> None:
    assert call_title("mcp__fx__echo", '{"text": "hi"}') == "fx › echo (mcp__fx__echo)"
    assert (
        call_title("mcp__my-server__read_doc", "{}")
        == "my-server › read_doc (mcp__my-server__read_doc)"
    )
    assert call_title("read_file", '{"path": "a"}') == 'read_file {"path": "a"}'
    assert call_title("mcp__odd", "{}") == "mcp__odd {}"
