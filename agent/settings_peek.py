"""The few settings the chat needs before its prompt is drawn, read without pydantic.

Validating settings.yaml with pydantic costs over 100 ms at start-up (most of it pydantic's
one-time set-up), so the chat reads just `model` and `api_base` here, draws the prompt, and
validates the whole file right after (agent.settings.load_settings).
"""

from __future__ import annotations

from dataclasses import dataclass
from pathlib import Path

from agent.home import config_home

SETTINGS_FILE_NAME = "settings.yaml"


@dataclass(frozen=True)
class EarlySettings:
    """What the chat needs before the prompt: which model, and where."""

    model: str | None
    api_base: str | None


def peek_settings(path: Path | None = None) -> EarlySettings:
    """`model` and `api_base` from the person's settings.yaml (the defaults have neither)."""
    import yaml

    path = path or config_home() / SETTINGS_FILE_NAME
    try:
        data = yaml.safe_load(path.read_text(encoding="utf-8"))
    except FileNotFoundError:
        return EarlySettings(None, None)
    except (OSError, UnicodeDecodeError, yaml.YAMLError, RecursionError):
        return EarlySettings(None, None)  # the full load that follows reports it properly
    if not isinstance(data, dict):
        return EarlySettings(None, None)
    model, api_base = data.get("model"), data.get("api_base")
    return EarlySettings(
        model if isinstance(model, str) and model.strip() else None,
        api_base if isinstance(api_base, str) and api_base.strip() else None,
    )
