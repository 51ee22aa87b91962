"""The first run without a model, and /model, as a person meets them: the real `agent` in a
pseudo-terminal (or without one), the scripted OpenAI-compatible server as the local model
server (it lists its models at /v1/models, like LM Studio), on a free port set in settings."""

from __future__ import annotations

import subprocess
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from agent.chat.model_choices import Found, ModelChoice, find_choices, typed_choice
from agent.settings import ModelDiscovery, load_settings
from tests import deadlines
from tests.fake_openai import FakeOpenAI
from tests.pty_chat import AGENT, pty_env, spawn_agent
from tests.security.local_model_servers import (
    Listing,
    discovery_settings,
    local_server,
    ollama_tags,
)

TIMEOUT = deadlines.PROCESS
COMMENT = "# my own note about these settings"


@pytest.fixture
def env(agent_home: Path, tmp_path: Path) -> Iterator[dict[str, str]]:
    environment = pty_env(agent_home, tmp_path) | {"OPENAI_API_KEY": "sk-test-first-run"}
    for name in ("ANTHROPIC_API_KEY", "GEMINI_API_KEY", "OPENAI_API_BASE"):
        environment.pop(name, None)
    yield environment


def spawn(env: dict[str, str], cwd: Path, *argv: str) -> pexpect.spawn:
    return spawn_agent(list(argv), env, cwd, timeout=TIMEOUT)


