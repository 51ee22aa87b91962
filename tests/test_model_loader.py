"""The litellm loader: what it leaves behind for the first request (issue 17's measurements).

Each check runs in a fresh interpreter: the test process has long imported litellm.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading

import pytest

from agent.model import LiteLLMLoader, ModelError

_PROBE = """
import gc, json, sys
from agent.model import LiteLLMLoader, ModelError
loader = LiteLLMLoader()
loader.start(*sys.argv[1:])
litellm = loader.get()
loader._thread.join(60)  # the tokenizer, when warmed, is warmed in the loader's thread
print(json.dumps({
    "frozen": gc.get_freeze_count(),
    "gc_enabled": gc.isenabled(),
    # litellm's module that holds the loaded default tokenizer (an internal name: if litellm
    # renames it, this test says so and the warm-up needs a look)
    "tokenizer_loaded": "litellm.litellm_core_utils.default_encoding" in sys.modules,
}))
"""


def probe(*model: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _PROBE, *model],
        capture_output=True,
        text=True,
        timeout=120,
        check=True,
    )
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_the_heap_litellm_leaves_is_frozen_and_collection_is_back_on() -> None:
    # Unfrozen, each full collection after the import walks ~380 000 objects: the first
    # request paid about 0.2 s for that.
    result = probe()

    assert isinstance(result["frozen"], int) and result["frozen"] > 100_000
    assert result["gc_enabled"] is True


def test_given_the_model_the_loader_also_loads_its_tokenizer_and_not_otherwise() -> None:
    assert probe()["tokenizer_loaded"] is False
    assert probe("openai/gpt-4o-mini")["tokenizer_loaded"] is True


def test_when_the_import_thread_cannot_start_get_says_so_instead_of_waiting(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def refuse(self: threading.Thread) -> None:
        raise RuntimeError("can't start new thread")

    monkeypatch.setattr(threading.Thread, "start", refuse)
    loader = LiteLLMLoader()
    loader.start("openai/gpt-4o-mini")
    monkeypatch.undo()

    with pytest.raises(ModelError, match="could not load litellm: can't start new thread"):
        loader.get()
