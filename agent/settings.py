"""settings.yaml -> a validated Settings object, and a cheap peek for start-up.

The shipped config/settings.yaml holds every default; the person's settings.yaml in the config
home overrides it key by key. Unknown or mistyped keys are errors naming the file and the key.

The settings are plain frozen dataclasses; pydantic validates them but is imported only when a
file is loaded: its set-up costs over 100 ms, and the chat draws its prompt first, reading just
`model` and `api_base` with `peek_settings`.
"""

from __future__ import annotations

import json
import stat
from dataclasses import dataclass
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any, ClassVar, Literal

import yaml

from agent.depth import MAX_DEPTH, too_deep
from agent.errors import SettingsError
from agent.home import atomic_write, config_home, file_lock
from agent.resources import config_dir
from agent.text import sanitize_line

if TYPE_CHECKING:
    from pydantic import AfterValidator, Field, TypeAdapter

SETTINGS_FILE_NAME = "settings.yaml"

# The annotations below name pydantic's `Field`; they stay strings (postponed evaluation) until
# `_adapter` imports pydantic and resolves them. strict (per field): "30" is not silently a
# number; forbid: a typo is an error, not a default.
_CONFIG: dict[str, Any] = {"extra": "forbid"}


@dataclass(frozen=True)
class ModelLimits:
    """Timeouts, retries and the context window assumed for the model."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _CONFIG
    chunk_timeout_seconds: Annotated[float, Field(gt=0, strict=True)]
    request_timeout_seconds: Annotated[float, Field(gt=0, strict=True)]
    retries: Annotated[int, Field(ge=0, le=10, strict=True)]
    # None: litellm's table says, or nobody knows (then no share of it is shown).
    context_window_tokens: Annotated[int | None, Field(gt=0, strict=True)]


@dataclass(frozen=True)
class ModelDiscovery:
    """Local model server ports (0: not looked for) and how long looking may take."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _CONFIG
    ollama_port: Annotated[int, Field(ge=0, le=65535, strict=True)]
    lm_studio_port: Annotated[int, Field(ge=0, le=65535, strict=True)]
    llama_cpp_port: Annotated[int, Field(ge=0, le=65535, strict=True)]
    vllm_port: Annotated[int, Field(ge=0, le=65535, strict=True)]
    timeout_seconds: Annotated[float, Field(gt=0, le=10, strict=True)]


@dataclass(frozen=True)
class McpLimits:
    """Timeouts and the output limit for MCP servers, and when their tools are deferred."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _CONFIG
    startup_timeout_seconds: Annotated[float, Field(gt=0, strict=True)]
    tool_timeout_seconds: Annotated[float, Field(gt=0, strict=True)]
    output_limit_chars: Annotated[int, Field(gt=0, strict=True)]
    # Past this share of the model's window, the tools of "auto" servers wait behind the
    # tool search (agent/tools/deferral.py).
    defer_tools_at_share: Annotated[float, Field(ge=0, le=1, strict=True)] = 0.1


@dataclass(frozen=True)
class LoopLimits:
    """How many tool rounds one turn may take."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _CONFIG
    max_tool_rounds: Annotated[int, Field(gt=0, strict=True)]


@dataclass(frozen=True)
class SkillsSettings:
    """The share of the context window the skills catalog may use."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _CONFIG
    catalog_share: Annotated[float, Field(gt=0, le=1, strict=True)]


@dataclass(frozen=True)
class InstructionsSettings:
    """How many bytes of instruction files (AGENTS.md and the like) the prompt may hold."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _CONFIG
    budget_bytes: Annotated[int, Field(ge=0, le=1024 * 1024, strict=True)]


@dataclass(frozen=True)
class SessionsSettings:
    """When a session is compacted and what it keeps."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _CONFIG
    compact_at_share: Annotated[float, Field(gt=0, le=1, strict=True)]
    keep_recent_turns: Annotated[int, Field(ge=0, strict=True)]


@dataclass(frozen=True)
class CommandsSettings:
    """How run_command runs programs: without a sandbox at all, for how long, how much output."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _CONFIG
    # Where the sandbox cannot be set up: "ask" (the approval says so plainly) or "deny".
    unsandboxed: Literal["ask", "deny"] = "ask"
    timeout_seconds: Annotated[float, Field(gt=0, le=3600, strict=True)] = 120.0
    max_timeout_seconds: Annotated[float, Field(gt=0, le=86400, strict=True)] = 600.0
    output_limit_bytes: Annotated[int, Field(ge=1024, le=10 * 1024 * 1024, strict=True)] = 50_000
    # Folders and files of the home a command may read (the sandbox hides the rest of the
    # home): `~/.cargo/registry`, `~/.gitconfig`. Each a path from / or from ~/; whether one
    # is, or holds, a place the sandbox hides is judged at each command (agent.tools.sandbox_home).
    visible_read_only: Annotated[
        tuple[Annotated[str, AfterValidator(checked_visible_entry)], ...], Field(max_length=100)
    ] = ()

    def __post_init__(self) -> None:
        # The shipped defaults are built without pydantic, from YAML's list (shipped_settings).
        object.__setattr__(self, "visible_read_only", tuple(self.visible_read_only))


