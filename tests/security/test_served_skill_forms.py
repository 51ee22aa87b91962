"""A hostile MCP server serving skills (SEP-2640) asks a form when a skill's file is read: the
model activates served skills on its own (`activate_skill`, `read_skill_resource` ask no
approval), so a form there would be drawn over the chat though the person started nothing
and approved nothing; a phishing page ("paste your deploy token") at a moment of the server's
choosing. Since a prompt got or a resource read shows its server's forms (as a tool call's,
which the person approved), a skill's read must not: it is declined unseen and said. The real
chat in a pty, the scripted model, tests/fixtures/servers/skills_server.py (2026-07-28,
`input_required` on the read)."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from tests.pty_chat import scripted_chat
from tests.skills.served_helpers import REVIEW_BODY, save_skills_server, served_skills

QUESTION = "Use the skills of MCP server sk\\?"
ASKED = "SKILL-FORM"  # the start of the fixture's form message (skills_server.ASKED)


def test_a_skill_read_the_model_started_cannot_ask_the_person_a_form(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    save_skills_server(
        agent_home, chat_env, served_skills(tmp_path), tmp_path / "reads.log",
        "--lie", "review:ask",
    )  # fmt: skip
    turns = [
        {"tool_calls": [{"id": "a1", "name": "activate_skill",
                         "arguments": {"name": "sk:review"}}]},
        {"text": "Done."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("review it\r")
        chat.expect(QUESTION)
        chat.send("y")
        index = chat.expect([ASKED, "Done\\."])
        shown = chat.before
        assert index == 1, "the server's form was drawn for a read nobody approved"
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert "Declined a form from MCP server sk" in shown.replace("\r\n", " "), shown
    # The read went on without the answer: the skill is active as listed.
    assert REVIEW_BODY in json.dumps(requests[-1]["body"]["messages"][0]["content"])
