"""settings.yaml: shipped defaults, overridden key by key, strict about typos."""

from __future__ import annotations

from dataclasses import is_dataclass, replace
from pathlib import Path

import pytest

from agent.errors import SettingsError
from agent.settings import (
    InstructionsSettings,
    LoopLimits,
    McpLimits,
    ModelDiscovery,
    ModelLimits,
    SessionsSettings,
    Settings,
    SkillsSettings,
    _read_mapping,
    _validate,
    default_settings_path,
    load_settings,
    shipped_settings,
    user_settings_path,
)

DEFAULTS = Settings(
    model=None,
    api_base=None,
    api_key_env=None,
    model_discovery=ModelDiscovery(
        ollama_port=11434,
        lm_studio_port=1234,
        llama_cpp_port=8080,
        vllm_port=8000,
        timeout_seconds=0.8,
    ),
    model_limits=ModelLimits(
        chunk_timeout_seconds=60,
        request_timeout_seconds=600,
        retries=2,
        context_window_tokens=None,
    ),
    mcp=McpLimits(startup_timeout_seconds=30, tool_timeout_seconds=120, output_limit_chars=100_000),
    loop=LoopLimits(max_tool_rounds=25),
    skills=SkillsSettings(catalog_share=0.05),
    sessions=SessionsSettings(compact_at_share=0.8, keep_recent_turns=2),
    instructions=InstructionsSettings(budget_bytes=32 * 1024),
)


def test_without_a_user_file_the_shipped_defaults_load() -> None:
    assert load_settings() == DEFAULTS


def test_the_user_file_lives_in_the_config_home(agent_home: Path) -> None:
    assert user_settings_path() == agent_home / "settings.yaml"
    assert default_settings_path().name == "settings.yaml"
    assert default_settings_path().parent.name == "config"


def test_a_user_file_overrides_only_the_keys_it_names(agent_home: Path) -> None:
    agent_home.mkdir()
    (agent_home / "settings.yaml").write_text(
        "model: openai/gpt-4.1-mini\n"
        "model_limits:\n  retries: 5\n"
        "mcp:\n  tool_timeout_seconds: 2.5\n",
        encoding="utf-8",
    )

    assert load_settings() == replace(
        DEFAULTS,
        model="openai/gpt-4.1-mini",
        model_limits=replace(DEFAULTS.model_limits, retries=5),
        mcp=replace(DEFAULTS.mcp, tool_timeout_seconds=2.5),
    )


def test_an_empty_user_file_means_the_defaults(agent_home: Path) -> None:
    agent_home.mkdir()
    (agent_home / "settings.yaml").write_text("# nothing changed yet\n", encoding="utf-8")

    assert load_settings() == DEFAULTS


def test_a_user_file_can_be_given_explicitly(tmp_path: Path) -> None:
    path = tmp_path / "other.yaml"
    path.write_text("loop:\n  max_tool_rounds: 3\n", encoding="utf-8")

    assert load_settings(path).loop == LoopLimits(max_tool_rounds=3)


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "modle: openai/gpt-4.1\n",
            "modle: unknown key (known keys here: api_base, api_key_env, commands, instructions, "
            "loop, mcp, model, model_discovery, model_limits, sessions, skills)",
        ),
        (
            "commands:\n  unsandboxed: yes\n",
            "commands.unsandboxed: Input should be 'ask' or 'deny'",
        ),
        (
            "mcp:\n  startup_timeout: 5\n",
            "mcp.startup_timeout: unknown key (known keys here: defer_tools_at_share, "
            "output_limit_chars, startup_timeout_seconds, tool_timeout_seconds)",
        ),
        ("mcp: 5\n", "mcp: expected a mapping of settings"),
        (
            'model_limits:\n  retries: "3"\n',
            "model_limits.retries: Input should be a valid integer",
        ),
        (
            "loop:\n  max_tool_rounds: true\n",
            "loop.max_tool_rounds: Input should be a valid integer",
        ),
        (
            "model_limits:\n  retries: -1\n",
            "model_limits.retries: Input should be greater than or equal to 0",
        ),
        (
            "mcp:\n  startup_timeout_seconds: 0\n",
            "mcp.startup_timeout_seconds: Input should be greater than 0",
        ),
        ("model: 5\n", "model: Input should be a valid string"),
        ("- model\n", "settings must be a mapping of keys to values"),
        (
            "commands:\n  visible_read_only: [~/.gitconfig, .cargo]\n",
            "commands.visible_read_only.1: Value error, '.cargo': an entry must be a path from / "
            "or from your home (~/...), not relative or another user's (~name)",
        ),
        (
            "commands:\n  visible_read_only: ['~/']\n",
            "commands.visible_read_only.0: Value error, '~/': that is the whole home, which the "
            "sandbox hides; name the folders or files in it a command needs (~/.cargo/registry)",
        ),
        (
            "commands:\n  visible_read_only: ['  ']\n",
            "commands.visible_read_only.0: Value error, '  ': an entry must name a folder or "
            "file; this one is empty",
        ),
        (
            "commands:\n  visible_read_only: ~/.gitconfig\n",
            "commands.visible_read_only: Input should be a valid tuple (a list of paths, such as "
            "[~/.cargo/registry, ~/.gitconfig])",
        ),
    ],
)
def test_a_bad_key_or_value_is_an_error_naming_the_file_and_the_key(
    agent_home: Path, content: str, message: str
) -> None:
    agent_home.mkdir()
    path = agent_home / "settings.yaml"
    path.write_text(content, encoding="utf-8")

    with pytest.raises(SettingsError) as caught:
        load_settings()

    assert str(caught.value) == f"{path}: {message}"


