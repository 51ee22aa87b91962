"""Attacks on the first run's look for local model servers: whatever listens on 127.0.0.1:11434
(or :1234, :8080, :8000) may be anyone's program. Its model names must not drive the terminal,
a huge or endless list must not stall or flood the start, a slow answer costs at most the
discovery timeout, and no provider key from the environment ever goes to a local server."""

from __future__ import annotations

import json
import subprocess
import time
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from agent.chat.local_models import MAX_MODELS
from agent.chat.model_choices import SHOWN_PER_SERVER, find_choices
from agent.settings import ModelDiscovery
from tests import deadlines
from tests.fake_openai import FakeOpenAI
from tests.pty_chat import AGENT, pty_env, spawn_agent
from tests.security.local_model_servers import (
    Listing,
    chat_with_the_first_local_model,
    discovery_settings,
    local_server,
    ollama_tags,
)

TIMEOUT = deadlines.PROCESS
SECRETS = {
    "OPENAI_API_KEY": "sk-openai-SECRET-1",
    "ANTHROPIC_API_KEY": "sk-ant-SECRET-2",
    "GEMINI_API_KEY": "gemini-SECRET-3",
}
HOSTILE_NAMES = (
    "good-model",
    "\x1b]0;pwned-title\x07x",
    "clear\x1b[2Jpwned-screen",
    "bidi\u202epwned-bidi",
    "two\npwned-line",
    "pwned-long-" + "a" * 5000,
)


@pytest.fixture
def env(agent_home: Path, tmp_path: Path) -> Iterator[dict[str, str]]:
    environment = pty_env(agent_home, tmp_path) | SECRETS
    for name in ("OPENAI_API_BASE", "OPENAI_BASE_URL"):
        environment.pop(name, None)
    yield environment


def run_without_terminal(env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [AGENT], env=env, cwd=cwd, stdin=subprocess.DEVNULL, capture_output=True, text=True,
        timeout=TIMEOUT,
    )  # fmt: skip


