"""Several tool calls of one model answer are asked about in one dialog, one question per call,
and the dialog stays exact: `a` says yes to the calls that dialog showed and to nothing later,
a hostile answer of many calls cannot have one approved before it was on screen, and no key
typed before the dialog appeared answers any of its questions.

The real `agent` chat in a pseudo-terminal, the scripted model as a process and the real
tools_server (`fx`, its `echo` tool) as the MCP server every call goes to.
"""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

from tests.pty_chat import page_to, scripted_chat
from tests.security.test_dialog_typeahead import (
    DECLINED,
    echo_call,
    finish,
    tool_results,
)

PAGER = "-- lines [0-9]+-[0-9]+ of [0-9]+: space shows more"
STOPPED = "Error: The person declined this tool call and stopped the turn."


def test_a_says_yes_to_the_calls_its_dialog_showed_and_the_next_answers_calls_ask_again(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    turns: list[dict[str, Any]] = [
        {"tool_calls": [echo_call("c1", "first"), echo_call("c2", "second")]},
        {"tool_calls": [echo_call("c3", "third"), echo_call("c4", "fourth")]},
        {"text": "Two ran, two did not."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("echo four times\r")
        chat.expect("Allow these 2 tool calls\\?")
        chat.expect("Approve call 1 of 2")
        first_dialog = chat.before
        chat.send("a")  # yes to both calls shown here
        chat.expect("Allow these 2 tool calls\\?")  # the next answer's calls ask again
        chat.expect("Approve call 1 of 2")
        second_dialog = chat.before
        chat.send("n")
        chat.expect("Approve call 2 of 2")
        chat.send("n")
        chat.expect("Two ran, two did not.")
        finish(chat)
        requests = fake.requests()
    assert 'text: "first"' in first_dialog and 'text: "second"' in first_dialog
    assert 'text: "third"' in second_dialog and 'text: "fourth"' in second_dialog
    assert tool_results(requests[1]) == {"c1": "first", "c2": "second"}
    assert tool_results(requests[2]) == {
        "c1": "first",
        "c2": "second",
        "c3": DECLINED,
        "c4": DECLINED,
    }


def test_an_answer_of_thirty_calls_is_paged_and_no_yes_counts_before_the_last_call_was_shown(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    calls = [echo_call(f"c{n}", f"call-{n:02d}") for n in range(1, 30)]
    calls.append(echo_call("c30", "rm -rf THE-LAST-CALL"))
    turns = [{"tool_calls": calls}, {"text": "None of them ran."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("go\r")
        chat.expect(PAGER)
        drawn = chat.before
        chat.send("a")  # yes to all, while most calls were never on screen
        chat.expect("count once every call has been shown")  # says why a did nothing
        chat.send("y")  # nor does y: it is typing, and once it stops, the hint is back
        chat.expect(re.escape("(a question is open:"))
        chat.expect("count once every call has been shown")
        chat.send(" ")
        drawn += page_to(chat, "Approve call 1 of 30", pressed=1)
        chat.send("\x1b")  # Esc: no to all of them, and stop the turn
        chat.expect("Turn stopped")
        chat.expect("›")
        chat.send("and now?\r")
        chat.expect("None of them ran.")
        finish(chat)
        requests = fake.requests()
    for n in range(1, 30):
        assert f'text: "call-{n:02d}"' in drawn  # every call was on screen before the question
    assert 'text: "rm -rf THE-LAST-CALL"' in drawn
    results = tool_results(requests[1])
    assert len(results) == 30 and set(results.values()) == {STOPPED}


def test_keys_typed_before_the_dialog_and_a_second_y_answer_none_of_its_questions(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    calls = [echo_call("c1", "first"), echo_call("c2", "second"), echo_call("c3", "third")]
    turns = [{"tool_calls": calls}, {"text": "One of three."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("run them\ra")  # one read: the message, its Enter, and an a
        chat.expect("Approve call 1 of 3")
        chat.send("yy")  # a bounced key: two keys in a row are no answer at all
        chat.expect(re.escape("(a question is open:"))
        chat.expect("Approve call 1 of 3")
        chat.send("y")
        chat.expect("Approve call 2 of 3")
        chat.send("n")
        chat.expect("Approve call 3 of 3")
        chat.send("n")
        chat.expect("One of three.")
        finish(chat)
        requests = fake.requests()
    assert requests[0]["body"]["messages"][-1] == {"role": "user", "content": "run them"}
    assert tool_results(requests[1]) == {"c1": "first", "c2": DECLINED, "c3": DECLINED}
    assert len(requests) == 2


def test_a_call_refused_before_asking_is_shown_as_refused_in_the_dialog_and_never_runs(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    outside = tmp_path / "outside.txt"
    calls = [
        echo_call("c1", "first"),
        {"id": "c2", "name": "write_file", "arguments": {"path": str(outside), "content": "x"}},
        echo_call("c3", "third"),
    ]
    turns = [{"tool_calls": calls}, {"text": "Done."}]
    project = tmp_path / "project"
    project.mkdir()
    with scripted_chat(tmp_path, turns, chat_env, project) as (chat, fake):
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("go\r")
        chat.expect("Approve call 1 of 3")
        drawn = chat.before
        chat.send("a")
        chat.expect("Done.")
        finish(chat)
        requests = fake.requests()
    assert "Allow these 2 tool calls?" in drawn
    assert "call 2 of 3" in drawn and "refused, not asked" in drawn
    results = tool_results(requests[1])
    assert results["c1"] == "first" and results["c3"] == "third"
    assert results["c2"].startswith("Error: ") and not outside.exists()
