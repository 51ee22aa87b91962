"""Resources and prompts as a person meets them: the real `agent` in a pseudo-terminal, the
scripted fake model server, and resources_server.py (rs) started by the chat.

One chat: `@` completes the server and a template's variable, the attached resources are in
the model's request; a prompt run with an argument sends its messages; and the model's
read_mcp_resource asks for approval, showing server and URI."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pexpect

from tests.fixtures.mcp_fixtures import save_trusted_resources_server
from tests.pty_chat import scripted_chat


def user_text(request: dict[str, Any]) -> str:
    """Every text part of the request's last user message, joined."""
    message = [m for m in request["body"]["messages"] if m["role"] == "user"][-1]
    content = message["content"]
    if isinstance(content, str):
        return content
    return "\n".join(part.get("text", "") for part in content)


def test_mentions_prompts_and_resource_reads_in_one_chat(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    save_trusted_resources_server(agent_home, chat_env)
    read = {"server": "rs", "uri": "fixture://notes/3"}
    turns = [
        {"text": "Summed up."},
        {"text": "Reviewed."},
        {"tool_calls": [{"id": "r1", "name": "read_mcp_resource", "arguments": read}]},
        {"text": "Read it."},
    ]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("MCP server rs ready")
        chat.expect("›")
        # Tab once the menu shows (completion runs in a thread): it takes the first entry.
        chat.send("sum up @r")
        chat.expect("MCP server")  # the menu entry's description
        chat.send("\t")
        chat.send("fixture://notes/7 and @rs:fixture://greeting/ali")
        chat.expect("greeting: name")  # the template's value, from completion/complete
        chat.send("\t")
        chat.send(" please\r")
        chat.expect("attached @rs:fixture://notes/7")
        chat.expect("Summed up.")
        chat.expect("›")

        chat.send('/mcp__rs__review code="x = 1"\r')
        chat.expect("prompt review of MCP server rs")
        chat.expect("Reviewed.")
        chat.expect("›")

        chat.send("now read a note\r")
        chat.expect("resource: fixture://notes/3")
        chat.expect("Approve\\?")
        chat.send("y")
        chat.expect("Read it.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
        assert chat.exitstatus == 0
        requests = fake.requests()

    assert len(requests) == 4
    mention = user_text(requests[0])
    assert mention.startswith(
        "sum up @rs:fixture://notes/7 and @rs:fixture://greeting/alice please"
    )
    assert "\nNote 7.\n</attachment" in mention and "\nHello, alice!\n</attachment" in mention
    prompt = user_text(requests[1])
    assert prompt.startswith("/mcp__rs__review code='x = 1'\nReview this code (concise):\nx = 1\n")
    assert "[image from prompt of rs: image/png, 69 bytes; not shown" in prompt
    assert "\nNote 1.\n</attachment" in prompt
    assert requests[3]["body"]["messages"][-1] == {
        "role": "tool",
        "content": "[resource fixture://notes/3, text/plain]\nNote 3.",
        "tool_call_id": "r1",
    }


def test_a_prompt_commands_turn_first_asks_the_pending_project_skills_question(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    # A typed message asks it first (tests/chat/test_chat_e2e.py); a prompt's turn is a turn too.
    save_trusted_resources_server(agent_home, chat_env)
    skill = tmp_path / ".agents" / "skills" / "release-notes"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(
        "---\nname: release-notes\ndescription: Write release notes.\n---\nUse the changelog.\n"
    )
    with scripted_chat(tmp_path, [{"text": "Hello back."}], chat_env) as (chat, fake):
        chat.expect("MCP server rs ready")
        chat.expect("›")
        chat.send("/mcp__rs__hello\r")
        asked = chat.expect(["Use these skills in this project\\?", "Hello back."])
        assert asked == 0, "the prompt's turn was sent before the skills question"
        chat.send("y")
        chat.expect("Hello back.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
        assert chat.exitstatus == 0
        (request,) = fake.requests()

    assert user_text(request).startswith("/mcp__rs__hello\nhello!")
    system = request["body"]["messages"][0]["content"]
    assert "release-notes" in system  # the trusted skill is in the prompt's very request
