"""A model server of one's own on this machine gets a made-up key when none is set (litellm
sends nothing without one); no other host ever gets it, and a key that is set is never
replaced by it. Without a key, a remote api_base is told nothing: the error says what to set."""

from __future__ import annotations

import anyio
import pytest

from agent.model import PLACEHOLDER_KEY, LiteLLMModel, ModelError, ModelSettings, placeholder_key

pytestmark = pytest.mark.anyio


@pytest.mark.parametrize(
    "base",
    [
        "https://192.0.2.1/v1",
        "http://10.0.0.7:8080/v1",
        "http://localhost.attacker.example/v1",
        "http://127.0.0.1.nip.io:8080/v1",
        "http://[::ffff:192.0.2.1]:8080/v1",
    ],
)
def test_no_host_but_this_machine_is_given_the_placeholder_key(
    base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert placeholder_key(ModelSettings(name="openai/x", api_base=base)) is None


@pytest.mark.parametrize(
    "base", ["http://127.0.0.1:8080/v1", "http://localhost:1234/v1", "http://[::1]:8000/v1"]
)
def test_a_server_on_this_machine_gets_the_placeholder_only_while_no_key_is_set(
    base: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    settings = ModelSettings(name="openai/x", api_base=base)
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert placeholder_key(settings) == PLACEHOLDER_KEY
    monkeypatch.setenv("OPENAI_API_KEY", "sk-the-persons-own")
    assert placeholder_key(settings) is None  # litellm sends the key the person set, as before


def test_a_name_of_another_provider_is_not_given_the_placeholder_in_place_of_its_own_key(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # litellm sends claude-sonnet-4-5 to Anthropic with ANTHROPIC_API_KEY: an unset
    # OPENAI_API_KEY must not put a made-up key in its place (a local proxy would refuse it).
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("ANTHROPIC_API_KEY", "sk-ant-the-persons-own")
    settings = ModelSettings(name="claude-sonnet-4-5", api_base="http://127.0.0.1:4000")
    assert placeholder_key(settings) is None


async def test_a_remote_api_base_without_a_key_is_sent_nothing_and_the_error_says_what_to_set(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    # TEST-NET-1: nothing answers there, so a request would wait out the timeout.
    model = LiteLLMModel(ModelSettings(name="openai/x", api_base="https://192.0.2.1/v1", retries=0))
    with anyio.fail_after(20), pytest.raises(ModelError) as failed:
        async for _ in model.stream([{"role": "user", "content": "hi"}], []):
            pass
    assert str(failed.value).startswith(
        "no API key for openai/x (nothing was sent): export OPENAI_API_KEY=..."
    )
