"""Model errors as a person meets them, in the real `agent`: each says what happened and what
to do. A server of one's own on this machine works without a key; a model server that is down
is named by its host and port; a request too large for a local server's context window says
so, with the server's numbers, though the server answered 200 and put the error in the stream."""

from __future__ import annotations

import socket
import subprocess
from collections.abc import Iterator
from pathlib import Path

import pytest

from agent.model import PLACEHOLDER_KEY
from tests.pty_chat import AGENT, finish, pty_env, scripted_chat, spawn_agent

OVERFLOW = {
    "code": 400,
    "message": "request (5000 tokens) exceeds the available context size (4096 tokens), "
    "try increasing it",
    "type": "exceed_context_size_error",
    "n_prompt_tokens": 5000,
    "n_ctx": 4096,
}


@pytest.fixture
def refusing_port() -> Iterator[int]:
    """A port on 127.0.0.1 that refuses connections: bound (so nobody else takes it), never
    listening."""
    with socket.socket() as bound:
        bound.bind(("127.0.0.1", 0))
        yield bound.getsockname()[1]


def without_key(env: dict[str, str]) -> dict[str, str]:
    env = dict(env)
    env.pop("OPENAI_API_KEY", None)
    return env


def test_the_readme_recipe_for_a_server_of_ones_own_works_without_an_api_key(
    tmp_path: Path, agent_home: Path
) -> None:
    env = without_key(pty_env(agent_home, tmp_path))
    with scripted_chat(tmp_path, [{"text": "Served locally."}], env) as (chat, fake):
        chat.expect("›")
        chat.send("hello\r")
        assert chat.expect_exact(["Served locally.", "error"]) == 0
        chat.expect("›")
        finish(chat)
        [request] = fake.requests()
    assert request["headers"]["authorization"] == f"Bearer {PLACEHOLDER_KEY}"


@pytest.mark.parametrize("model", ["openai/local", "hosted_vllm/local"])
def test_a_chat_whose_model_server_is_down_says_nothing_answers_there_and_how_to_switch(
    tmp_path: Path, agent_home: Path, refusing_port: int, model: str
) -> None:
    base = f"http://127.0.0.1:{refusing_port}/v1"
    env = pty_env(agent_home, tmp_path)
    chat = spawn_agent(["--model", model, "--api-base", base], env, tmp_path)
    try:
        chat.expect("›")
        chat.send("hello\r")
        chat.expect_exact(f"nothing answers at 127.0.0.1:{refusing_port}")
        chat.expect_exact("/model")
        assert "SSLContext" not in chat.before
        chat.expect("›")
        finish(chat)
    finally:
        chat.close(force=True)


@pytest.mark.parametrize("model", ["openai/local", "hosted_vllm/local"])
def test_agent_p_against_a_model_server_that_is_down_says_nothing_answers_there(
    tmp_path: Path, agent_home: Path, refusing_port: int, model: str
) -> None:
    base = f"http://127.0.0.1:{refusing_port}/v1"
    done = subprocess.run(
        [AGENT, "--model", model, "--api-base", base, "-p", "hello"],
        capture_output=True,
        text=True,
        env=pty_env(agent_home, tmp_path),
        cwd=tmp_path,
        timeout=60,
        start_new_session=True,
    )
    assert done.returncode == 1
    assert f"nothing answers at 127.0.0.1:{refusing_port} ({base}) for {model}" in done.stderr
    assert "ssl" not in done.stderr.lower()


@pytest.mark.parametrize("how", ["stream_error", "stream_error_line"])
def test_a_request_too_large_for_a_local_servers_context_window_says_so_with_its_numbers(
    tmp_path: Path, agent_home: Path, how: str
) -> None:
    turns = [{how: OVERFLOW}, {"text": "Fits now."}]
    with scripted_chat(tmp_path, turns, pty_env(agent_home, tmp_path)) as (chat, _fake):
        chat.expect("›")
        chat.send("a very long question\r")
        chat.expect_exact("no longer fits openai/fake-model's context window")
        chat.expect_exact("(5,000 tokens sent, the window holds 4,096)")
        chat.expect_exact("/compact")
        assert "empty answer" not in chat.before
        chat.expect("›")
        chat.send("shorter\r")
        chat.expect_exact("Fits now.")
        finish(chat)


def test_a_stream_error_is_not_taken_for_an_empty_answer(tmp_path: Path, agent_home: Path) -> None:
    lm_studio = {
        "message": "Trying to keep the first 5000 tokens when context the overflows. However, "
        "the model is loaded with context length of only 4096 tokens, which is not enough."
    }
    with scripted_chat(tmp_path, [{"stream_error": lm_studio}], pty_env(agent_home, tmp_path)) as (
        chat,
        _fake,
    ):
        chat.expect("›")
        chat.send("hello\r")
        index = chat.expect_exact(["(5,000 tokens sent, the window holds 4,096)", "empty answer"])
        assert index == 0
        finish(chat)
