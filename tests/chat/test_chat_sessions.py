"""Skills and sessions as they reach the model: the real `agent` (stdin piped, one turn per
run) against the scripted fake model server, with real skill folders on disk."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from agent.skills.discovery import discover_skills
from agent.skills.trust import SkillTrustStore
from agent.skills.usable import project_skills
from tests.fake_openai import FakeOpenAI

AGENT = str(Path(sys.executable).with_name("agent"))


@pytest.fixture
def places(tmp_path: Path, agent_home: Path) -> dict[str, Path]:
    project = tmp_path / "project"
    (project / ".git").mkdir(parents=True)
    home = tmp_path / "home"
    home.mkdir()
    return {"project": project, "home": home, "agent_home": agent_home}


def write_skill(root: Path, name: str, description: str, body: str) -> Path:
    folder = root / name
    folder.mkdir(parents=True, exist_ok=True)
    path = folder / "SKILL.md"
    path.write_text(f"---\nname: {name}\ndescription: {description}\n---\n{body}")
    return path


def run_agent(
    places: dict[str, Path], fake: FakeOpenAI, text: str, *args: str
) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ)
    env.update(
        HOME=str(places["home"]),
        AGENT_HOME=str(places["agent_home"]),
        OPENAI_API_KEY="sk-test",
        NO_COLOR="1",
    )
    env.pop("AGENT_MODEL", None)
    return subprocess.run(
        [AGENT, "--model", "openai/fake-model", "--api-base", fake.base_url, *args],
        input=text,
        capture_output=True,
        text=True,
        env=env,
        cwd=places["project"],
        timeout=60,
    )


def system_prompt(request: dict[str, Any]) -> str:
    return str(request["body"]["messages"][0]["content"])


def tool_names(request: dict[str, Any]) -> list[str]:
    return [tool["function"]["name"] for tool in request["body"].get("tools", [])]


def test_project_skills_reach_the_model_only_while_trusted(places: dict[str, Path]) -> None:
    skills_root = places["project"] / ".agents" / "skills"
    write_skill(skills_root, "release-notes", "Write release notes for this repo.", "Steps.\n")

    with FakeOpenAI([{"text": "one"}, {"text": "two"}, {"text": "three"}]) as fake:
        untrusted = run_agent(places, fake, "hello")
        found = project_skills(discover_skills(places["project"]))
        store = SkillTrustStore()
        store.record(store.request(places["project"], found), "trusted")
        trusted = run_agent(places, fake, "hello")
        write_skill(skills_root, "release-notes", "Write release notes for this repo.", "Other.\n")
        changed = run_agent(places, fake, "hello")
        requests = fake.requests

    assert untrusted.returncode == 0, untrusted.stderr
    assert "1 project skill is not trusted and stay off" in untrusted.stderr
    first, second, third = requests
    assert "release-notes" not in system_prompt(first)
    assert "<name>mcp-config</name>" in system_prompt(first)  # bundled skills need no trust
    assert "<name>release-notes</name>" in system_prompt(second)
    activate = next(t for t in second["body"]["tools"] if t["function"]["name"] == "activate_skill")
    assert "release-notes" in activate["function"]["parameters"]["properties"]["name"]["enum"]
    assert "release-notes" not in system_prompt(third)  # changed: asked again, off until then
    assert trusted.returncode == 0 and changed.returncode == 0


def test_a_resumed_session_sends_the_same_request_and_keeps_the_skill_snapshot(
    places: dict[str, Path],
) -> None:
    skill = write_skill(
        places["home"] / ".agents" / "skills", "my-style", "Answer in my style.", "Be brief.\n"
    )
    activate = {"id": "a1", "name": "activate_skill", "arguments": {"name": "my-style"}}
    script = [{"tool_calls": [activate]}, {"text": "Done one."}, {"text": "Done two."}]
    with FakeOpenAI(script) as fake:
        first = run_agent(places, fake, "first question")
        skill.write_text(skill.read_text().replace("Be brief.", "Be verbose."))
        second = run_agent(places, fake, "second question", "--continue")
        requests = fake.requests

    assert first.returncode == 0, first.stderr
    assert second.returncode == 0, second.stderr
    assert "skill 'my-style' changed on disk since it was activated" in second.stderr
    before, after = requests[1]["body"], requests[2]["body"]
    assert after["messages"] == [
        *before["messages"],
        {"role": "assistant", "content": "Done one."},
        {"role": "user", "content": "second question"},
    ]
    assert "Be brief." in system_prompt(requests[2])  # the snapshot, not the file's new text
    assert "Be verbose." not in system_prompt(requests[2])
    assert after["tools"] == before["tools"]
    sessions = list((places["agent_home"] / "sessions").glob("*.jsonl"))
    assert len(sessions) == 1  # --continue appended to the same session file
    assert sessions[0].stat().st_mode & 0o777 == 0o600