def test_the_first_run_lists_a_local_servers_models_saves_the_choice_and_chats_with_it(
    agent_home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    with FakeOpenAI(
        [{"text": "Hello from the local model."}], models=["qwen-a", "llama-b"]
    ) as fake:
        port = fake.port
        settings = discovery_settings(agent_home, COMMENT, lm_studio_port=port)
        chat = spawn(env, tmp_path)
        chat.expect("No model is configured yet")
        chat.expect(r"1\. lm_studio/qwen-a  \(LM Studio on 127\.0\.0\.1:\d+\)")
        chat.expect(r"2\. lm_studio/llama-b")
        chat.expect(r"3\. openai/gpt-4\.1-mini  \(OPENAI_API_KEY is set\)")
        chat.expect("Enter for 1")
        chat.send("2\r")
        chat.expect("Saved model: lm_studio/llama-b at http://127.0.0.1:")
        chat.expect("lm_studio/llama-b")  # the greeting names the chosen model
        chat.expect("›")
        chat.send("hi there\r")
        chat.expect("Hello from the local model.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
        assert chat.exitstatus == 0
        posts = [r for r in fake.requests if r["method"] == "POST"]

    assert [r["path"] for r in posts] == ["/v1/chat/completions"]
    assert posts[0]["body"]["model"] == "llama-b"
    assert posts[0]["body"]["messages"][-1] == {"role": "user", "content": "hi there"}
    text = settings.read_text()
    assert text.startswith(COMMENT + "\n")  # the person's own lines are kept
    saved = load_settings()
    assert (saved.model, saved.api_base) == ("lm_studio/llama-b", f"http://127.0.0.1:{port}/v1")
    assert saved.model_discovery.lm_studio_port == port


def test_enter_takes_the_first_choice_and_a_typed_model_string_is_taken_as_it_is(
    agent_home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    discovery_settings(agent_home)  # nothing local looked for: only the key is offered
    chat = spawn(env, tmp_path)
    chat.expect(r"1\. openai/gpt-4\.1-mini  \(OPENAI_API_KEY is set\)")
    chat.expect("Enter for 1")
    chat.send("7\r")
    chat.expect("Not one of the choices")
    chat.send("anthropic/claude-sonnet-4-5\r")
    chat.expect("Saved model: anthropic/claude-sonnet-4-5 in ")
    chat.expect("›")
    chat.send("/exit\r")
    chat.expect(pexpect.EOF)
    chat.close()
    assert chat.exitstatus == 0
    saved = load_settings()
    assert (saved.model, saved.api_base) == ("anthropic/claude-sonnet-4-5", None)


def test_leaving_the_chooser_saves_nothing_and_exits_2(
    agent_home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    settings = discovery_settings(agent_home)
    before = settings.read_text()
    chat = spawn(env, tmp_path)
    chat.expect("Enter for 1")
    chat.sendcontrol("c")
    chat.expect("no model chosen")
    chat.expect(pexpect.EOF)
    chat.close()
    assert chat.exitstatus == 2
    assert settings.read_text() == before


def test_without_a_terminal_the_first_run_keeps_its_message_and_names_what_it_found(
    agent_home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    with FakeOpenAI(models=["qwen-a"]) as fake:
        port = fake.port
        settings = discovery_settings(agent_home, COMMENT, lm_studio_port=port)
        before = settings.read_text()
        completed = subprocess.run(
            [AGENT], env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True,
            text=True, timeout=TIMEOUT,
        )  # fmt: skip

    assert completed.returncode == 2
    assert completed.stdout == ""
    assert completed.stderr.startswith("agent: no model is configured. Choose one of:\n")
    assert completed.stderr.endswith(
        "Found here:\n"
        f"  LM Studio on 127.0.0.1:{port}: 1 model, e.g. agent --model "
        f"lm_studio/qwen-a --api-base http://127.0.0.1:{port}/v1\n"
        "  OPENAI_API_KEY is set: agent --model openai/gpt-4.1-mini\n"
    )
    assert "sk-test-first-run" not in completed.stderr
    assert settings.read_text() == before


def test_without_a_terminal_and_nothing_found_the_message_says_where_it_looked(
    agent_home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    env.pop("OPENAI_API_KEY")
    with local_server(Listing(paths=())) as port:  # answers, but 404 for every list
        discovery_settings(agent_home, ollama_port=port)
        completed = subprocess.run(
            [AGENT], env=env, cwd=tmp_path, stdin=subprocess.DEVNULL, capture_output=True,
            text=True, timeout=TIMEOUT,
        )  # fmt: skip
    assert completed.returncode == 2
    assert completed.stderr.endswith(
        f"Found here: no model server on 127.0.0.1 (Ollama :{port}) and no provider key in "
        "the environment.\n"
    )


def test_an_ollama_servers_models_become_ollama_chat_choices_at_its_address() -> None:
    with local_server(Listing(body=ollama_tags("llama3.1:8b", "qwen2.5:7b"))) as port:
        found = find_choices(ModelDiscovery(port, 0, 0, 0, 5.0))
    assert [(c.model, c.api_base, c.where) for c in found.choices if c.api_base] == [
        ("ollama_chat/llama3.1:8b", f"http://127.0.0.1:{port}", f"Ollama on 127.0.0.1:{port}"),
        ("ollama_chat/qwen2.5:7b", f"http://127.0.0.1:{port}", f"Ollama on 127.0.0.1:{port}"),
    ]


def test_model_without_an_argument_lists_the_choices_and_a_number_switches_to_one(
    agent_home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    turns = [{"text": "First answer."}, {"text": "Answer from qwen."}]
    with FakeOpenAI(turns, models=["qwen-a"]) as fake:
        discovery_settings(agent_home, lm_studio_port=fake.port)
        chat = spawn(env, tmp_path, "--model", "openai/fake-model", "--api-base", fake.base_url)
        chat.expect("›")
        chat.send("one\r")
        chat.expect("First answer.")
        chat.expect("›")
        chat.send("/model\r")
        chat.expect("Model: openai/fake-model")
        chat.expect(r"1\. lm_studio/qwen-a  \(LM Studio on 127\.0\.0\.1:\d+\)")
        chat.expect(r"2\. openai/gpt-4\.1-mini  \(OPENAI_API_KEY is set\)")
        chat.expect("›")
        chat.send("/model 1\r")
        chat.expect(
            "Model changed from openai/fake-model to lm_studio/qwen-a at "
            f"http://127.0.0.1:{fake.port}/v1"
        )
        chat.expect("›")
        chat.send("two\r")
        chat.expect("Answer from qwen.")
        chat.expect("›")
        chat.send("/model 9\r")
        chat.expect("no choice 9: /model lists them")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
        posts = [r for r in fake.requests if r["method"] == "POST"]
    assert [p["body"]["model"] for p in posts] == ["fake-model", "qwen-a"]
    assert load_settings().model is None  # /model switches this session only


def test_a_typed_model_of_a_local_servers_kind_is_served_at_that_server() -> None:
    with local_server(Listing(body=ollama_tags("llama3.1:8b"))) as port:
        found = find_choices(ModelDiscovery(port, 0, 0, 0, 5.0))
    assert typed_choice("ollama_chat/not-listed:1b", found) == ModelChoice(
        "ollama_chat/not-listed:1b", f"http://127.0.0.1:{port}", f"Ollama on 127.0.0.1:{port}"
    )
    assert typed_choice("llama3.1:8b", found) == found.choices[0]
    assert typed_choice("mistral/mistral-large-latest", found) == ModelChoice(
        "mistral/mistral-large-latest", None, "typed"
    )
    assert typed_choice("two words", found) is None


def test_the_chooser_refuses_a_name_litellm_cannot_route_and_takes_a_server_of_ones_own(
    agent_home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    discovery_settings(agent_home)  # nothing local looked for: only the key is offered
    with FakeOpenAI([{"text": "Hello from my own server."}]) as fake:
        base = fake.base_url
        chat = spawn(env, tmp_path)
        chat.expect("Enter for 1")
        chat.send("foo\r")
        chat.expect_exact("litellm cannot tell which provider serves 'foo'")
        chat.expect_exact("e.g. openai/foo for an OpenAI-compatible server of your own")
        chat.send(f"openai/fake-model {fake.base_url}\r")
        chat.expect_exact(f"Saved model: openai/fake-model at {fake.base_url} in ")
        chat.expect("›")
        chat.send("hello\r")
        chat.expect("Hello from my own server.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
    assert chat.exitstatus == 0
    saved = load_settings()
    assert (saved.model, saved.api_base) == ("openai/fake-model", base)


def test_model_takes_an_address_after_the_name_and_refuses_a_name_it_cannot_route(
    agent_home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    turns = [{"text": "First answer."}]
    with FakeOpenAI(turns) as first, FakeOpenAI([{"text": "From the second server."}]) as second:
        discovery_settings(agent_home)
        chat = spawn(env, tmp_path, "--model", "openai/fake-model", "--api-base", first.base_url)
        chat.expect("›")
        chat.send("/model foo\r")
        chat.expect_exact("litellm cannot tell which provider serves 'foo'")
        chat.expect("›")
        chat.send("/model openai/other http:/nowhere\r")
        chat.expect_exact("usage: /model NAME [API_BASE]")
        chat.expect("›")
        chat.send(f"/model openai/other {second.base_url}\r")
        chat.expect_exact(
            f"Model changed from openai/fake-model to openai/other at {second.base_url}"
        )
        chat.expect("›")
        chat.send("hello\r")
        chat.expect("From the second server.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
    assert [r for r in first.requests if r["method"] == "POST"] == []
    [post] = [r for r in second.requests if r["method"] == "POST"]
    assert post["body"]["model"] == "other"
    assert load_settings().model is None  # /model switches this session only


def test_a_typed_model_and_address_is_served_there_and_a_bad_address_names_nothing() -> None:
    found = Found()
    assert typed_choice("openai/mine http://127.0.0.1:8080/v1", found) == ModelChoice(
        "openai/mine", "http://127.0.0.1:8080/v1", "given"
    )
    for address in ("ftp://host/v1", "http:/nowhere", "http://user:pw@host/v1", "http://h:x/"):
        assert typed_choice(f"openai/mine {address}", found) is None, address


def test_a_name_typed_while_the_last_one_is_checked_is_kept_and_a_spinner_shows_the_check(
    agent_home: Path, tmp_path: Path, env: dict[str, str]
) -> None:
    discovery_settings(agent_home)
    with FakeOpenAI([{"text": "Hello from my own server."}]) as fake:
        base = fake.base_url
        chat = spawn(env, tmp_path)
        chat.expect("Enter for 1")
        chat.send("foo\r")
        chat.expect_exact("checking foo")  # the spinner, while litellm loads to judge it
        chat.send(f"openai/fake-model {fake.base_url}")  # typed on while it checks
        chat.expect_exact("litellm cannot tell which provider serves 'foo'")
        chat.expect_exact("Model (number or name")
        chat.send("\r")  # the name typed meanwhile is in the prompt: Enter sends it
        chat.expect_exact(f"Saved model: openai/fake-model at {fake.base_url} in ", timeout=60)
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
    assert chat.exitstatus == 0
    saved = load_settings()
    assert (saved.model, saved.api_base) == ("openai/fake-model", base)
