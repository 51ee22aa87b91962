"""With HTTP_PROXY set, the model API key never goes in clear text to the proxy.

A local model server (Ollama, LM Studio, vLLM, llama.cpp) at http://127.0.0.1 gets the API key
as a bearer header and the whole conversation: a plain-http loopback connection must go direct,
as every MCP and OAuth client does (agent/mcp/oauth/http_client.py), whichever litellm provider
carries it, and so must litellm's own look-ups (Ollama's model info at localhost:11434), and
whichever transport litellm's switches pick: its default aiohttp one, or plain httpx
(DISABLE_AIOHTTP_TRANSPORT, LITELLM_HTTP2), whose proxies httpx takes from the environment.
The proxy is a real forwarding proxy on 127.0.0.1 that keeps every request it is sent.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests import deadlines
from tests.fake_openai import FakeOpenAI
from tests.security.inputs_helpers import agent_env, one_shot, run_agent
from tests.security.local_model_servers import (
    Listing,
    chat_with_the_first_local_model,
    discovery_settings,
    local_server,
)
from tests.security.test_oauth_proxy import proxied, recording_proxy

KEY = "sk-local-SECRET-7"
# Every variable litellm reads a local provider's key from: whichever it picks, it is KEY.
KEYS = {
    name: KEY
    for name in ("HOSTED_VLLM_API_KEY", "LM_STUDIO_API_KEY", "LLAMAFILE_API_KEY", "OLLAMA_API_KEY")
}
# The environment switches that take litellm off its aiohttp transport, each a different path.
TRANSPORTS = pytest.mark.parametrize(
    "transport",
    [{}, {"DISABLE_AIOHTTP_TRANSPORT": "True"}, {"LITELLM_HTTP2": "True"}],
    ids=["aiohttp", "httpx", "httpx-http2"],
)


@TRANSPORTS
def test_a_loopback_model_apis_key_and_conversation_never_go_to_the_proxy(
    transport: dict[str, str], tmp_path: Path
) -> None:
    with recording_proxy() as (proxy, seen):
        env = agent_env(tmp_path, tmp_path / "agent-home") | proxied(proxy) | transport
        done, requests = one_shot([{"text": "ok"}], "hi", env, tmp_path)

    assert seen == []
    assert done.returncode == 0, done.stderr
    assert len(requests) == 1


@TRANSPORTS
@pytest.mark.parametrize(
    "provider", ["openai", "hosted_vllm", "lm_studio", "llamafile", "ollama_chat"]
)
def test_no_local_providers_request_goes_to_the_proxy(
    provider: str, transport: dict[str, str], tmp_path: Path
) -> None:
    with recording_proxy() as (proxy, seen), FakeOpenAI([{"text": "ok"}]) as fake:
        env = agent_env(tmp_path, tmp_path / "agent-home") | proxied(proxy) | KEYS | transport
        # Ollama's API has no /v1; the fake answers its /api/chat 404, after it has arrived.
        base = f"http://127.0.0.1:{fake.port}" + ("" if provider == "ollama_chat" else "/v1")
        args = ["--model", f"{provider}/local-model", "--api-base", base, "-p", "hi"]
        done = run_agent(args, env, tmp_path)
        requests = list(fake.requests)

    assert seen == []  # neither the chat request nor Ollama's model info (localhost:11434)
    assert [r["method"] for r in requests] == ["POST"], done.stderr
    assert "hi" in json.dumps(requests[0]["body"])
    if provider == "ollama_chat":
        assert requests[0]["path"] == "/api/chat"
    else:
        assert done.returncode == 0, done.stderr
        assert requests[0]["headers"]["authorization"] in (f"Bearer {KEY}", "Bearer sk-test")


def test_a_first_run_that_finds_a_local_server_sends_nothing_through_the_proxy(
    agent_home: Path, tmp_path: Path
) -> None:
    idle = Listing()  # an Ollama port that answers its list: asked too, and never via the proxy
    with (
        recording_proxy() as (proxy, seen),
        FakeOpenAI([{"text": "Local answer."}], models=["local-model"]) as fake,
        local_server(idle) as ollama_port,
    ):
        discovery_settings(agent_home, vllm_port=fake.port, ollama_port=ollama_port)
        env = agent_env(tmp_path, agent_home) | proxied(proxy) | KEYS | {"NO_COLOR": "1"}
        # the vLLM server's model
        chat_with_the_first_local_model(env, tmp_path, timeout=deadlines.PROCESS)
        requests = list(fake.requests)

    assert seen == []
    assert [r["path"] for r in idle.requests] == ["/api/tags"]
    assert [(r["method"], r["path"]) for r in requests] == [
        ("GET", "/v1/models"),
        ("POST", "/v1/chat/completions"),
    ]


@TRANSPORTS
def test_a_model_api_on_another_machine_still_goes_through_the_persons_proxy(
    transport: dict[str, str], tmp_path: Path
) -> None:
    with recording_proxy() as (proxy, seen):
        env = agent_env(tmp_path, tmp_path / "agent-home") | proxied(proxy) | transport
        args = ["--model", "openai/m", "--api-base", "http://models.example/v1", "-p", "hi"]
        done = run_agent(args, env, tmp_path)

    assert done.returncode != 0  # the proxy cannot reach models.example: the person is told
    assert seen, done.stderr
    assert all(line.startswith("POST http://models.example/v1/chat/completions") for line in seen)


@pytest.mark.parametrize("proxy", ["socks5://127.0.0.1:1", "ftp://127.0.0.1:1"])
def test_a_proxy_the_direct_client_cannot_speak_does_not_stop_a_loopback_model(
    proxy: str, tmp_path: Path
) -> None:
    # ALL_PROXY=socks5://... (an ssh -D tunnel) is never used for a model on this machine;
    # litellm went direct, but the direct client (model/openai_compatible.py) read it anyway,
    # for its proxy mounts, and failed before sending anything (no SOCKS support installed).
    env = agent_env(tmp_path, tmp_path / "agent-home") | {"ALL_PROXY": proxy}
    done, requests = one_shot([{"text": "ok"}], "hi", env, tmp_path)

    assert done.returncode == 0, done.stderr
    assert done.stdout.strip() == "ok"
    assert len(requests) == 1