def checked_visible_entry(entry: str) -> str:
    """One entry of commands.visible_read_only as written, or ValueError naming it and what to
    write instead; `~` is expanded where it is used, with the home of that moment."""
    shown = repr(entry[:200])
    if not entry.strip():
        raise ValueError(f"{shown}: an entry must name a folder or file; this one is empty")
    if "\0" in entry:
        raise ValueError(f"{shown}: an entry cannot hold a NUL character")
    if entry == "~" or entry.rstrip("/") == "~":
        raise ValueError(
            f"{shown}: that is the whole home, which the sandbox hides; name the folders or "
            "files in it a command needs (~/.cargo/registry)"
        )
    if not (entry.startswith("/") or entry.startswith("~/")):
        raise ValueError(
            f"{shown}: an entry must be a path from / or from your home (~/...), not relative "
            "or another user's (~name)"
        )
    return entry


_DEFAULT_COMMANDS = CommandsSettings()


@dataclass(frozen=True)
class Settings:
    """The whole settings file, validated."""

    __pydantic_config__: ClassVar[dict[str, Any]] = _CONFIG
    model: Annotated[str | None, Field(strict=True)]
    api_base: Annotated[str | None, Field(strict=True)]
    api_key_env: Annotated[str | None, Field(strict=True)]
    model_discovery: ModelDiscovery
    model_limits: ModelLimits
    mcp: McpLimits
    loop: LoopLimits
    skills: SkillsSettings
    sessions: SessionsSettings
    instructions: InstructionsSettings
    commands: CommandsSettings = _DEFAULT_COMMANDS


@dataclass(frozen=True)
class EarlySettings:
    """What the chat needs before the prompt: which model, and where."""

    model: str | None
    api_base: str | None


# Model names litellm sends to OpenAI without a prefix. It sends other names without one by
# its own tables (`claude-sonnet-4-5` to Anthropic), which are not loaded this early.
_OPENAI_NAMES = ("gpt-", "chatgpt-", "o1", "o3", "o4", "ft:gpt-", "text-", "davinci", "babbage")


def model_provider(model: str) -> str:
    """litellm's provider of a model string: its prefix; without one, "openai" for an OpenAI
    name, else the name itself (a provider only litellm's tables know: it shares with none)."""
    if "/" in model:
        return model.split("/", 1)[0]
    return "openai" if model.startswith(_OPENAI_NAMES) else model


def inherited_api_base(saved: EarlySettings | Settings, model: str) -> str | None:
    """The saved `api_base` when it serves `model`: it belongs to the saved model's provider.

    The first run saves a local server's address with its model; a model of another provider
    named later (--model, AGENT_MODEL) goes to its own provider, or its key (OPENAI_API_KEY,
    ANTHROPIC_API_KEY) would be sent to whatever listens there. An `api_base` saved without
    a model serves every model: the person wrote it so (a proxy, say). /model keeps the
    same rule for the address of the chat's current model.
    """
    if saved.api_base is None or saved.model is None:
        return saved.api_base
    return saved.api_base if model_provider(saved.model) == model_provider(model) else None


def default_settings_path() -> Path:
    """The shipped settings.yaml that holds every default."""
    return config_dir() / SETTINGS_FILE_NAME


def user_settings_path() -> Path:
    """The person's settings.yaml in the config home (it may not exist)."""
    return config_home() / SETTINGS_FILE_NAME


def load_settings(user_path: Path | None = None) -> Settings:
    """Load defaults, overlay the person's file when it exists, and validate the result."""
    defaults = _read_mapping(default_settings_path())
    path = user_settings_path() if user_path is None else user_path
    if not path.exists():
        return shipped_settings(defaults)
    overrides = _read_mapping(path)
    _reject_unknown_keys(overrides, defaults, path, prefix="")
    return _validate(_merge(defaults, overrides), path)


