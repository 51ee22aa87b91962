"""The litellm loader and the first request: what issue 17's measurements found costly.

The loader's own checks run in a fresh interpreter: the test process has long imported litellm.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
from typing import Any

import pytest

from agent.messages import Completion, Usage, estimate_tokens
from agent.model import LiteLLMLoader, LiteLLMModel, ModelError, ModelSettings
from tests.fake_openai import FakeOpenAI

_PROBE = """
import asyncio, gc, json, sys
from agent.model import LiteLLMLoader, LiteLLMModel, ModelSettings
loader = LiteLLMLoader()
loader.start()
loader.get()
frozen, gc_enabled = gc.get_freeze_count(), gc.isenabled()
# A real streamed request (to the scripted server), through the model as the chat uses it.
model = LiteLLMModel(ModelSettings("openai/gpt-4o-mini", api_base=sys.argv[1], retries=0), loader)
async def ask():
    return [item async for item in model.stream([{"role": "user", "content": "hi"}], [])][-1]
completion = asyncio.run(ask())
print(json.dumps({
    "frozen": frozen,
    "gc_enabled": gc_enabled,
    "usage": [completion.usage.prompt_tokens, completion.usage.completion_tokens],
    # litellm's module holding a loaded tokenizer (an internal name: if litellm renames it,
    # this test says so and the reason for disable_token_counter needs a fresh look)
    "tokenizer_loaded": "litellm.litellm_core_utils.default_encoding" in sys.modules,
}))
"""


def probe() -> dict[str, Any]:
    with FakeOpenAI(
        [{"text": "Hello.", "usage": {"prompt_tokens": 11, "completion_tokens": 3}}]
    ) as fake:
        done = subprocess.run(
            [sys.executable, "-c", _PROBE, fake.base_url],
            capture_output=True,
            text=True,
            env=dict(os.environ, OPENAI_API_KEY="sk-test"),
            timeout=120,
        )
    assert done.returncode == 0, done.stderr
    result: dict[str, Any] = json.loads(done.stdout)
    return result


def test_after_the_import_the_heap_is_frozen_and_a_request_loads_no_tokenizer() -> None:
    # Unfrozen, each full collection after the import walks ~380 000 objects (the first request
    # paid about 0.2 s); litellm's pre-pricing token count loaded a tokenizer (0.1-0.35 s).
    result = probe()

    assert result["frozen"] > 100_000
    assert result["gc_enabled"] is True
    assert result["tokenizer_loaded"] is False
    assert result["usage"] == [11, 3]  # the provider's own numbers


@pytest.mark.anyio
async def test_a_server_that_reports_no_usage_gets_an_estimate_and_no_cost(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", "sk-test")
    messages = [{"role": "user", "content": "Count me, please."}]
    with FakeOpenAI([{"text": "Twelve chars", "omit_usage": True}]) as fake:
        model = LiteLLMModel(ModelSettings("openai/gpt-4o-mini", api_base=fake.base_url, retries=0))
        items = [item async for item in model.stream(messages, [])]

    completion = items[-1]
    assert isinstance(completion, Completion)
    assert completion.usage == Usage(estimate_tokens(messages), len("Twelve chars") // 4, None)


def test_when_the_import_thread_cannot_start_get_says_so_instead_of_waiting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    loader = LiteLLMLoader()
    loader.start()
    monkeypatch.undo()

    with pytest.raises(ModelError, match="could not load litellm: can't start new thread"):
        loader.get()
