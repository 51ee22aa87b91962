"""Where the file tools may go: inside the project, never into agent's own folders, never to a
credential file. Shared by the reading tools (read_file, list_files) and the writing ones
(write_file, edit_file), so both keep the same fence.

Every path is resolved (symlinks included, a linked folder on the way too) before it is
judged, so a link inside the project that points out of it is "outside". Credential names
are judged as written (a link named `.env` elsewhere) and as resolved (a link to ~/.ssh).
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from agent.tools.credential_files import credential_rule, refusal

OWN_FOLDER_REFUSAL = (
    "is inside agent's own settings and data folder, which the file tools never read"
)


def within(path: Path, folder: Path) -> bool:
    return path == folder or folder in path.parents


def inside_project(
    project: Path, relative: str, private: Sequence[Path], verb: str = "read"
) -> Path:
    """The resolved path, or ValueError when it leaves the project or enters agent's folders
    (`verb`: what the tool would do there, for the message)."""
    candidate = (project / relative).resolve()
    if not within(candidate, project):
        raise ValueError(f"{relative!r} is outside the project directory")
    if any(within(candidate, folder) for folder in private):
        raise ValueError(
            f"{relative!r} {OWN_FOLDER_REFUSAL.replace('never read', f'never {verb}')}"
        )
    # As written (a link named `.ssh` elsewhere) and as resolved (a link to ~/.ssh, or the
    # project itself inside a credential folder).
    rule = credential_rule(Path(os.path.normpath(relative)).parts) or credential_rule(
        candidate.parts
    )
    if rule is not None:
        raise ValueError(refusal(relative, rule, verb))
    return candidate
