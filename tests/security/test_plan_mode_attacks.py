"""A hostile model in plan mode: it names the tools that change things anyway (write_file,
edit_file, run_command, and an MCP tool a search_tools call found before plan mode was
turned on, or in the same answer), and it presents a plan in the same answer as a write, so
that the person's yes to the plan would carry the write. Nothing is written, run or sent to
the server, and nobody is asked: plan mode refuses in the engine, not only in what it offers.
The real chat in a pty, a real catalog MCP server, the scripted model."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from tests.fixtures.tool_catalog import called, merged, save_catalog_server
from tests.pty_chat import finish, scripted_chat

REFUSED = "Error: not run: the chat is in plan mode"
TIME_TOOL = "mcp__work__get_current_time"


def answer(*calls: tuple[str, str, dict[str, Any]]) -> dict[str, Any]:
    return {
        "tool_calls": [
            {"id": call_id, "name": name, "arguments": arguments}
            for call_id, name, arguments in calls
        ]
    }


def offered(request: dict[str, Any]) -> set[str]:
    return {tool["function"]["name"] for tool in request["body"].get("tools", [])}


def results(request: dict[str, Any]) -> list[str]:
    return [str(m["content"]) for m in request["body"]["messages"] if m["role"] == "tool"]


def hostile_calls(marker: Path) -> list[tuple[str, str, dict[str, Any]]]:
    return [
        ("h1", "write_file", {"path": "app.py", "content": "pwned\n"}),
        ("h2", "edit_file", {"path": "app.py", "old_text": "hello", "new_text": "pwned"}),
        ("h3", "run_command", {"argv": ["touch", str(marker)]}),
        ("h4", TIME_TOOL, {"timezone": "UTC"}),
    ]


def test_in_plan_mode_changing_tools_and_a_found_mcp_tool_are_refused_unasked(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    calls = save_catalog_server(
        agent_home, "work", merged(["time"]), tmp_path / "servers", environ=chat_env
    )
    project = tmp_path / "project"
    project.mkdir()
    (project / "app.py").write_text("print('hello')\n")
    marker = tmp_path / "ran"
    turns = [
        answer(("s1", "search_tools", {"query": "get_current_time"})),
        {"text": "Found it."},
        answer(*hostile_calls(marker)),
        answer(("p1", "present_plan", {"plan": "Plan."}), *hostile_calls(marker)),
        {"text": "Planned."},
    ]
    with scripted_chat(tmp_path, turns, chat_env, project) as (chat, fake):
        chat.expect("MCP server work ready")
        chat.expect("›")
        chat.send("/mcp defer work on\r")  # its tools only through search_tools
        chat.expect("›")
        chat.send("find the time tool\r")
        chat.expect("Found it.")
        chat.expect("›")
        chat.send("/plan\r")
        chat.expect("Plan mode: ")
        chat.send("change everything\r")
        chat.expect("The model's plan")  # the first hostile answer ran no dialog
        chat.send("y")  # a yes to the plan carries none of the calls beside it
        chat.expect("Planned.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    assert len(requests) == 5
    assert TIME_TOOL in offered(requests[1])  # found: offered from then on, but not in plan mode
    planning = requests[2]
    assert not offered(planning) & {"write_file", "edit_file", "run_command", "search_tools"}
    assert not [name for name in offered(planning) if name.startswith("mcp__")]
    assert all(text.startswith(REFUSED) for text in results(requests[3])[-4:])
    after_plan = results(requests[4])[-5:]
    assert after_plan[0].startswith("The person accepted the plan")
    assert all(text.startswith(REFUSED) for text in after_plan[1:])
    assert (project / "app.py").read_text() == "print('hello')\n"
    assert not marker.exists()
    assert called(calls) == []  # and no question was asked: the turn would be waiting


def test_plan_mode_with_mcp_offers_the_search_and_still_asks_every_mcp_call(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    calls = save_catalog_server(
        agent_home, "work", merged(["time"]), tmp_path / "servers", environ=chat_env
    )
    turns = [
        answer(
            ("s1", "search_tools", {"query": "get_current_time"}),
            ("m1", TIME_TOOL, {"timezone": "UTC"}),
            ("w1", "write_file", {"path": "x.txt", "content": "x\n"}),
        ),
        {"text": "Looked."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("MCP server work ready")
        chat.expect("›")
        chat.send("/mcp defer work on\r")
        chat.expect("›")
        chat.send("/plan mcp\r")
        chat.expect("MCP tools are offered too")
        chat.send("what time is it\r")
        chat.expect(TIME_TOOL)
        chat.expect("Approve\\?")  # found in this answer: admitted, and asked
        chat.send("n")
        chat.expect("Looked.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    assert "search_tools" in offered(requests[0])
    assert "write_file" not in offered(requests[0])
    search, mcp, write = results(requests[1])
    assert "get_current_time" in search
    assert mcp == "Error: The person declined this tool call."
    assert write.startswith(REFUSED)
    assert called(calls) == []
    assert not (tmp_path / "x.txt").exists()


def test_a_hostile_plan_is_sanitised_paged_and_y_counts_only_on_its_last_page(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    hostile = "\x1b[2J\x1b[H\x1b]0;pwned\x07cleared? \u202eevil"
    steps = "\n".join(f"{n}. step {n}" for n in range(1, 80))
    plan = f"# Plan {hostile}\n\n{steps}\n\nLAST LINE OF THE PLAN\n"
    turns = [answer(("p1", "present_plan", {"plan": plan})), {"text": "Carrying on."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("/plan\r")
        chat.expect("Plan mode: ")
        chat.send("plan\r")
        chat.expect("-- lines 1-")
        drawn = chat.before
        chat.send("y")  # the plan's end was never on screen: this carries nothing out
        chat.expect("y counts once the whole plan has been shown")
        drawn += chat.before
        chat.send(" ")
        chat.expect("-- lines 37-")
        drawn += chat.before
        chat.send(" ")
        chat.expect("carry it out")
        drawn += chat.before
        chat.send("y")
        chat.expect("Carrying on.")
        chat.expect("›")
        finish(chat)
        requests = fake.requests()

    assert "LAST LINE OF THE PLAN" in drawn
    for raw in ("\x1b[2J", "\x1b]0;", "\x07", "\u202e"):
        assert raw not in drawn
    assert results(requests[1])[-1].startswith("The person accepted the plan")