def test_every_mistyped_value_is_reported(agent_home: Path) -> None:
    agent_home.mkdir()
    path = agent_home / "settings.yaml"
    path.write_text("model_limits:\n  retries: x\nloop:\n  max_tool_rounds: 1.5\n", "utf-8")

    with pytest.raises(SettingsError) as caught:
        load_settings()

    assert str(caught.value).splitlines() == [
        f"{path}: model_limits.retries: Input should be a valid integer",
        f"{path}: loop.max_tool_rounds: Input should be a valid integer",
    ]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (
            "model: [unclosed\n",
            "not valid YAML at line 2 column 1: expected ',' or ']', but got '<stream end>' "
            "(while parsing a flow sequence at line 1 column 8)",
        ),
        (
            "model: x\n  mcp: y: z\n",
            "not valid YAML at line 2 column 6: mapping values are not allowed here",
        ),
        (
            "model: x\n\tloop: 1\n",
            "not valid YAML at line 2 column 1: found character '\\t' that cannot start any token",
        ),
        (
            "model: x\x00\n",
            "not valid YAML at character 9: special characters are not allowed (#x0000)",
        ),
    ],
)
def test_a_file_that_is_not_yaml_is_one_line_naming_the_file_and_the_place(
    agent_home: Path, content: str, message: str
) -> None:
    agent_home.mkdir()
    path = agent_home / "settings.yaml"
    path.write_text(content, encoding="utf-8")

    with pytest.raises(SettingsError) as caught:
        load_settings()

    assert str(caught.value) == f"{path}: {message}"


def test_the_shipped_defaults_build_without_pydantic_exactly_as_pydantic_validates_them() -> None:
    # load_settings skips pydantic when there is no user file; the result must not differ in
    # any value or type from what validation would give.
    defaults = _read_mapping(default_settings_path())
    fast, checked = shipped_settings(defaults), _validate(defaults, default_settings_path())
    assert fast == checked
    for section in vars(checked):
        ours, theirs = getattr(fast, section), getattr(checked, section)
        assert type(ours) is type(theirs), section
        if is_dataclass(theirs):
            assert {k: type(v) for k, v in vars(ours).items()} == {
                k: type(v) for k, v in vars(theirs).items()
            }, section


def test_a_saved_api_base_serves_only_models_of_the_saved_models_provider() -> None:
    from agent.settings import EarlySettings, inherited_api_base

    saved = EarlySettings("lm_studio/local", "http://127.0.0.1:1234/v1")
    assert inherited_api_base(saved, "lm_studio/other") == "http://127.0.0.1:1234/v1"
    assert inherited_api_base(saved, "openai/gpt-4.1-mini") is None
    assert inherited_api_base(saved, "gpt-4.1-mini") is None  # no prefix: an OpenAI model
    openai = EarlySettings("gpt-4o", "http://127.0.0.1:4000")
    assert inherited_api_base(openai, "openai/gpt-4.1-mini") == "http://127.0.0.1:4000"
    assert inherited_api_base(openai, "o3-mini") == "http://127.0.0.1:4000"
    assert inherited_api_base(openai, "claude-sonnet-4-5") is None  # litellm: Anthropic's
    proxy = EarlySettings(None, "http://proxy.example/v1")  # written alone: every model's
    assert inherited_api_base(proxy, "anthropic/claude-sonnet-4-5") == "http://proxy.example/v1"


def test_a_models_context_window_is_unknown_until_the_person_sets_it(agent_home: Path) -> None:
    assert load_settings().model_limits.context_window_tokens is None
    agent_home.mkdir()
    (agent_home / "settings.yaml").write_text(
        "model_limits:\n  context_window_tokens: 2048\n", encoding="utf-8"
    )
    assert load_settings().model_limits.context_window_tokens == 2048


@pytest.mark.parametrize(
    ("value", "why"), [("0", "be greater than 0"), ("8k", "be a valid integer")]
)
def test_a_context_window_that_is_not_a_count_of_tokens_is_refused_naming_the_field(
    agent_home: Path, value: str, why: str
) -> None:
    agent_home.mkdir()
    path = agent_home / "settings.yaml"
    path.write_text(f"model_limits:\n  context_window_tokens: {value}\n", encoding="utf-8")

    with pytest.raises(SettingsError) as caught:
        load_settings()

    assert str(caught.value) == (
        f"{path}: model_limits.context_window_tokens: Input should {why} (the model's context "
        "window in tokens, a whole number such as 8192; null when litellm's table should say)"
    )
