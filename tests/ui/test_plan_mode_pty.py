"""Plan mode as a person meets it: the real `agent` in a pseudo-terminal with the scripted
model. `/plan` (or Shift-Tab) makes the requests offer only tools that change nothing plus
present_plan (judged on what the model server received), the chat says so (the toolbar too:
tests/ui/test_status_toolbar.py, as a pty without cursor reports draws none), a write the
model makes anyway is refused, and the plan is shown rendered with its three choices."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.pty_chat import FakeModelProcess, finish, model_args, scripted_chat, spawn_agent

CHANGING = {"write_file", "edit_file", "run_command"}
SHIFT_TAB = "\x1b[Z"
PLAN = "# The plan\n\n1. Change **app.py** to say goodbye.\n2. Run the tests.\n"


def answer(*calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "tool_calls": [
            {"id": call_id, "name": name, "arguments": arguments}
            for call_id, name, arguments in calls
        ]
    }


def offered(request: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in request["body"].get("tools", [])}


def system(request: dict[str, Any]) -> str:
    return str(request["body"]["messages"][0]["content"])


def results(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["body"]["messages"] if m["role"] == "tool"]


def test_plan_mode_offers_no_changing_tool_refuses_a_write_and_an_accepted_plan_is_carried_out(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    (tmp_path / "app.py").write_text("print('hello')\n")
    turns = [
        answer(("c1", "write_file", {"path": "app.py", "content": "evil\n"})),
        answer(("c2", "present_plan", {"plan": PLAN})),
        answer(("c3", "write_file", {"path": "app.py", "content": "print('goodbye')\n"})),
        {"text": "Carried out."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("/plan\r")
        chat.expect("Plan mode: the model investigates")
        chat.send("change app.py\r")
        chat.expect("not run: the chat is in plan mode")
        chat.expect("The model's plan")
        chat.expect("The plan")  # the heading, rendered
        chat.expect("Change app.py to say goodbye.")  # the bold markers rendered away
        chat.expect("carry it out")
        assert (tmp_path / "app.py").read_text() == "print('hello')\n"
        chat.send("y")
        chat.expect("The person accepted the plan")
        chat.expect("Approve\\?")  # the write asks as in the normal mode
        chat.send("y")
        chat.expect("Carried out.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    assert len(requests) == 4
    for planning in requests[:2]:
        assert not offered(planning) & CHANGING
        assert {"read_file", "list_files", "search_files", "present_plan"} <= offered(planning)
        assert "Plan mode is on" in system(planning)
    assert results(requests[1])[0].startswith("Error: not run: the chat is in plan mode")
    assert results(requests[2])[-1].startswith("The person accepted the plan. Plan mode is off")
    assert offered(requests[2]) >= CHANGING
    assert "present_plan" not in offered(requests[2])
    assert "Plan mode is on" not in system(requests[2])
    assert (tmp_path / "app.py").read_text() == "print('goodbye')\n"


def test_keep_planning_sends_the_comment_and_stop_ends_the_turn_still_in_plan_mode(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    turns = [
        answer(("p1", "present_plan", {"plan": "First draft."})),
        answer(("p2", "present_plan", {"plan": "Second draft."})),
        {"text": "Still planning."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("/plan\r")
        chat.expect("Plan mode: ")
        chat.send("plan it\r")
        chat.expect("First draft.")
        chat.expect("keep planning, with a comment")
        chat.send("c")
        chat.expect("Comment for the model")
        chat.send("cover the tests too\r")
        chat.expect("Second draft.")
        chat.expect("keep planning, with a comment")
        chat.send("\x1b")  # Esc: stop
        chat.expect("Turn stopped")
        chat.expect("›")
        chat.send("and now?\r")
        chat.expect("Still planning.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    assert len(requests) == 3
    assert results(requests[1]) == [
        "The person wants to keep planning; the chat stays in plan mode. "
        "Their comment: cover the tests too"
    ]
    assert results(requests[2])[-1] == (
        "Error: The person stopped the turn at the plan. The chat is still in plan mode."
    )
    for request in requests:
        assert not offered(request) & CHANGING
        assert "present_plan" in offered(request)


def test_shift_tab_turns_plan_mode_on_and_off(tmp_path: Path, chat_env: dict[str, str]) -> None:
    turns = [{"text": "Planned answer."}, {"text": "Normal answer."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("/plan off\r")  # a command waits until the chat is set up
        chat.expect("Plan mode is off.")
        chat.send(SHIFT_TAB)
        chat.expect("Plan mode: the model investigates")
        chat.send("first\r")
        chat.expect("Planned answer.")
        chat.expect("›")
        chat.send(SHIFT_TAB)
        chat.expect("Plan mode off")
        chat.send("second\r")
        chat.expect("Normal answer.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    assert not offered(requests[0]) & CHANGING
    assert "present_plan" in offered(requests[0])
    assert offered(requests[1]) >= CHANGING
    assert "present_plan" not in offered(requests[1])


def test_continue_restores_plan_mode(tmp_path: Path, chat_env: dict[str, str]) -> None:
    with scripted_chat(tmp_path, [{"text": "Planned."}], chat_env) as (chat, _fake):
        chat.expect("›")
        chat.send("/plan\r")
        chat.expect("Plan mode: ")
        chat.send("look around\r")
        chat.expect("Planned.")
        chat.expect("›")
        finish(chat)

    later = tmp_path / "later"
    later.mkdir()
    fake = FakeModelProcess(later, [{"text": "Still planned."}])
    try:
        chat = spawn_agent([*model_args(fake.base_url), "--continue"], chat_env, tmp_path)
        try:
            chat.expect("this session is in plan mode")
            chat.expect("›")
            chat.send("go on\r")
            chat.expect("Still planned.")
            chat.expect("›")
            finish(chat)
        finally:
            chat.close(force=True)
        requests = fake.requests()
    finally:
        fake.stop()
    assert not offered(requests[0]) & CHANGING
    assert "Plan mode is on" in system(requests[0])
