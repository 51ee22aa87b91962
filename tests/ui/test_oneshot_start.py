"""How `agent -p` starts (issue 40): the real `agent -p` against the scripted model server and
real fixture MCP servers, with no terminal. A deferred server starts only when one of its tools
is called, a model that is down is said at once, `--mcp`/`--no-mcp` choose the servers of a
run, OPENAI_BASE_URL takes the direct path, and a request too large for llama.cpp's window is
said with the server's numbers."""

from __future__ import annotations

import json
from pathlib import Path

from tests.fake_openai import FakeOpenAI
from tests.ui.test_oneshot import model_args, oneshot_env, run_without_terminal

__all__ = ["oneshot_env"]  # the fixture, used by name


def test_a_request_too_large_for_llama_cpp_says_its_numbers(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    overflow = {"exceed_context": {"n_prompt_tokens": 9540, "n_ctx": 2048}}
    with FakeOpenAI([overflow, overflow]) as fake:
        done = run_without_terminal(
            oneshot_env, tmp_path, [*model_args(fake), "-p", "hi", "--output-format", "json"]
        )

    assert done.returncode == 1, done.stderr
    error = json.loads(done.stdout)["error"]
    assert "(9,540 tokens sent, the window holds 2,048)" in error
    assert "empty answer" not in error
