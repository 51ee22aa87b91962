"""Walking a skill's folder without recursion, to a bounded depth, never following links.

A skill folder is someone else's: os.walk on Python 3.11 recurses once per folder level, so a
folder nested a thousand levels deep raised RecursionError before anyone was asked anything.
This walk keeps its own stack, lists folders top-down in sorted order (the order os.walk gave
with sorted folders, so fingerprints stay what they were), and enters no folder deeper than
MAX_DEPTH levels. A folder it did not enter for that reason, or could not list (too long a
path, no permission), makes the walk `incomplete`: the caller says what that means. Given the
descriptor of the root (a pinned folder, agent.tools.pinned_folder), each folder is reached
from it one real folder at a time, never through a link (agent.tools.folder_descent).
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path

from agent.tools.folder_descent import folder_below

MAX_DEPTH = 64


@dataclass(frozen=True)
class Folder:
    """One listed folder: real subfolders (entered next, unless the caller removes them from
    `dirs`), links to folders (never entered) and everything else, each sorted by name."""

    path: Path
    relative: tuple[str, ...]  # the folder's parts below the root; () for the root
    dirs: list[str] = field(default_factory=list)
    dir_links: list[str] = field(default_factory=list)
    files: list[str] = field(default_factory=list)  # files, links to files, FIFOs, devices
    file_links: set[str] = field(default_factory=set)  # which of `files` are links


class FolderWalk:
    """Iterates the folders under `root`, top-down; `incomplete` once something was left out."""

    def __init__(self, root: Path, max_depth: int = MAX_DEPTH, root_fd: int | None = None) -> None:
        self.root = root
        self.max_depth = max_depth
        self.root_fd = root_fd
        self.incomplete = False

    def __iter__(self) -> Iterator[Folder]:
        stack: list[tuple[str, ...]] = [()]
        while stack:
            relative = stack.pop()
            folder = self._listed(relative)
            if folder is None:
                self.incomplete = True
                continue
            yield folder
            if folder.dirs and len(relative) >= self.max_depth:
                self.incomplete = True
                continue
            stack.extend((*relative, name) for name in reversed(folder.dirs))

    def _listed(self, relative: tuple[str, ...]) -> Folder | None:
        path = self.root.joinpath(*relative)
        if self.root_fd is None:
            return _listed(path, path, relative)
        try:
            with folder_below(self.root_fd, relative) as fd:
                return _listed(fd, path, relative)
        except OSError:
            return None  # swapped for a link, or gone, since its parent was listed


def _listed(where: Path | int, path: Path, relative: tuple[str, ...]) -> Folder | None:
    folder = Folder(path, relative)
    try:
        with os.scandir(where) as entries:
            for entry in entries:
                try:
                    is_dir = entry.is_dir()
                    is_link = entry.is_symlink()
                except OSError:
                    is_dir = is_link = False  # gone or unreadable meanwhile: counts as a file
                if is_dir and is_link:
                    folder.dir_links.append(entry.name)
                else:
                    (folder.dirs if is_dir else folder.files).append(entry.name)
                    if is_link:
                        folder.file_links.add(entry.name)
    except OSError:
        return None
    for names in (folder.dirs, folder.dir_links, folder.files):
        names.sort()
    return folder
