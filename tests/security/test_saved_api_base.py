"""The first run saved a local model and its address (`api_base` of a server on 127.0.0.1,
which may be anyone's program). Later the person names another model with `--model` or
AGENT_MODEL: the saved address belongs to the saved model's provider, so a provider's model
goes to its provider, and OPENAI_API_KEY or ANTHROPIC_API_KEY never reaches the local
listener. An explicit `--api-base` is the person's own choice and is used as given. The real
`agent -p`; both listeners are real HTTP servers on 127.0.0.1 that record every header (the
provider's address is pointed at the second one, so nothing leaves the machine)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from agent.settings import save_model_choice
from tests.fake_openai import FakeOpenAI
from tests.security.inputs_helpers import agent_env, run_agent

OPENAI_KEY = "sk-canary-openai-4711"
ANTHROPIC_KEY = "sk-ant-canary-4712"


def _person(tmp_path: Path, agent_home: Path, local: FakeOpenAI) -> dict[str, str]:
    """A person whose first run saved lm_studio/local-model at the local listener."""
    agent_home.mkdir(parents=True, exist_ok=True)
    save_model_choice("lm_studio/local-model", local.base_url, agent_home / "settings.yaml")
    (tmp_path / "person").mkdir()
    env = agent_env(tmp_path / "person", agent_home)
    env.update(OPENAI_API_KEY=OPENAI_KEY, ANTHROPIC_API_KEY=ANTHROPIC_KEY, NO_COLOR="1")
    for name in ("OPENAI_API_BASE", "OPENAI_BASE_URL", "ANTHROPIC_API_BASE", "ANTHROPIC_BASE_URL"):
        env.pop(name, None)
    return env


@pytest.mark.parametrize("how", ["--model", "AGENT_MODEL"])
def test_another_providers_model_never_inherits_the_saved_local_address(
    how: str, tmp_path: Path, agent_home: Path
) -> None:
    with (
        FakeOpenAI([{"text": "Local answer."}]) as local,
        FakeOpenAI([{"text": "Provider answer."}]) as provider,
    ):
        env = _person(tmp_path, agent_home, local)
        env["OPENAI_API_BASE"] = provider.base_url  # stands in for https://api.openai.com/v1
        args = ["-p", "hi"]
        if how == "--model":
            args = ["--model", "openai/gpt-4.1-mini", *args]
        else:
            env["AGENT_MODEL"] = "openai/gpt-4.1-mini"
        done = run_agent(args, env, tmp_path / "person")
        local_requests, provider_requests = list(local.requests), list(provider.requests)

    assert local_requests == []
    assert [r["headers"]["authorization"] for r in provider_requests] == [f"Bearer {OPENAI_KEY}"]
    assert provider_requests[0]["body"]["model"] == "gpt-4.1-mini"
    assert done.returncode == 0, done.stderr
    assert "Provider answer." in done.stdout


def test_an_anthropic_model_never_sends_its_key_to_the_saved_local_address(
    tmp_path: Path, agent_home: Path
) -> None:
    with (
        FakeOpenAI([{"text": "Local answer."}]) as local,
        FakeOpenAI([]) as provider,
    ):
        env = _person(tmp_path, agent_home, local)
        env["ANTHROPIC_API_BASE"] = (
            f"http://127.0.0.1:{provider.port}"  # stands in for https://api.anthropic.com
        )
        done = run_agent(["--model", "anthropic/claude-sonnet-4-5", "-p", "hi"], env, tmp_path)
        local_requests, provider_requests = list(local.requests), list(provider.requests)
        local_address = f"127.0.0.1:{local.port}"

    assert local_requests == []
    assert ANTHROPIC_KEY in json.dumps([r["headers"] for r in provider_requests])
    assert done.returncode != 0  # the stand-in does not speak Anthropic's API
    assert local_address not in done.stderr


def test_the_saved_address_still_serves_a_model_of_its_own_provider(
    tmp_path: Path, agent_home: Path
) -> None:
    with FakeOpenAI([{"text": "Local answer."}]) as local:
        env = _person(tmp_path, agent_home, local)
        done = run_agent(["--model", "lm_studio/other-model", "-p", "hi"], env, tmp_path)
        local_requests = list(local.requests)

    assert done.returncode == 0, done.stderr
    assert [r["body"]["model"] for r in local_requests] == ["other-model"]
    assert OPENAI_KEY not in json.dumps([r["headers"] for r in local_requests])


def test_an_explicit_api_base_is_used_as_given(tmp_path: Path, agent_home: Path) -> None:
    with (
        FakeOpenAI([]) as local,
        FakeOpenAI([{"text": "Chosen answer."}]) as chosen,
    ):
        env = _person(tmp_path, agent_home, local)
        args = ["--model", "openai/gpt-4.1-mini", "--api-base", chosen.base_url, "-p", "hi"]
        done = run_agent(args, env, tmp_path)
        local_requests, chosen_requests = list(local.requests), list(chosen.requests)

    assert done.returncode == 0, done.stderr
    assert local_requests == []
    assert [r["headers"]["authorization"] for r in chosen_requests] == [f"Bearer {OPENAI_KEY}"]


def test_a_model_without_prefix_is_judged_by_the_provider_litellm_sends_it_to(
    tmp_path: Path, agent_home: Path
) -> None:
    # The person wrote `model: gpt-4o` and `api_base:` (an OpenAI-compatible proxy). litellm
    # sends `claude-sonnet-4-5`, without a prefix, to Anthropic: not the proxy's provider.
    with FakeOpenAI([]) as local, FakeOpenAI([]) as provider:
        env = _person(tmp_path, agent_home, local)
        env["ANTHROPIC_API_BASE"] = f"http://127.0.0.1:{provider.port}"
        save_model_choice("gpt-4o", local.base_url, agent_home / "settings.yaml")
        done = run_agent(["--model", "claude-sonnet-4-5", "-p", "hi"], env, tmp_path)
        local_requests, provider_requests = list(local.requests), list(provider.requests)

    assert ANTHROPIC_KEY not in json.dumps([r["headers"] for r in local_requests])
    assert local_requests == [], done.stderr
    assert ANTHROPIC_KEY in json.dumps([r["headers"] for r in provider_requests])
