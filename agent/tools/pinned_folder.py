"""A folder held by what it was when it was found, not by its name: its real path and identity.

A skill's folder is trusted by what it held when the person decided; its name can lead
elsewhere later (git stores links: a pulled commit, or an approved command writing in the
project, can make `.agents/skills/helper` a link to `/`). So the folder is pinned once, when
found: its real path and (st_dev, st_ino). Every later use opens that real path as a folder,
compares the identity of what opened, and refuses when it differs (MovedFolderError); below
it, every step goes by descriptor without following a link (folder_descent.py). A pinned
folder is never one of agent's own folders nor a place of the system's (/proc, /sys, /dev),
as the file tools never read those either.
"""

from __future__ import annotations

import contextlib
import os
from collections.abc import Iterator, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.tools.containment import within

# The system's live views: a process's environment and memory, devices, kernel settings.
SYSTEM_PLACES = (Path("/proc"), Path("/sys"), Path("/dev"))


class MovedFolderError(Exception):
    """The pinned path no longer opens the pinned folder; the text says what it does now."""


@dataclass(frozen=True)
class FolderPin:
    """A folder as found: its real path (no link on the way then) and its identity."""

    path: Path
    device: int
    inode: int

    def to_json(self) -> dict[str, Any]:
        return {"path": str(self.path), "device": self.device, "inode": self.inode}

    @classmethod
    def from_json(cls, data: object) -> FolderPin | None:
        """The pin as saved; None when there is none or it is malformed (nothing vouches for
        the folder then: the caller refuses to read through it)."""
        if not isinstance(data, dict):
            return None
        path, device, inode = data.get("path"), data.get("device"), data.get("inode")
        if not isinstance(path, str) or not os.path.isabs(path):
            return None
        if not all(isinstance(n, int) and not isinstance(n, bool) for n in (device, inode)):
            return None
        assert isinstance(device, int) and isinstance(inode, int)
        return cls(Path(path), device, inode)


def pin_folder(directory: Path) -> FolderPin:
    """The folder `directory` leads to now, pinned; OSError when it is not one."""
    real = Path(os.path.realpath(directory))
    fd = os.open(real, os.O_RDONLY | os.O_DIRECTORY)
    try:
        status = os.fstat(fd)
    finally:
        os.close(fd)
    return FolderPin(real, status.st_dev, status.st_ino)


def place_refusal(path: Path, private: Sequence[Path]) -> str | None:
    """Why nothing is read in `path` (a real path), or None: agent's own folders and the
    system's live views are never a skill's."""
    if any(within(path, Path(os.path.realpath(folder))) for folder in private):
        return "it is inside agent's own settings and data folder, which is never read"
    place = next((p for p in SYSTEM_PLACES if within(path, p)), None)
    if place is not None:
        return f"it is inside {place}, the system's live view, which is never read"
    return None


@contextlib.contextmanager
def opened(pin: FolderPin) -> Iterator[int]:
    """A descriptor of the pinned folder; MovedFolderError when its path now opens another
    folder, or none."""
    try:
        fd = os.open(pin.path, os.O_RDONLY | os.O_DIRECTORY)
    except OSError as error:
        raise MovedFolderError(f"it cannot be opened now ({error.strerror or error})") from None
    try:
        status = os.fstat(fd)
        if (status.st_dev, status.st_ino) != (pin.device, pin.inode):
            raise MovedFolderError("its path now leads to another folder")
        yield fd
    finally:
        os.close(fd)


def moved_text(name: str, pin: FolderPin, why: str, outcome: str) -> str:
    """Why nothing of a skill whose folder's name now leads elsewhere is used (`outcome`:
    "nothing was read from it", "nothing ran")."""
    return (
        f"skill {name!r}: its folder {pin.path} is no longer the folder that was found and "
        f"trusted ({why}); {outcome}. To use the skill as its folder is now, start a new chat "
        f"(the folder is found, and asked about, again) and activate it (/skill {name})"
    )


def relative_parts(relative: str) -> tuple[str, ...] | None:
    """The names below a folder that `relative` walks through, `..` folded away; None when it
    climbs out (or is absolute)."""
    if os.path.isabs(relative):
        return None
    parts = Path(os.path.normpath(relative)).parts
    if parts and parts[0] == "..":
        return None
    return () if parts == (".",) else parts
