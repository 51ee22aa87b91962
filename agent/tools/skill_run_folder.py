"""A skill's folder as run_command runs in it: the folder pinned when the skill was found
(agent.tools.pinned_folder), never whatever its name leads to by the time of the run.

The preview checks the pinned folder is still the one its path opens and that it neither is,
lies in, nor holds a place the sandbox hides (bound back over the fence, such a folder would
show what the approval says is hidden); the folder the command starts in is reached below it
without following a link. The run checks again (the approval may have taken minutes) and hands
bubblewrap the very descriptor it checked (`--ro-bind-fd`), so a swap between the check and
the mount cannot change what is mounted.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from agent.tools.base import CallRefusedError
from agent.tools.containment import within
from agent.tools.folder_descent import folder_below, is_link_or_file
from agent.tools.pinned_folder import FolderPin, MovedFolderError, moved_text, opened, pin_folder
from agent.tools.pinned_folder import relative_parts as parts_of

NOTHING_RAN = "nothing ran"


def pinned(name: str, directory: Path, pin: FolderPin | None) -> FolderPin:
    """The skill's pinned folder (pinned now when the caller had none to give)."""
    if pin is not None:
        return pin
    try:
        return pin_folder(directory)
    except OSError as error:
        raise CallRefusedError(
            f"skill {name!r}'s folder {str(directory)!r} cannot be opened "
            f"({error.strerror or error})"
        ) from None


def skill_cwd(name: str, pin: FolderPin, relative: str) -> Path:
    """The folder `relative` names inside the skill's pinned folder, reached without following
    a link; CallRefusedError saying why when it cannot be."""
    parts = parts_of(relative)
    if parts is None:
        raise CallRefusedError(f"cwd {relative!r} is outside the skill's folder")
    try:
        with opened(pin) as root, folder_below(root, parts):
            pass
    except MovedFolderError as error:
        raise CallRefusedError(moved_text(name, pin, str(error), NOTHING_RAN)) from None
    except OSError as error:
        if is_link_or_file(error):
            raise CallRefusedError(
                f"cwd {relative!r} is, or lies under, a link or a file; a command runs only in "
                "the skill's own folders, never through a link"
            ) from None
        raise CallRefusedError(f"cwd {relative!r} is not a folder") from None
    return pin.path.joinpath(*parts)


def hidden_refusal(name: str, pin: FolderPin, hidden: Sequence[Path]) -> str | None:
    """Why the skill's folder cannot be shown to a command: it is, lies in or holds a place the
    sandbox hides (each a real path, as `pin.path` is)."""
    for place in hidden:
        if pin.path == place:
            how = "is"
        elif within(pin.path, place):
            how = "lies in"
        elif within(place, pin.path):
            how = "holds"
        else:
            continue
        return (
            f"skill {name!r}'s folder {pin.path} {how} {place}, which the sandbox hides; "
            f"{NOTHING_RAN}: a command of the skill would show it"
        )
    return None


def checked_descriptor(name: str, pin: FolderPin) -> int:
    """A descriptor of the pinned folder, checked again now, for bubblewrap to mount (the
    caller closes it); CallRefusedError when the folder is not the pinned one any more."""
    try:
        with opened(pin) as fd:
            return os.dup(fd)
    except MovedFolderError as error:
        raise CallRefusedError(moved_text(name, pin, str(error), NOTHING_RAN)) from None
