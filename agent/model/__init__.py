"""The model layer: a chat's requests to its model, and which client sends them.

`litellm_model.py` sends every provider's requests through litellm (the one module that imports
it); `openai_compatible.py` speaks to a server named by its address (`openai/NAME` with an
api_base) directly, because for such a server litellm routes nothing and its import is most of
an `agent -p` run. `chat_model` picks one; both are LiteLLMModel to the rest of agent (token
counts, the model table and images still come from litellm, loaded only when asked).
"""

from __future__ import annotations

import os
from dataclasses import replace

from agent.model.litellm_model import (
    LOADER,
    PLACEHOLDER_KEY,
    ChatModel,
    LiteLLMLoader,
    LiteLLMModel,
    ModelError,
    ModelSettings,
    TextChunk,
    accepts_images,
    describe_model_error,
    estimate_usage,
    missing_key_error,
    placeholder_key,
    routing_problem,
    table_window,
)
from agent.model.openai_compatible import OpenAICompatibleModel

__all__ = [
    "BASE_URL_VARIABLES",
    "COMMON_PROVIDERS",
    "LOADER",
    "PLACEHOLDER_KEY",
    "ChatModel",
    "LiteLLMLoader",
    "LiteLLMModel",
    "ModelError",
    "ModelSettings",
    "OpenAICompatibleModel",
    "TextChunk",
    "accepts_images",
    "chat_model",
    "describe_model_error",
    "effective_api_base",
    "estimate_usage",
    "load_for",
    "missing_key_error",
    "placeholder_key",
    "routing_problem",
    "served_directly",
    "start_problem",
    "table_window",
]


# The openai SDK's variables for its address, in the order litellm reads them for `openai/`
# models when no api_base is given (litellm/main.py: api_base, then OPENAI_BASE_URL, then
# OPENAI_API_BASE).
BASE_URL_VARIABLES = ("OPENAI_BASE_URL", "OPENAI_API_BASE")


def effective_api_base(name: str, api_base: str | None) -> str | None:
    """Where requests for `name` go: `api_base` (--api-base, else the settings' api_base),
    else, for an `openai/` model, the address the environment gives the openai SDK, as
    litellm would send them there."""
    if api_base is not None or not name.startswith("openai/"):
        return api_base
    return next((os.environ[v] for v in BASE_URL_VARIABLES if os.environ.get(v)), None)


def served_directly(name: str, api_base: str | None) -> bool:
    """Whether requests for `name` at `api_base` go straight to an OpenAI-compatible server
    (openai_compatible.py: the server is named by its address, so litellm would route
    nothing, and its import is most of `agent -p`) rather than through litellm."""
    return effective_api_base(name, api_base) is not None and name.startswith("openai/")


def load_for(name: str, api_base: str | None) -> None:
    """Begin litellm's import in the background when a one-shot request for `name` at
    `api_base` will go through it (a one-shot run never needs it otherwise)."""
    if not served_directly(name, api_base):
        LOADER.start()


# Providers litellm routes (each in its `provider_list`; tests/chat/test_model_start.py keeps
# it so): a name with one of these prefixes needs no look at litellm to be known routable.
# Any other name asks litellm at start, which loads it (about 2 s); such a name goes through
# litellm anyway.
COMMON_PROVIDERS = frozenset(
    [
        "anthropic",
        "azure",
        "azure_ai",
        "bedrock",
        "cerebras",
        "cohere",
        "cohere_chat",
        "deepseek",
        "fireworks_ai",
        "gemini",
        "github",
        "groq",
        "hosted_vllm",
        "huggingface",
        "lm_studio",
        "mistral",
        "ollama",
        "ollama_chat",
        "openai",
        "openrouter",
        "perplexity",
        "together_ai",
        "vertex_ai",
        "vllm",
        "xai",
    ]
)


def start_problem(name: str, api_base: str | None) -> str | None:
    """Why a chat with model `name` cannot start: litellm would not know where to send its
    requests (the words `/model` says it with); None when it can. A name spoken to directly,
    or with a common provider's prefix, is known without importing litellm."""
    provider, _, rest = name.partition("/")
    if served_directly(name, api_base) or (rest and provider in COMMON_PROVIDERS):
        return None
    return routing_problem(name)


def chat_model(settings: ModelSettings) -> LiteLLMModel:
    """The model for `settings`: OpenAI-compatible servers spoken to directly (named by
    api_base or OPENAI_BASE_URL), every other provider through litellm."""
    if served_directly(settings.name, settings.api_base):
        api_base = effective_api_base(settings.name, settings.api_base)
        return OpenAICompatibleModel(replace(settings, api_base=api_base))
    return LiteLLMModel(settings)
