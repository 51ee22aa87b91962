"""Issue 16 review: /context and the toolbar never reach the network, nor block the chat.

A local model (Ollama, LM Studio) is picked so nothing leaves the machine; counting its tokens
must not fetch a tokenizer from huggingface.co, and looking up its context window must not POST
to a model server (a server that accepts and never answers froze the chat for minutes).
"""

from __future__ import annotations

import socket
from typing import Any

import pytest

from agent.model import LiteLLMModel, ModelSettings


@pytest.fixture
def network_attempts(monkeypatch: pytest.MonkeyPatch) -> list[Any]:
    """Every connection or name lookup is recorded and refused at once (bounded, offline)."""
    seen: list[Any] = []

    def refuse_connection(address: Any, *args: Any, **kwargs: Any) -> socket.socket:
        seen.append(address)
        raise OSError("network blocked by the test")

    def refuse_lookup(host: Any, *args: Any, **kwargs: Any) -> Any:
        seen.append(host)
        raise socket.gaierror("network blocked by the test")

    real_connect = socket.socket.connect

    def refuse_connect(self: socket.socket, address: Any) -> None:
        if self.family in (socket.AF_INET, socket.AF_INET6):
            seen.append(address)
            raise OSError("network blocked by the test")
        real_connect(self, address)

    monkeypatch.setattr(socket, "create_connection", refuse_connection)
    monkeypatch.setattr(socket, "getaddrinfo", refuse_lookup)
    monkeypatch.setattr(socket.socket, "connect", refuse_connect)
    return seen


def _model(name: str) -> LiteLLMModel:
    return LiteLLMModel(
        ModelSettings(
            name=name,
            api_base="http://127.0.0.1:1234/v1",
            api_key_env=None,
            chunk_timeout_seconds=30,
            request_timeout_seconds=60,
            retries=0,
        )
    )


@pytest.mark.parametrize(
    "name",
    ["lm_studio/meta-llama-3.1-8b-instruct", "ollama/llama-3-8b", "hosted_vllm/llama-2-7b-chat"],
)
def test_counting_a_local_llama_models_tokens_makes_no_network_connection(
    name: str, network_attempts: list[Any]
) -> None:
    tokens = _model(name).count_tokens(text="hello world " * 10)
    assert tokens > 0
    assert network_attempts == []


@pytest.mark.parametrize("name", ["ollama/llama3", "ollama_chat/qwen2.5", "lm_studio/qwen2.5-7b"])
def test_the_context_window_of_a_local_model_is_looked_up_without_asking_any_server(
    name: str, network_attempts: list[Any]
) -> None:
    model = _model(name)
    model.count_tokens(text="load litellm")  # context_window answers only once litellm is loaded
    network_attempts.clear()
    model.context_window()
    assert network_attempts == []


def test_the_context_window_of_a_known_model_comes_from_litellms_table(
    network_attempts: list[Any],
) -> None:
    model = _model("gpt-4o")
    model.count_tokens(text="load litellm")
    assert (model.context_window() or 0) >= 100_000
    assert network_attempts == []
