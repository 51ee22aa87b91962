"""Through the real chat (build_chat, litellm over HTTP to the scripted model): each enabled,
started server's instructions are in the system prompt, framed and labelled as that server's
notes about its tools; a disabled server's are not; they stay the same across turns, follow a
restart, are capped with the cut said, and `/context` counts them."""

from __future__ import annotations

import os
from pathlib import Path
from typing import Any

import pytest

from agent.chat.context import measure_context
from agent.chat.server_notes import MAX_NOTE_BYTES, SECTION_HEAD
from agent.chat.state import ChatSession
from agent.mcp.store import McpStore
from tests.chat.real_chat import chat
from tests.fake_openai import FakeOpenAI
from tests.fixtures.mcp_fixtures import server_command
from tests.mcp.upgrading import release, save_upgrading

pytestmark = pytest.mark.anyio
NOTES = "Call lookup before echo; lookup needs a city."
CANARY = "canary-in-notes-7731"


def system_prompt(request: dict[str, Any]) -> str:
    return str(request["body"]["messages"][0]["content"])


def frame(server: str, body: str) -> str:
    opening = f'<server-notes server="{server}" from="MCP server {server}, not the person">'
    return f"{opening}\n{body}\n</server-notes>"


@pytest.fixture
def project(tmp_path: Path, agent_home: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # before the server's trust: it covers HOME
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    monkeypatch.setenv("UP_TOKEN", CANARY)  # before the trust too: the env is part of it
    (tmp_path / "home").mkdir()
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    return project


def save(agent_home: Path, tmp_path: Path, instructions: str, **options: Any) -> Path:
    release_file = tmp_path / "release.json"
    release(release_file, 1, instructions=instructions, **options)
    store = McpStore(agent_home / "mcp-servers.json")
    off_file = tmp_path / "off.json"
    release(off_file, 1, instructions="NOTES OF A DISABLED SERVER")
    command = server_command("upgrading_server.py", "--release-file", str(off_file))
    off = {"command": command[0], "args": command[1:]}
    save_upgrading(store, "up", release_file, os.environ, env={"API_TOKEN": "${UP_TOKEN}"},
                   also={"off": off})  # fmt: skip
    from dataclasses import replace

    from agent.mcp.config.definitions import fingerprint

    fp = fingerprint(store.load().find("off"))
    store.update_state("off", fp, lambda s: replace(s, enabled=False))
    return release_file


async def test_an_enabled_servers_instructions_are_in_the_system_prompt_framed_and_labelled(
    project: Path, agent_home: Path, tmp_path: Path
) -> None:
    save(agent_home, tmp_path, NOTES)
    with FakeOpenAI([{"text": "one"}, {"text": "two"}]) as fake:
        run = await chat(project, fake.base_url, ["first", "second"])
        prompts = [system_prompt(request) for request in fake.requests]

    assert run.failures == []
    assert f"{SECTION_HEAD}\n\n{frame('up', NOTES)}" in prompts[0]
    assert "NOTES OF A DISABLED SERVER" not in prompts[0]
    assert prompts[0] == prompts[1]  # the same bytes every turn: the cached prefix holds


async def test_a_restart_with_new_instructions_updates_them_at_the_next_request(
    project: Path, agent_home: Path, tmp_path: Path
) -> None:
    release_file = save(agent_home, tmp_path, NOTES)

    async def upgrade(session: ChatSession, index: int) -> None:
        release(release_file, 2, instructions="Release 2: lookup needs a country too.")
        assert session.host.runtime is not None
        await session.host.runtime.restart("up")

    with FakeOpenAI([{"text": "one"}, {"text": "two"}]) as fake:
        run = await chat(project, fake.base_url, ["first", "second"], between=upgrade)
        prompts = [system_prompt(request) for request in fake.requests]

    assert run.failures == []
    assert frame("up", NOTES) in prompts[0]
    assert frame("up", "Release 2: lookup needs a country too.") in prompts[1]
    assert NOTES not in prompts[1]


async def test_long_instructions_are_cut_with_the_cut_said_and_context_counts_them(
    project: Path, agent_home: Path, tmp_path: Path
) -> None:
    long = "Use lookup wisely. " * 1000  # 19 000 bytes
    save(agent_home, tmp_path, long)
    reports: list[Any] = []

    async def look(session: ChatSession, index: int) -> None:
        reports.append(measure_context(session))

    with FakeOpenAI([{"text": "one"}, {"text": "two"}]) as fake:
        await chat(project, fake.base_url, ["first", "second"], between=look)
        prompt = system_prompt(fake.requests[0])

    marker = f"[cut here: these instructions have 18999 bytes; the first {MAX_NOTE_BYTES} are kept]"
    assert marker in prompt
    assert prompt.count("Use lookup wisely.") == MAX_NOTE_BYTES // len("Use lookup wisely. ")
    report = reports[0]
    row = next(part for part in report.system if part.name == "server instructions")
    assert row.detail == "up"
    assert row.tokens > MAX_NOTE_BYTES // 8  # about a token for every 4 bytes of prose
    parts = sum(part.tokens for part in report.system)
    assert parts == report.system_tokens  # the rows add up to the system prompt's count
    assert "MCP server up's instructions cut to 4,096 of 18,999 bytes" in " ".join(report.notes)


async def test_a_secret_in_the_instructions_reaches_the_model_masked(
    project: Path, agent_home: Path, tmp_path: Path
) -> None:
    save(agent_home, tmp_path, "Your token is $SECRET.", secret_env="API_TOKEN")
    with FakeOpenAI([{"text": "one"}]) as fake:
        await chat(project, fake.base_url, ["first"])
        prompt = system_prompt(fake.requests[0])

    assert frame("up", "Your token is ***.") in prompt
    assert CANARY not in str(fake.requests)
