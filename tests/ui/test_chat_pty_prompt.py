"""The request, not the prompt, waits for MCP servers still starting; typing ahead while the
agent works. The real `agent` in a pseudo-terminal, the scripted model as a process."""

from __future__ import annotations

import re
from pathlib import Path

import pexpect

from tests import deadlines
from tests.fixtures.mcp_fixtures import save_trusted_stdio_server, server_command
from tests.pty_chat import finish, scripted_chat
from tests.ui.ui_helpers import screen

SLOW = "mcp__slow__echo"


def tool_names(request: dict[str, object]) -> list[str]:
    body = request["body"]
    assert isinstance(body, dict)
    return [tool["function"]["name"] for tool in body.get("tools", [])]


def test_a_first_question_right_after_launch_waits_for_a_slow_server_and_gets_its_tools(
    tmp_path: Path,
    agent_home: Path,
    chat_env: dict[str, str],
) -> None:
    command = server_command("slow_start_server.py", "3")
    save_trusted_stdio_server(agent_home, "slow", command, chat_env)
    with scripted_chat(tmp_path, [{"text": "Echo is here."}], chat_env) as (chat, fake):
        chat.expect("›")  # the prompt does not wait for the server
        chat.send("what tools do you have?\r")
        chat.expect("Waiting for MCP server slow")
        chat.expect("MCP server slow ready")
        chat.expect("Echo is here.")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert len(requests) == 1
    assert SLOW in tool_names(requests[0])


def test_ctrl_c_while_waiting_for_a_starting_server_sends_without_its_tools(
    tmp_path: Path,
    agent_home: Path,
    chat_env: dict[str, str],
) -> None:
    command = server_command("slow_start_server.py", "60")
    save_trusted_stdio_server(agent_home, "slow", command, chat_env)
    with scripted_chat(tmp_path, [{"text": "No echo yet."}], chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("hello\r")
        chat.expect("Waiting for MCP server slow")
        chat.sendintr()
        chat.expect("sending without slow")
        chat.expect("No echo yet.")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert len(requests) == 1
    assert SLOW not in tool_names(requests[0])
    assert requests[0]["body"]["messages"][-1] == {"role": "user", "content": "hello"}


def test_leaving_the_chat_while_a_server_is_still_starting_does_not_wait_out_its_start_up(
    tmp_path: Path,
    agent_home: Path,
    chat_env: dict[str, str],
) -> None:
    command = server_command("slow_start_server.py", "60")
    save_trusted_stdio_server(agent_home, "slow", command, chat_env)
    with scripted_chat(tmp_path, [], chat_env) as (chat, _fake):
        chat.expect("›")
        chat.send("/exit\r")
        # The start-up timeout is 30 s: leaving must not start the server again and wait it out.
        chat.expect(pexpect.EOF, timeout=deadlines.EXPECT)
        chat.close()
    assert chat.exitstatus == 0


SLOW_ANSWER = {"text": "Streaming the first answer slowly.", "chunk_delay": 0.4, "text_chunks": 8}


def test_a_message_typed_while_the_model_streams_is_queued_and_sent_when_the_turn_ends(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    turns = [SLOW_ANSWER, {"text": "Second answer."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("first question\r")
        chat.expect("Streaming")
        chat.send("the next question\r")
        chat.expect("queued: the next question")
        chat.expect("Second answer.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert len(requests) == 2
    assert requests[1]["body"]["messages"][-3:] == [
        {"role": "user", "content": "first question"},
        {"role": "assistant", "content": "Streaming the first answer slowly."},
        {"role": "user", "content": "the next question"},
    ]


def test_esc_clears_the_queued_message_and_nothing_more_is_sent(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    with scripted_chat(tmp_path, [SLOW_ANSWER], chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("first question\r")
        chat.expect("Streaming")
        chat.send("never mind this\r")
        chat.expect("queued: never mind this")
        chat.send("\x1b")
        chat.expect("queued message cleared")
        chat.expect("tokens")  # the turn's usage line: it has ended
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert len(requests) == 1


def test_a_line_typed_ahead_without_enter_comes_back_in_the_prompt_to_finish(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    turns = [SLOW_ANSWER, {"text": "Second answer."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("first question\r")
        chat.expect("Streaming")
        chat.send("half typed")
        chat.expect("next: half typed")  # shown in the spinner's line as it is typed
        chat.expect("tokens")  # the turn ended
        chat.expect("› half typed")
        chat.send(" and finished\r")
        chat.expect("Second answer.")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert requests[1]["body"]["messages"][-1] == {
        "role": "user",
        "content": "half typed and finished",
    }


def test_after_ctrl_c_a_queued_message_goes_back_to_the_prompt_unsent(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    hanging = {"text": "Streaming and then hanging.", "hang": True}
    with scripted_chat(tmp_path, [hanging], chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("first question\r")
        chat.expect("Streaming")
        chat.send("queued one\r")
        chat.expect("queued: queued one")
        chat.sendintr()
        chat.expect("interrupted")
        chat.expect("› queued one")
        chat.sendcontrol("u")  # prompt_toolkit: clear the line back to the prompt
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert len(requests) == 1


def test_a_server_notice_while_the_spinner_runs_starts_on_a_line_of_its_own(
    tmp_path: Path,
    agent_home: Path,
    chat_env: dict[str, str],
) -> None:
    save_trusted_stdio_server(
        agent_home, "quick", server_command("slow_start_server.py", "2"), chat_env
    )
    save_trusted_stdio_server(
        agent_home, "slow", server_command("slow_start_server.py", "60"), chat_env
    )
    with scripted_chat(tmp_path, [{"text": "Sent without slow."}], chat_env) as (chat, _fake):
        chat.expect("›")
        chat.send("hello\r")
        chat.expect("Waiting for MCP servers")
        chat.expect("MCP server quick ready")  # while the spinner still waits for slow
        notice_line = screen(plain(chat.before + chat.after))[-1]
        chat.expect("Waiting for MCP server slow")  # and the spinner is back, below it
        chat.sendintr()
        chat.expect("Sent without slow.")
        finish(chat)
    assert notice_line == "MCP server quick ready"


def plain(output: str) -> str:
    """`output` without the terminal's escape sequences (cursor moves, modes)."""
    return re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", output)


def test_ctrl_r_finds_an_earlier_message_whatever_the_case_typed(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    history = agent_home / "prompt-history"
    agent_home.mkdir(parents=True, exist_ok=True)
    history.write_text("\n# 2026-01-01 10:00:00\n+Explain the Build\n\n# 2026-01-01\n+fix it\n")
    with scripted_chat(tmp_path, [{"text": "It compiles."}], chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("\x12bUILD")
        chat.expect("Explain the (\x1b\\[[0-9;]*m)*Build")  # the match is highlighted
        chat.send("\r")  # accepts the match into the prompt
        chat.send("\r")  # sends it
        chat.expect("It compiles.")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    assert fake.requests()[0]["body"]["messages"][-1]["content"] == "Explain the Build"


def test_help_lists_the_keys_and_mentions(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    with scripted_chat(tmp_path, [], chat_env) as (chat, _):
        chat.expect("›")
        chat.send("/help\r")
        chat.expect("Mentions:\r\n  @path +attach a project file")
        shown = chat.before
        chat.expect("\r\n  @server:uri +attach an MCP server's resource")
        chat.expect("\r\n  @./name:x +a file whose path starts like a server's name")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    for key in ("Enter", "Alt\\+Enter, Esc Enter", "Esc", "Ctrl-C", "Ctrl-D", "Ctrl-R", "Tab"):
        assert re.search(f"\n  {key} +[a-z]", shown), key
