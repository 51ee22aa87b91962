"""The model check at start (agent/model/__init__.py's start_problem): the prefixes it knows
without litellm are ones litellm routes, and any other name gets litellm's own verdict."""

from __future__ import annotations

from agent.model import COMMON_PROVIDERS, LOADER, start_problem


def test_every_provider_known_without_litellm_is_one_litellm_routes() -> None:
    litellm = LOADER.get()
    routed = {getattr(p, "value", p) for p in litellm.provider_list}

    assert routed >= COMMON_PROVIDERS


def test_a_misspelt_provider_gets_the_words_model_says_and_a_known_one_none() -> None:
    assert start_problem("anthropic/claude-sonnet-4-5", None) is None
    assert start_problem("openai/local", "http://127.0.0.1:1/v1") is None
    assert start_problem("gpt-4o-mini", None) is None  # litellm knows the name by itself
    problem = start_problem("anthropc/claude", None)
    assert problem is not None
    assert problem.startswith("litellm cannot tell which provider serves 'anthropc/claude'")