def test_model_names_with_escape_sequences_are_left_out_of_the_chooser_and_never_drawn(
    agent_home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    with local_server(Listing(body=ollama_tags(*HOSTILE_NAMES))) as port:
        settings = discovery_settings(agent_home, ollama_port=port)
        before = settings.read_text()
        chat = spawn_agent([], env, tmp_path, dimensions=(40, 200), timeout=TIMEOUT)
        chat.expect("Enter for 1")
        drawn = chat.before
        chat.sendcontrol("c")
        chat.expect(pexpect.EOF)
        drawn += chat.before
        chat.close()

    assert f"1. ollama_chat/good-model  (Ollama on 127.0.0.1:{port})" in drawn
    assert f"(5 names from Ollama on 127.0.0.1:{port} left out" in drawn
    assert "pwned" not in drawn  # not drawn raw, not even as visible escapes
    assert "\x1b]" not in drawn and "\u202e" not in drawn
    assert settings.read_text() == before


def test_without_a_terminal_hostile_model_names_never_reach_stderr(
    agent_home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    names = (*HOSTILE_NAMES[1:], "good-model")  # the first name is the one given as example
    with local_server(Listing(body=ollama_tags(*names))) as port:
        discovery_settings(agent_home, ollama_port=port)
        completed = run_without_terminal(env, tmp_path)
    assert completed.returncode == 2
    assert f"Ollama on 127.0.0.1:{port}: 1 model, e.g. agent --model ollama_chat/good-model" in (
        completed.stderr
    )
    assert "pwned" not in completed.stderr and "\x1b" not in completed.stderr


def test_a_huge_model_list_is_cut_to_a_bounded_number_and_the_chooser_shows_a_page() -> None:
    names = [f"model-{index}" for index in range(20_000)]  # about 900 KB of JSON
    with local_server(Listing(body=ollama_tags(*names))) as port:
        found = find_choices(ModelDiscovery(port, 0, 0, 0, 5.0))
    (server,) = found.servers
    assert len(server.models) == MAX_MODELS
    assert server.skipped == 20_000 - MAX_MODELS
    assert [c.model for c in found.shown()] == [
        f"ollama_chat/model-{index}" for index in range(SHOWN_PER_SERVER)
    ]


def test_an_answer_past_the_size_limit_or_one_that_never_ends_is_given_up_on_in_time() -> None:
    endless = Listing(trickle=True)  # a byte every 50 ms: no single read ever times out
    silent = Listing(silent=True)
    huge = Listing(body=b'{"models": [' + b" " * (3 * 1024 * 1024) + b"]}")
    with (
        local_server(endless) as endless_port,
        local_server(silent) as silent_port,
        local_server(huge) as huge_port,
    ):
        started = time.monotonic()
        found = find_choices(ModelDiscovery(endless_port, silent_port, huge_port, 0, 1.0))
        elapsed = time.monotonic() - started
    assert found.servers == []
    assert elapsed < 1.0 + deadlines.HANG  # bounded by its 1 s timeout: the trickle is endless
    assert [len(listing.requests) for listing in (endless, silent, huge)] == [1, 1, 1]


def test_a_slow_local_server_delays_the_first_run_by_at_most_the_discovery_timeout(
    agent_home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    with local_server(Listing(trickle=True)) as port:
        discovery_settings(agent_home, ollama_port=port, timeout_seconds=0.5)
        completed = run_without_terminal(env, tmp_path)  # would hang for a minute unbounded
    assert completed.returncode == 2
    assert "Found here:\n  OPENAI_API_KEY is set" in completed.stderr
    assert "Ollama" not in completed.stderr.split("Found here:")[1]


def test_the_look_for_local_servers_sends_no_credentials(
    agent_home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    listing = Listing(body=ollama_tags("llama3.1"))
    with local_server(listing) as port:
        discovery_settings(agent_home, ollama_port=port)
        completed = run_without_terminal(env, tmp_path)
    assert completed.returncode == 2
    assert [request["path"] for request in listing.requests] == ["/api/tags"]
    assert set(listing.requests[0]["headers"]) == {"host", "accept", "user-agent"}
    for secret in SECRETS.values():
        assert secret not in completed.stderr


@pytest.mark.parametrize("port_setting", ["lm_studio_port", "llama_cpp_port", "vllm_port"])
def test_a_chosen_local_model_is_never_sent_an_environment_key(
    port_setting: str, agent_home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    with FakeOpenAI([{"text": "Local answer."}], models=["local-model"]) as fake:
        discovery_settings(agent_home, **{port_setting: fake.port})
        chat_with_the_first_local_model(env, tmp_path, TIMEOUT)
        requests = list(fake.requests)
    assert [r["method"] for r in requests] == ["GET", "POST"]
    sent = json.dumps([r["headers"] for r in requests])
    for secret in SECRETS.values():
        assert secret not in sent


def test_switching_from_a_local_model_to_a_provider_never_sends_its_key_to_the_local_server(
    tmp_path: Path, env: dict[str, str]
) -> None:
    secret = SECRETS["OPENAI_API_KEY"]
    with (
        FakeOpenAI([{"text": "Local answer."}]) as local,
        FakeOpenAI([{"text": "Provider answer."}]) as provider,
    ):
        env["OPENAI_API_BASE"] = provider.base_url  # where litellm sends openai/ by default
        local_model = ["--model", "lm_studio/local-model", "--api-base", local.base_url]
        chat = spawn_agent(local_model, env, tmp_path, timeout=TIMEOUT)
        chat.expect("›")
        chat.send("one\r")
        chat.expect("Local answer.")
        chat.expect("›")
        chat.send("/model openai/gpt-4.1-mini\r")
        chat.expect("Model changed from lm_studio/local-model to openai/gpt-4.1-mini")
        chat.expect("›")
        chat.send("two\r")
        chat.expect("Provider answer.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
        local_requests, provider_requests = list(local.requests), list(provider.requests)
    assert secret not in json.dumps([r["headers"] for r in local_requests])
    assert len(local_requests) == 1
    assert [r["headers"]["authorization"] for r in provider_requests] == [f"Bearer {secret}"]
