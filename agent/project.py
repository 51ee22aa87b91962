"""The project a session works in: the git root of the working directory, else the directory."""

from __future__ import annotations

from pathlib import Path


def find_project_dir(start: Path | None = None) -> Path:
    """The nearest ancestor (or `start` itself) holding `.git`, else `start`."""
    here = (start or Path.cwd()).resolve()
    for candidate in (here, *here.parents):
        if (candidate / ".git").exists():
            return candidate
    return here
