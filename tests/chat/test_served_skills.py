"""Skills an MCP server serves, in the real chat (a pty, a scripted model over litellm HTTP):
the one question per server, the catalog, activation (read once, verified), refusals, the
snapshot in the session and its resume; nothing is read before activation."""

from __future__ import annotations

import json
from pathlib import Path

import pexpect

from tests import deadlines
from tests.pty_chat import scripted_chat
from tests.skills.served_helpers import REVIEW_BODY, reads_of, save_skills_server, served_skills


def _system(request: dict) -> str:
    return str(request["body"]["messages"][0]["content"])


def _tool_results(request: dict) -> list[str]:
    return [str(m["content"]) for m in request["body"]["messages"] if m["role"] == "tool"]


def test_a_servers_skills_are_asked_about_offered_and_read_only_when_activated(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    reads = tmp_path / "reads.log"
    save_skills_server(agent_home, chat_env, served_skills(tmp_path), reads)
    turns = [
        {"tool_calls": [{"id": "a1", "name": "activate_skill",
                         "arguments": {"name": "sk:review"}}]},
        {"tool_calls": [{"id": "a2", "name": "activate_skill",
                         "arguments": {"name": "sk:wrong-digest"}}]},
        {"tool_calls": [{"id": "a3", "name": "read_skill_resource",
                         "arguments": {"name": "sk:review", "path": "references/checklist.md"}}]},
        {"text": "Reviewed."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("review my change\r")
        chat.expect("Use the skills of MCP server sk\\?")
        shown = chat.before
        assert reads_of(reads) == []  # listed, asked about: nothing read
        chat.send("y")
        chat.expect("Reviewed.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()

    for name in ("sk:review", "sk:wrong-digest", "sk:too-big", "sk:skill-author"):
        assert name in shown
    assert "sha256:" in shown
    catalog = _system(requests[0])
    assert "<name>sk:review</name>" in catalog
    assert "<location>skill://review/SKILL.md</location>" in catalog
    assert "<name>skill-author</name>" in catalog  # the bundled one is still itself
    assert REVIEW_BODY not in catalog
    assert REVIEW_BODY in _system(requests[1])  # active from the next request on
    results = _tool_results(requests[3])
    assert "references/checklist.md" in results[0]
    assert "'sk:wrong-digest' was refused: SKILL.md does not match its listed digest" in results[1]
    assert results[2] == "1. Tests\n2. Names\n"
    assert reads_of(reads) == [
        "skill://review/SKILL.md",
        "skill://wrong-digest/SKILL.md",
        "skill://review/references/checklist.md",
    ]
    [session] = (agent_home / "sessions").rglob("*.jsonl")
    events = [json.loads(line) for line in session.read_text().splitlines()]
    snapshots = [e["snapshot"] for e in events if e.get("type") == "skill_activation"]
    assert [(s["name"], s["scope"], s["path"]) for s in snapshots] == [
        ("sk:review", "server", "skill://review/SKILL.md")
    ]
    assert REVIEW_BODY in snapshots[0]["body"]


def test_a_server_still_starting_when_the_first_turn_is_sent_has_its_skills_asked_about_later(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    """Ctrl-C sends the first turn without the starting server (no wait of its own for the
    skills); once it has started, the next turn lists its skills and asks about them."""
    reads = tmp_path / "reads.log"
    root = served_skills(tmp_path)
    save_skills_server(agent_home, chat_env, root, reads, "--start-delay", "4")
    turns = [{"text": "Without it."}, {"text": "With it."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("hello\r")
        chat.expect("Waiting for MCP server sk")
        chat.sendintr()
        chat.expect("sending without sk")
        # The answer and the server's start race (its 4 s delay may end first on a busy
        # machine): wait for both, in either order.
        seen: set[int] = set()
        while len(seen) < 2:
            seen.add(
                chat.expect(["Without it\\.", "MCP server sk ready"], timeout=deadlines.EXPECT)
            )
        chat.send("and now?\r")
        chat.expect("Use the skills of MCP server sk\\?")
        chat.send("y")
        chat.expect("With it.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()

    assert len(requests) == 2
    assert "sk:review" not in _system(requests[0])
    assert "<name>sk:review</name>" in _system(requests[1])
    assert reads_of(reads) == []


def test_a_resumed_chat_keeps_the_served_skill_it_activated_without_reading_it_again(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    """The session holds the activated skill's snapshot: a resume offers that very text to
    the model, with no read of the server (which could now serve something else)."""
    reads = tmp_path / "reads.log"
    save_skills_server(agent_home, chat_env, served_skills(tmp_path), reads)
    activate = {"tool_calls": [{"id": "a1", "name": "activate_skill",
                                "arguments": {"name": "sk:review"}}]}  # fmt: skip
    with scripted_chat(tmp_path, [activate, {"text": "Active."}], chat_env) as (chat, _fake):
        chat.expect("›")
        chat.send("review my change\r")
        chat.expect("Use the skills of MCP server sk\\?")
        chat.send("y")
        chat.expect("Active.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    assert reads_of(reads) == ["skill://review/SKILL.md"]
    [session] = (agent_home / "sessions").rglob("*.jsonl")
    session_id = json.loads(session.read_text().splitlines()[0])["id"]

    with scripted_chat(tmp_path, [{"text": "Still reviewing."}], chat_env) as (chat, fake):
        chat.expect("›")
        chat.send(f"/resume {session_id}\r")
        chat.expect("Resumed")
        chat.expect("›")
        chat.send("and the tests?\r")
        chat.expect("Still reviewing.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        request = fake.requests()[-1]  # the log holds the first chat's requests too
    assert request["body"]["messages"][-1]["content"] == "and the tests?"
    assert REVIEW_BODY in _system(request)
    assert reads_of(reads) == ["skill://review/SKILL.md"]  # nothing read again
