"""Tab completion of `@path`: the project's files and folders (folders end in `/`).

Only what a mention would attach is offered: hidden names only when the typed name starts with
a dot, never version control's, agent's or credential files, nor a link that leads out (each
offered path passes the same fence, agent.chat.file_attachments.fenced), nor a hard link to a
credential file (agent.tools.credential_links). A name with control characters or a line
break is never offered (it could draw on the menu, and cannot be typed);
spaces are offered escaped (`my\\ notes.txt`), and a name with any other white space (a no-break
space) is not offered: the mention would end there and mean something else.

A bare name (`@comp`) also finds files deeper in the tree by their name, from a walk that is
capped in entries and time and kept for a few seconds: completion runs on every key press.
"""

from __future__ import annotations

import itertools
import os
import stat
import time
from collections.abc import Callable, Collection, Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING

from prompt_toolkit.completion import CompleteEvent, Completer, Completion
from prompt_toolkit.document import Document

from agent.chat.file_attachments import VCS_FOLDERS, RefusedMention, fenced
from agent.chat.mentions import escaped, mention_at_cursor, server_word
from agent.text import sanitize_line
from agent.tools.credential_links import CredentialLinks

if TYPE_CHECKING:
    from agent.chat.state import ChatSession

MAX_OFFERED = 200
MAX_LISTED = 5_000  # entries of one folder looked at
MAX_WALKED = 20_000  # entries of the tree looked at for a bare name
WALK_SECONDS = 0.5
WALK_FRESH_SECONDS = 10.0
# Not what a person attaches, and often huge: not walked (typed by hand, they still complete).
_HEAVY = frozenset({"node_modules", "__pycache__", ".venv", "venv", ".tox", ".mypy_cache"})


class PathCompleter(Completer):
    """`@` and `@src/` offer the folder's entries; `@name` also files by that name deeper."""

    def __init__(
        self,
        project: Callable[[], Path | None],
        servers: Callable[[], Collection[str]],
        private: Sequence[Path],
    ) -> None:
        self._project = project
        self._servers = servers
        self._private = private
        self._walked: tuple[float, Path, list[str]] | None = None

    def get_completions(
        self, document: Document, complete_event: CompleteEvent
    ) -> Iterator[Completion]:
        word = mention_at_cursor(document.text_before_cursor)
        project = self._project()
        if word is None or project is None or document.text.lstrip().startswith("/"):
            return
        if server_word(word, self._servers()):
            return  # `@server:`: a resource (agent.ui.completion.mentions)
        typed = word.replace("\\ ", " ").replace("\\\\", "\\")
        if typed.startswith(("/", "~")) or ".." in typed.split("/"):
            return  # never offered outside the project
        project = project.resolve()
        folder, _, prefix = typed.rpartition("/")
        offered: set[str] = set()
        # One key press, one look at the credential files: only when a name has hard links.
        links = CredentialLinks(self._private, project=project)
        found = self._entries(project, folder, prefix, links)
        deeper = self._deeper(project, prefix, links) if prefix and not folder else iter(())
        servers = self._servers()
        for relative in (*found, *deeper):
            if len(offered) >= MAX_OFFERED:
                return
            if relative not in offered:
                offered.add(relative)
                yield _completion(relative, len(word), servers)

    def _entries(
        self, project: Path, folder: str, prefix: str, links: CredentialLinks
    ) -> Iterator[str]:
        """Entries of `folder` whose names start with `prefix`, folders first."""
        try:
            base = fenced(project, folder or ".", self._private)
            with os.scandir(base) as found:
                names = [entry.name for _, entry in zip(range(MAX_LISTED), found, strict=False)]
        except (RefusedMention, OSError):
            return
        lead = f"{folder}/" if folder else ""
        matches = sorted(n for n in names if n.startswith(prefix) and _shown(n, prefix))
        offered = (self._offered(project, lead + name, links) for name in matches)
        # Each is resolved to be judged: only as many as can be offered.
        kept = list(itertools.islice((path for path in offered if path), MAX_OFFERED))
        yield from sorted(kept, key=lambda path: (not path.endswith("/"), path))

    def _offered(self, project: Path, relative: str, links: CredentialLinks) -> str | None:
        """`relative` as offered (a folder with `/`), or None when a mention would refuse it."""
        try:
            status = fenced(project, relative, self._private).stat()
        except (RefusedMention, OSError):
            return None
        if stat.S_ISDIR(status.st_mode):
            return relative + "/"
        if not stat.S_ISREG(status.st_mode):
            return None  # a FIFO or device is refused
        # A hard link to a credential file (~/.aws/credentials as docs/notes.txt) is refused
        # when mentioned; even its name is not offered.
        return None if links.linked_to(status) is not None else relative

    def _deeper(self, project: Path, prefix: str, links: CredentialLinks) -> Iterator[str]:
        folded = prefix.casefold()
        for relative in self._tree(project):
            name = relative.rstrip("/").rpartition("/")[2]
            if "/" in relative.rstrip("/") and name.casefold().startswith(folded):
                offered = self._offered(project, relative.rstrip("/"), links)
                if offered is not None:
                    yield offered

    def _tree(self, project: Path) -> list[str]:
        """The project's paths (folders with `/`), from a capped walk kept for a while."""
        now = time.monotonic()
        if (
            self._walked
            and self._walked[1] == project
            and now - self._walked[0] < WALK_FRESH_SECONDS
        ):
            return self._walked[2]
        found: list[str] = []
        for root, dirs, files in os.walk(project):
            relative_root = os.path.relpath(root, project)
            lead = "" if relative_root == "." else relative_root + "/"
            dirs[:] = sorted(d for d in dirs if _shown(d, "") and d not in _HEAVY)
            found.extend(f"{lead}{d}/" for d in dirs)
            found.extend(f"{lead}{f}" for f in sorted(files) if _shown(f, ""))
            if len(found) >= MAX_WALKED or time.monotonic() - now > WALK_SECONDS:
                break
        self._walked = (now, project, found)
        return found


def _completion(relative: str, back: int, servers: Collection[str]) -> Completion:
    # `rs:notes.txt` with a server rs would mention rs's resource: a path says `./` first.
    if server_word(relative, servers):
        relative = f"./{relative}"
    meta = "folder" if relative.endswith("/") else "file"
    return Completion(escaped(relative), -back, display=relative, display_meta=meta)


def _shown(name: str, prefix: str) -> bool:
    """Whether a name may be offered at all: not hidden (unless a dot was typed), not version
    control's, and drawable on one line as it is."""
    if name.startswith(".") and not prefix.startswith("."):
        return False
    # A mention ends at any white space and only a plain space is escaped when offered: a
    # no-break or em space would look like part of the name in the menu but cut the mention
    # there (`notes<NBSP>@srv:x` would mention server srv's resource x, not this file).
    odd_space = any(char.isspace() and char != " " for char in name)
    vcs = name.casefold() in VCS_FOLDERS  # `.GIT` is `.git` where case is ignored
    return not vcs and sanitize_line(name) == name and not odd_space


def project_paths(current: Callable[[], ChatSession | None]) -> PathCompleter:
    """The chat's @path completer: its project, its configured servers, agent's own folders."""
    from agent.chat.attachments import configured_servers
    from agent.home import own_folders

    def project() -> Path | None:
        chat = current()
        return chat.project if chat is not None else None

    def servers() -> list[str]:
        chat = current()
        return configured_servers(chat.host.runtime) if chat is not None else []

    return PathCompleter(project, servers, own_folders())