def peek_settings(path: Path | None = None) -> EarlySettings:
    """`model` and `api_base` from the person's settings.yaml (the defaults have neither)."""
    path = path or user_settings_path()
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return EarlySettings(None, None)  # the full load that follows reports it properly
    if not isinstance(data, dict):
        return EarlySettings(None, None)
    model, api_base = data.get("model"), data.get("api_base")
    return EarlySettings(
        model if isinstance(model, str) and model.strip() else None,
        api_base if isinstance(api_base, str) and api_base.strip() else None,
    )


def peek_model_discovery(path: Path | None = None) -> ModelDiscovery:
    """The `model_discovery` settings without pydantic (the first run looks for a model while
    the full load runs); a value that is not of the right kind keeps its default here, and
    the full load reports it."""
    defaults = dict(_read_mapping(default_settings_path())["model_discovery"])
    try:
        data = yaml.safe_load((path or user_settings_path()).read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        data = None
    mine = data.get("model_discovery") if isinstance(data, dict) else None
    for key, value in mine.items() if isinstance(mine, dict) else ():
        default = defaults.get(key)
        if type(default) is float and type(value) is int:  # as pydantic's strict float takes
            value = float(value)
        if default is not None and type(value) is type(default):  # bool is not an int here
            defaults[key] = value
    return ModelDiscovery(**defaults)


def save_model_choice(model: str, api_base: str | None, path: Path | None = None) -> Path:
    """Write `model` and `api_base` into the person's settings.yaml, all or nothing, keeping
    every other line (comments included) as it was; returns the file's path."""
    path = path or user_settings_path()
    with file_lock(path):
        exists = path.exists()
        old = _read_mapping(path) if exists else {}
        text = path.read_text(encoding="utf-8") if exists else ""
        values: dict[str, str | None] = {"model": model, "api_base": api_base}
        new_text = _with_top_level_values(text, values, path)
        if not _reads_as(new_text, {**old, **values}):  # the edit must change only these
            raise SettingsError(
                f"{path}: could not write model and api_base in place; edit the file "
                f"(model: {model})"
            )
        mode = stat.S_IMODE(path.stat().st_mode) if exists else 0o600
        atomic_write(path, new_text.encode("utf-8"), mode)
    return path


def _with_top_level_values(text: str, values: dict[str, str | None], path: Path) -> str:
    """`text` with each top-level key's value replaced (or the key appended), by position:
    yaml's node marks say where each value is, so nothing else in the file moves."""
    try:
        root = yaml.compose(text)
    except (yaml.YAMLError, RecursionError):
        raise SettingsError(f"{path}: not valid YAML; fix it, then choose a model again") from None
    if root is not None and not isinstance(root, yaml.MappingNode):
        raise SettingsError(f"{path}: settings must be a mapping of keys to values")
    pending = dict(values)
    edits: list[tuple[int, int, str]] = []
    for key, value in root.value if root is not None else ():
        if isinstance(key, yaml.ScalarNode) and key.value in pending:
            scalar = _yaml_scalar(pending.pop(key.value))
            start, end = value.start_mark.index, value.end_mark.index
            if start == end:  # `model:` with nothing after it: write after the colon
                start = end = text.index(":", key.end_mark.index) + 1
                scalar = f" {scalar}"
            elif text[start:end].endswith("\n"):  # a block scalar owns its line break
                scalar += "\n"
            edits.append((start, end, scalar))
    for start, end, scalar in sorted(edits, reverse=True):
        text = text[:start] + scalar + text[end:]
    if pending and text and not text.endswith("\n"):
        text += "\n"
    return text + "".join(f"{key}: {_yaml_scalar(value)}\n" for key, value in pending.items())


def _reads_as(text: str, expected: dict[str, Any]) -> bool:
    try:
        return bool(yaml.safe_load(text) == expected)
    except (yaml.YAMLError, RecursionError):
        return False


def _yaml_scalar(value: str | None) -> str:
    # JSON's double-quoted string is also YAML's: every character escaped the same way.
    return "null" if value is None else json.dumps(value, ensure_ascii=False)


def _read_mapping(path: Path) -> dict[str, Any]:
    try:
        text = path.read_text(encoding="utf-8")
    except OSError as error:
        raise SettingsError(f"{path}: cannot read settings: {error.strerror}") from error
    except UnicodeDecodeError as error:
        raise SettingsError(f"{path}: settings must be UTF-8 text") from error
    too_deep_message = (
        f"{path}: nested too deeply to read (more than {MAX_DEPTH} levels); settings need "
        "only a few: check the file"
    )
    try:
        data = yaml.safe_load(text)
    except yaml.YAMLError as error:
        raise SettingsError(f"{path}: not valid YAML{_yaml_problem(error)}") from None
    except RecursionError:  # PyYAML's composer recurses once per level
        raise SettingsError(too_deep_message) from None
    if too_deep(data):
        raise SettingsError(too_deep_message)
    if data is None:
        return {}
    if not isinstance(data, dict):
        raise SettingsError(f"{path}: settings must be a mapping of keys to values")
    return data


def _yaml_problem(error: yaml.YAMLError) -> str:
    """One line saying where and what, instead of yaml's multi-line `in "<unicode string>"`."""
    if isinstance(error, yaml.MarkedYAMLError) and error.problem_mark is not None:
        mark = error.problem_mark
        text = f" at line {mark.line + 1} column {mark.column + 1}: {error.problem}"
        context = error.context_mark
        if error.context and context is not None and context.line != mark.line:
            text += f" ({error.context} at line {context.line + 1} column {context.column + 1})"
        return text
    if isinstance(error, yaml.reader.ReaderError):
        return f" at character {error.position + 1}: {error.reason} (#x{error.character:04x})"
    return f": {' '.join(str(error).split())}"


def _reject_unknown_keys(
    overrides: dict[str, Any], defaults: dict[str, Any], path: Path, prefix: str
) -> None:
    # Checked against the defaults file before pydantic, so the message can list the keys
    # that do exist at that level.
    for key, value in overrides.items():
        dotted = sanitize_line(f"{prefix}{key}")
        if key not in defaults:
            known = ", ".join(sorted(str(k) for k in defaults))
            raise SettingsError(f"{path}: {dotted}: unknown key (known keys here: {known})")
        default = defaults[key]
        if isinstance(default, dict):
            if not isinstance(value, dict):
                raise SettingsError(f"{path}: {dotted}: expected a mapping of settings")
            _reject_unknown_keys(value, default, path, prefix=f"{dotted}.")


def _merge(base: dict[str, Any], overrides: dict[str, Any]) -> dict[str, Any]:
    merged = dict(base)
    for key, value in overrides.items():
        if isinstance(value, dict) and isinstance(base.get(key), dict):
            merged[key] = _merge(base[key], value)
        else:
            merged[key] = value
    return merged


_SECTIONS: dict[str, type] = {
    "model_discovery": ModelDiscovery,
    "model_limits": ModelLimits,
    "mcp": McpLimits,
    "loop": LoopLimits,
    "skills": SkillsSettings,
    "sessions": SessionsSettings,
    "instructions": InstructionsSettings,
    "commands": CommandsSettings,
}


def shipped_settings(defaults: dict[str, Any]) -> Settings:
    """The shipped defaults as Settings, without pydantic (its set-up costs about 40 ms of a
    one-shot run). They are our own file; a test checks this equals the validated result."""
    return Settings(
        **{
            key: _SECTIONS[key](**value) if key in _SECTIONS else value
            for key, value in defaults.items()
        }
    )


@cache
def _adapter() -> TypeAdapter[Settings]:
    # Field is unused here by name: pydantic resolves the dataclasses' string annotations in
    # this frame's namespace (TypeAdapter's documented parent-frame lookup).
    from pydantic import AfterValidator, Field, TypeAdapter  # noqa: F401

    return TypeAdapter(Settings)


# What a field wants, where pydantic's words alone leave the person guessing.
_HINTS = {
    "model_limits.context_window_tokens": (
        " (the model's context window in tokens, a whole number such as 8192; null when "
        "litellm's table should say)"
    ),
    "commands.visible_read_only": " (a list of paths, such as [~/.cargo/registry, ~/.gitconfig])",
}


def _validate(data: dict[str, Any], path: Path) -> Settings:
    from pydantic import ValidationError

    try:
        return _adapter().validate_python(data)
    except ValidationError as error:
        lines = []
        for item in error.errors():
            # One line each: a key or value with a line break must not print as our own line.
            where = sanitize_line(".".join(str(part) for part in item["loc"]))
            hint = _HINTS.get(where, "")
            lines.append(f"{path}: {where}: {sanitize_line(item['msg'])}{hint}")
        raise SettingsError("\n".join(lines)) from None
