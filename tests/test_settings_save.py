"""Saving the chosen model into the person's settings.yaml: only `model` and `api_base` change,
every other line (comments included) stays, the file is replaced all or nothing, and a file
that cannot be edited in place is left alone with an error naming it."""

from __future__ import annotations

import stat
from pathlib import Path

import pytest

from agent.errors import SettingsError
from agent.settings import (
    ModelDiscovery,
    load_settings,
    peek_model_discovery,
    save_model_choice,
    user_settings_path,
)

LOCAL = "http://127.0.0.1:1234/v1"


def test_a_first_choice_creates_a_private_settings_file_that_loads(agent_home: Path) -> None:
    path = save_model_choice("lm_studio/qwen:7b", LOCAL)
    assert path == user_settings_path()
    assert path.read_text() == f'model: "lm_studio/qwen:7b"\napi_base: "{LOCAL}"\n'
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert (load_settings().model, load_settings().api_base) == ("lm_studio/qwen:7b", LOCAL)


def test_the_persons_comments_and_other_keys_are_kept_and_old_values_replaced(
    agent_home: Path,
) -> None:
    path = user_settings_path()
    agent_home.mkdir()
    path.write_text(
        "# my settings\n"
        "model: null   # chosen by hand once\n"
        "api_base: http://127.0.0.1:11434\n"
        "\n"
        "loop:\n"
        "  # fewer rounds for me\n"
        "  max_tool_rounds: 3\n"
    )
    path.chmod(0o640)
    save_model_choice("openai/gpt-4.1-mini", None)
    assert path.read_text() == (
        "# my settings\n"
        'model: "openai/gpt-4.1-mini"   # chosen by hand once\n'
        "api_base: null\n"
        "\n"
        "loop:\n"
        "  # fewer rounds for me\n"
        "  max_tool_rounds: 3\n"
    )
    assert stat.S_IMODE(path.stat().st_mode) == 0o640
    assert load_settings().loop.max_tool_rounds == 3


def test_an_empty_value_and_a_block_value_are_replaced_in_place(agent_home: Path) -> None:
    agent_home.mkdir()
    path = user_settings_path()
    path.write_text("model:\napi_base: |\n  http://old\nloop: {max_tool_rounds: 4}\n")
    save_model_choice("ollama_chat/llama3.1", "http://127.0.0.1:11434")
    assert path.read_text() == (
        'model: "ollama_chat/llama3.1"\napi_base: "http://127.0.0.1:11434"\n'
        "loop: {max_tool_rounds: 4}\n"
    )


@pytest.mark.parametrize(
    ("content", "message"),
    [
        ("model: [\n", "not valid YAML"),
        ("{loop: {max_tool_rounds: 3}}\n", "could not write model and api_base in place"),
        ("- a list\n", "settings must be a mapping"),
    ],
)
def test_a_file_that_cannot_be_edited_in_place_is_left_alone_with_an_error_naming_it(
    agent_home: Path, content: str, message: str
) -> None:
    agent_home.mkdir()
    path = user_settings_path()
    path.write_text(content)
    with pytest.raises(SettingsError) as caught:
        save_model_choice("openai/gpt-4.1-mini", None)
    assert str(caught.value).startswith(f"{path}: ")
    assert message in str(caught.value)
    assert path.read_text() == content
    assert sorted(p.name for p in agent_home.iterdir()) == ["settings.yaml", "settings.yaml.lock"]


def test_the_discovery_ports_are_read_without_pydantic_and_bad_values_keep_defaults(
    agent_home: Path,
) -> None:
    agent_home.mkdir()
    user_settings_path().write_text(
        "model_discovery:\n  lm_studio_port: 4321\n  vllm_port: true\n  timeout_seconds: 2\n"
    )
    assert peek_model_discovery() == ModelDiscovery(11434, 4321, 8080, 8000, 2.0)
    user_settings_path().write_text("model_discovery:\n  timeout_seconds: soon\n")
    assert peek_model_discovery() == ModelDiscovery(11434, 1234, 8080, 8000, 0.8)
