"""Attack: a provider (or a proxy in front of it) echoes the request's Authorization header in
its error. The key must not reach the person's terminal, the JSON output or the session,
whichever environment variable litellm read it from."""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.model import ModelSettings, describe_model_error
from tests.fake_openai import FakeOpenAI

AGENT = str(Path(sys.executable).with_name("agent"))
KEY = "sk-canary-key-0c9f3a71d2"


def run_agent(env: dict[str, str], cwd: Path, args: list[str]) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENT, *args],
        input="",
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
        start_new_session=True,
    )


def test_a_provider_error_echoing_the_openai_key_never_shows_it_in_one_shot_output(
    agent_home: Path, tmp_path: Path
) -> None:
    env = dict(os.environ)
    (tmp_path / "home").mkdir()
    env.update(HOME=str(tmp_path / "home"), AGENT_HOME=str(agent_home), OPENAI_API_KEY=KEY)
    env.pop("AGENT_MODEL", None)
    # No api_key_env anywhere: litellm reads OPENAI_API_KEY by itself.
    echoed = f"Invalid request header Authorization: Bearer {KEY} (and raw key {KEY})"
    turn = {"error": {"status": 400, "message": echoed}}
    with FakeOpenAI([turn, turn]) as fake:
        base = ["--model", "openai/fake-model", "--api-base", fake.base_url, "-p", "hi"]
        as_json = run_agent(env, tmp_path, [*base, "--output-format", "json"])
        as_text = run_agent(env, tmp_path, base)
        sent = [request["headers"].get("authorization") for request in fake.requests]

    assert sent == [f"Bearer {KEY}", f"Bearer {KEY}"]  # the key really went out, and came back
    assert (as_json.returncode, as_text.returncode) == (1, 1)
    error = json.loads(as_json.stdout)["error"]
    assert "Invalid request header Authorization: Bearer *** (and raw key ***)" in error
    for output in (as_json.stdout, as_json.stderr, as_text.stdout, as_text.stderr):
        assert KEY not in output
    for path in agent_home.rglob("*"):
        if path.is_file():
            assert KEY not in path.read_text(errors="replace"), path


class EchoingError(Exception):
    """Shaped like a litellm exception: matched by class name, message from the provider."""


EchoingError.__name__ = "BadRequestError"


@pytest.mark.parametrize(
    "variable", ["ANTHROPIC_API_KEY", "AZURE_AD_TOKEN", "HF_TOKEN", "WATSONX_APIKEY"]
)
def test_any_provider_key_in_the_environment_is_redacted_from_model_errors(
    variable: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    secret = f"{variable.lower()}-canary-5e1d"
    monkeypatch.setenv(variable, secret)
    error = EchoingError(f"bad header: Bearer {secret}; also x-api-key={secret}")
    described = str(describe_model_error(error, ModelSettings(name="openai/any")))
    assert "bad header: Bearer ***; also x-api-key=***" in described


def test_a_long_error_is_redacted_before_it_is_cut(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", KEY)
    error = EchoingError("x" * 290 + KEY)  # the cut at 300 characters falls inside the key
    described = str(describe_model_error(error, ModelSettings(name="openai/any")))
    assert KEY[:6] not in described
