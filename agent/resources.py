"""Files shipped with the app: default settings, example documents, bundled skills.

In a wheel they sit in `agent/_bundled/`; in a source checkout they are the repo's top-level
`config/` and `skills/` folders (one copy, so the defaults cannot drift).
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE_DIR = Path(__file__).resolve().parent


def _bundled(name: str) -> Path:
    installed = _PACKAGE_DIR / "_bundled" / name
    if installed.is_dir():
        return installed
    return _PACKAGE_DIR.parent / name


def config_dir() -> Path:
    """The folder holding the default settings.yaml and example MCP documents."""
    return _bundled("config")


def bundled_skills_dir() -> Path:
    """The folder of skills that ship with the app."""
    return _bundled("skills")
