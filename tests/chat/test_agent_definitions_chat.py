"""What the subagent engine takes from a chat (issue 41): `ChatSession.agent_definitions`, the
definitions it may use, built by build_chat as the terminal builds it and updated by the answer
to the one project question (settle_skill_trust)."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.chat.approval import ApprovalRequest, Decision
from agent.chat.build import FrontEnd, build_chat
from agent.chat.state import ChatSession
from agent.skills.trust import SkillTrustRequest

MINE = "---\nname: reviewer\ndescription: Mine.\ntools: Read, Grep\n---\nReview my way.\n"
THEIRS = "---\nname: reviewer\ndescription: Theirs.\nmodel: opus\n---\nReview their way.\n"
HELPER = "---\nname: helper\ndescription: Helps.\ntools: [Bash, mcp__db__query]\n---\nHelp.\n"


class Refuse:
    async def decide(self, request: ApprovalRequest) -> Decision:
        return Decision(False)


class Answer:
    """The person at the project question: yes or no, and what they were shown."""

    def __init__(self, yes: bool) -> None:
        self.yes = yes
        self.shown: list[SkillTrustRequest] = []

    async def confirm(self, request: SkillTrustRequest) -> bool:
        self.shown.append(request)
        return self.yes


def chat_in(project: Path, interactive: bool) -> ChatSession:
    from agent.mcp.forms.elicitation import DeclineElicitation
    from agent.mcp.trust.question import DenyTrust

    front = FrontEnd(interactive, Refuse(), DenyTrust, DeclineElicitation, lambda line: None)
    chat = build_chat("openai/fake-model", "http://127.0.0.1:9/v1", project, front)
    chat.recorder.close()
    return chat


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    (home / ".claude" / "agents").mkdir(parents=True)
    (home / ".claude" / "agents" / "reviewer.md").write_text(MINE)
    monkeypatch.setenv("HOME", str(home))
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / ".agents" / "agents").mkdir(parents=True)
    (project / ".agents" / "agents" / "reviewer.md").write_text(THEIRS)
    (project / ".claude" / "agents").mkdir(parents=True)
    (project / ".claude" / "agents" / "helper.md").write_text(HELPER)
    return project


def shown(chat: ChatSession) -> list[tuple[str, str, str]]:
    return [(d.name, d.scope, d.instructions) for d in chat.agent_definitions]


@pytest.mark.anyio
async def test_the_chats_definitions_are_the_persons_own_until_the_project_question_says_yes(
    project: Path,
) -> None:
    chat = chat_in(project, interactive=True)
    assert shown(chat) == [("reviewer", "user", "Review my way.")]
    mine = chat.agent_definitions[0]
    assert mine.tools == ("read_file", "search_files") and mine.model is None

    answer = Answer(yes=True)
    notes = await chat.settle_skill_trust(answer)

    assert [d.label for d in answer.shown[0].agents] == [
        "./.claude/agents/helper.md",
        "./.agents/agents/reviewer.md",
    ]
    assert notes == [
        "Project subagent definitions trusted: ./.claude/agents/helper.md, "
        "./.agents/agents/reviewer.md"
    ]
    assert shown(chat) == [
        ("helper", "project", "Help."),
        ("reviewer", "project", "Review their way."),
    ]
    helper, theirs = chat.agent_definitions
    assert helper.tools == ("run_command", "mcp__db__query")
    assert theirs.model is None  # opus: Claude's alias, the parent's model
    assert theirs.shadows == ("~/.claude/agents/reviewer.md",)


@pytest.mark.anyio
async def test_a_no_keeps_the_persons_own_and_a_later_chat_without_a_terminal_too(
    project: Path,
) -> None:
    chat = chat_in(project, interactive=True)
    await chat.settle_skill_trust(Answer(yes=False))
    assert shown(chat) == [("reviewer", "user", "Review my way.")]

    again = chat_in(project, interactive=False)
    assert again.pending_skill_trust is None
    assert shown(again) == [("reviewer", "user", "Review my way.")]
    assert not any("not trusted" in note for note in again.notes)  # declined: decided
