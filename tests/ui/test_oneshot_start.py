"""How `agent -p` starts (issue 40): the real `agent -p` against the scripted model server and
real fixture MCP servers, with no terminal. A deferred server starts only when one of its tools
is called, a model that is down is said at once, `--mcp`/`--no-mcp` choose the servers of a
run, OPENAI_BASE_URL takes the direct path, and a request too large for llama.cpp's window is
said with the server's numbers."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pexpect

from tests.fake_openai import FakeOpenAI
from tests.pty_chat import AGENT
from tests.ui.test_oneshot import model_args, oneshot_env, run_without_terminal, spawn_in_terminal

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


def loaded_modules(done: subprocess.CompletedProcess[str]) -> set[str]:
    """The modules a `python -X importtime` run imported."""
    return {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}


def run_importtime(
    env: dict[str, str], cwd: Path, args: list[str]
) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-X", "importtime", "-m", "agent", *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=60,
        start_new_session=True,
    )


def test_openai_base_url_with_an_openai_model_takes_the_direct_path(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    # The openai SDK's convention, which litellm honours: the server named by its address is
    # spoken to directly, as with --api-base (litellm's import is most of a one-shot run).
    with FakeOpenAI([{"text": "Direct."}]) as fake:
        env = {**oneshot_env, "OPENAI_BASE_URL": fake.base_url}
        done = run_importtime(env, tmp_path, ["--model", "openai/fake-model", "-p", "hi"])
        requests = fake.requests

    assert (done.returncode, done.stdout) == (0, "Direct.\n"), done.stderr
    assert requests[0]["headers"]["user-agent"].startswith("agent/")  # ours, not the SDK's
    loaded = loaded_modules(done)
    assert "agent.model.openai_compatible" in loaded
    assert {name for name in loaded if name.split(".")[0] in ("litellm", "openai")} == set()


def test_api_base_wins_over_openai_base_url(tmp_path: Path, oneshot_env: dict[str, str]) -> None:
    with FakeOpenAI([{"text": "From --api-base."}]) as fake, FakeOpenAI([]) as other:
        env = {**oneshot_env, "OPENAI_BASE_URL": other.base_url}
        done = run_without_terminal(env, tmp_path, [*model_args(fake), "-p", "hi"])
        asked_other = other.requests

    assert (done.returncode, done.stdout) == (0, "From --api-base.\n"), done.stderr
    assert asked_other == []


def test_saved_api_base_wins_over_openai_base_url(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    settings = Path(oneshot_env["AGENT_HOME"]) / "settings.yaml"
    with FakeOpenAI([{"text": "From settings."}]) as fake, FakeOpenAI([]) as other:
        settings.parent.mkdir(parents=True, exist_ok=True)
        settings.write_text(f"model: openai/fake-model\napi_base: {fake.base_url}\n")
        env = {**oneshot_env, "OPENAI_BASE_URL": other.base_url}
        done = run_without_terminal(env, tmp_path, ["-p", "hi"])
        asked_other = other.requests

    assert (done.returncode, done.stdout) == (0, "From settings.\n"), done.stderr
    assert asked_other == []


def test_a_model_litellm_cannot_route_is_refused_at_start_as_model_says(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    with FakeOpenAI([]) as fake:
        done = run_without_terminal(
            oneshot_env, tmp_path, ["--model", "anthropc/claude", "-p", "hi"]
        )
        asked = fake.requests

    assert done.returncode == 2, done.stderr
    assert done.stdout == ""
    assert done.stderr.startswith(
        "agent: litellm cannot tell which provider serves 'anthropc/claude': type it with its "
        "provider, e.g. openai/anthropc/claude"
    ), done.stderr
    assert asked == []


def test_a_model_litellm_cannot_route_ends_the_chat_before_it_starts(
    tmp_path: Path, oneshot_env: dict[str, str]
) -> None:
    chat = spawn_in_terminal(f"{AGENT} --model anthropc/claude", oneshot_env, tmp_path)
    chat.expect_exact("litellm cannot tell which provider serves 'anthropc/claude'")
    chat.expect(pexpect.EOF)
    chat.close()

    assert chat.exitstatus == 2
