"""Each request repeats the previous one's prefix byte for byte (tools, system prompt, the
history so far), so a provider's prompt cache can serve almost all of it; an activated
skill's body reaches the model once per request, in the system prompt."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.fake_openai import FakeOpenAI
from tests.prompt_prefix import SKILL_BODY, converse, prefix_shares, prepare, script

pytestmark = pytest.mark.anyio


async def test_after_the_first_turn_each_request_repeats_at_least_95_percent_of_the_previous(
    tmp_path: Path, agent_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # before the server's trust: it covers HOME
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    places = await prepare(tmp_path, agent_home)
    messages, answers = script(6)
    with FakeOpenAI(answers) as fake:
        failures = await converse(places, fake.base_url, messages)
        bodies = [request["body"] for request in fake.requests]

    assert failures == []
    assert len(bodies) == len(answers)
    names = [tool["function"]["name"] for tool in bodies[0]["tools"]]
    assert len([name for name in names if name.startswith("mcp__fx__")]) == 50
    shares = prefix_shares(bodies)
    after_first_turn = shares[2:]  # the first turn: the question, then the skill's activation
    assert all(share is not None and share >= 0.95 for share in after_first_turn), shares


async def test_an_activated_skill_body_reaches_the_model_once_per_request(
    tmp_path: Path, agent_home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("HOME", str(tmp_path / "home"))  # before the server's trust: it covers HOME
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    places = await prepare(tmp_path, agent_home)
    messages, answers = script(2)
    with FakeOpenAI(answers) as fake:
        failures = await converse(places, fake.base_url, messages)
        bodies = [request["body"] for request in fake.requests]

    assert failures == []
    body_text = SKILL_BODY.strip()
    counts = [str(body["messages"]).count(body_text) for body in bodies]
    assert counts == [0, 1, 1]  # before activation, then once: in the system prompt
    assert body_text in bodies[1]["messages"][0]["content"]
    activation = bodies[1]["messages"][-1]
    assert activation["role"] == "tool"
    assert activation["content"].startswith("Skill 'house-style' is now active")
