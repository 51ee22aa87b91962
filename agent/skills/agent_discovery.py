"""Finding subagent definitions: `*.md` in `.claude/agents` and `.agents/agents`, of the person
(`~/`) and of the project, and which one of a name is used.

Precedence, lowest first: `~/.claude/agents`, `~/.agents/agents`, `<project>/.claude/agents`,
`<project>/.agents/agents` (project over user, `.agents` over `.claude`); a higher one hides a
lower one of the same name, said in a note. A folder reached twice (the project is the home)
is read once, as the person's own.

A project's files are someone else's, so they are read by mechanism: the folder is reached
from the project's real folder one real folder at a time (agent.tools.folder_descent: a link
on the way is refused, never followed), each file is opened in it by descriptor with
O_NOFOLLOW (a link, even one swapped in after the listing, is refused), only a regular file
(a FIFO would hang the start), at most MAX_DEFINITION_BYTES, once. The person's own folders
and files may be links (dotfile managers link them), as their own instruction file may.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Collection, Iterable
from dataclasses import dataclass, replace
from pathlib import Path

from agent.skills.agent_definitions import (
    DefinitionScope,
    SkippedDefinition,
    SubagentDefinition,
    parse_definition,
)
from agent.skills.model import Diagnostic
from agent.text import plural
from agent.tools.folder_descent import folder_below, is_link_or_file

MAX_DEFINITION_BYTES = 64 * 1024
SUFFIX = ".md"
# (scope, folder under the project or the home), lowest precedence first.
DEFINITION_FOLDERS: tuple[tuple[DefinitionScope, tuple[str, str]], ...] = (
    ("user", (".claude", "agents")),
    ("user", (".agents", "agents")),
    ("project", (".claude", "agents")),
    ("project", (".agents", "agents")),
)


class _Unreadable(Exception):
    """A definition file that is not read; the text says why."""


@dataclass(frozen=True)
class AgentDefinitions:
    """What discovery found: the definition used per name, what each hid, what was skipped."""

    definitions: tuple[SubagentDefinition, ...] = ()  # the winner per name, sorted by name
    hidden: tuple[SubagentDefinition, ...] = ()  # hidden by a winner of the same name
    skipped: tuple[SkippedDefinition, ...] = ()

    def project(self) -> tuple[SubagentDefinition, ...]:
        """The project's definitions in use once trusted: what the trust question decides."""
        return tuple(d for d in self.definitions if d.scope == "project")

    def usable(self, trusted: Collection[str]) -> tuple[SubagentDefinition, ...]:
        """The definitions a chat may use: the person's own, and the project's whose label is
        in `trusted` (decided on these very definitions' digests). A project definition not
        trusted hides nothing: the person's own of its name is used instead."""
        mine = [d for d in (*self.definitions, *self.hidden) if d.scope == "user"]
        theirs = [d for d in self.project() if d.label in trusted]
        winners, _ = resolve_precedence([*mine, *theirs])
        return winners

    def notes(self) -> list[str]:
        """What a chat says at its start: skipped files, names hidden, fields not understood."""
        notes = [skipped.note() for skipped in self.skipped]
        for definition in self.definitions:
            if definition.shadows:
                notes.append(
                    f"subagent definition {definition.name!r} ({definition.label}) hides "
                    f"{' and '.join(definition.shadows)} of the same name"
                )
            warnings = "; ".join(d.message for d in definition.diagnostics)
            if warnings:
                notes.append(f"subagent definition {definition.label}: {warnings}")
        return notes


def definition_folders(
    project: Path, home: Path | None = None
) -> list[tuple[DefinitionScope, Path]]:
    """The folders searched, lowest precedence first, each once (in its lowest scope)."""
    bases = {"user": Path.home() if home is None else home, "project": project}
    folders: list[tuple[DefinitionScope, Path]] = []
    seen: set[str] = set()
    for scope, parts in DEFINITION_FOLDERS:
        folder = bases[scope].joinpath(*parts)
        real = os.path.realpath(folder)
        if real not in seen:
            seen.add(real)
            folders.append((scope, folder))
    return folders


def discover_definitions(project: Path, *, home: Path | None = None) -> AgentDefinitions:
    """Every definition of the person and of the project, read once each."""
    home = Path.home() if home is None else home
    found: list[SubagentDefinition] = []
    skipped: list[SkippedDefinition] = []
    for scope, folder in definition_folders(project, home):
        base = home if scope == "user" else project
        label_base = "~" if scope == "user" else "."
        relative = folder.relative_to(base).as_posix()
        for item in _scan(base, folder, scope, f"{label_base}/{relative}"):
            if isinstance(item, SubagentDefinition):
                found.append(item)
            else:
                skipped.append(item)
    winners, hidden = resolve_precedence(found)
    return AgentDefinitions(winners, hidden, tuple(skipped))


def _scan(
    base: Path, folder: Path, scope: DefinitionScope, label: str
) -> list[SubagentDefinition | SkippedDefinition]:
    """The definitions of one folder, read through one descriptor of it."""
    try:
        fd = _open_folder(base, folder, scope)
    except FileNotFoundError:
        return []
    except OSError as error:
        if scope == "project" and is_link_or_file(error):
            why = (
                "it, or a folder on the way to it, is a link (or not a folder): a project's "
                "definitions are read only from a real folder in the project, never through a link"
            )
        else:
            why = f"it cannot be read ({error.strerror or error})"
        return [_skipped(folder, scope, label, f"the folder is not read: {why}")]
    try:
        names = sorted(n for n in os.listdir(fd) if n.endswith(SUFFIX) and not n.startswith("."))
        results: list[SubagentDefinition | SkippedDefinition] = []
        for name in names:
            path, file_label = folder / name, f"{label}/{name}"
            try:
                data = _read(fd, name, follow=scope == "user")
            except _Unreadable as error:
                results.append(_skipped(path, scope, file_label, str(error)))
                continue
            results.append(parse_definition(data, path, file_label, scope))
        return results
    finally:
        os.close(fd)


def _open_folder(base: Path, folder: Path, scope: DefinitionScope) -> int:
    """A descriptor of the folder: the person's through any link, the project's from its
    real folder down, never through one."""
    if scope == "user":
        return os.open(folder, os.O_RDONLY | os.O_DIRECTORY)
    root = os.open(os.path.realpath(base), os.O_RDONLY | os.O_DIRECTORY)
    try:
        with folder_below(root, folder.relative_to(base).parts) as fd:
            return os.dup(fd)
    finally:
        os.close(root)


def _read(folder: int, name: str, *, follow: bool) -> bytes:
    """The whole file `name` of the folder, once; _Unreadable when it is a link (unless
    `follow`), not a regular file, too big or unreadable."""
    flags = os.O_RDONLY | os.O_NONBLOCK | os.O_NOCTTY | (0 if follow else os.O_NOFOLLOW)
    try:
        fd = os.open(name, flags, dir_fd=folder)
    except OSError as error:
        if not follow and is_link_or_file(error):
            raise _Unreadable(
                "it is a link: a project's definition is read only from a file of its own, "
                "never through a link"
            ) from None
        raise _Unreadable(f"it cannot be read ({error.strerror or error})") from None
    try:
        status = os.fstat(fd)
        if not stat.S_ISREG(status.st_mode):
            raise _Unreadable("it is not a regular file (a pipe, socket or device)")
        pieces: list[bytes] = []
        size = 0
        while size <= MAX_DEFINITION_BYTES:
            piece = os.read(fd, MAX_DEFINITION_BYTES + 1 - size)
            if not piece:
                break
            pieces.append(piece)
            size += len(piece)
    except OSError as error:
        raise _Unreadable(f"it cannot be read ({error.strerror or error})") from None
    finally:
        os.close(fd)
    if size > MAX_DEFINITION_BYTES:
        raise _Unreadable(
            f"it is over {plural(MAX_DEFINITION_BYTES // 1024, 'KiB')}: a definition's "
            "instructions must be shorter"
        )
    return b"".join(pieces)


def _skipped(path: Path, scope: DefinitionScope, label: str, message: str) -> SkippedDefinition:
    return SkippedDefinition(path, scope, label, (Diagnostic("error", message),))


def _rank(definition: SubagentDefinition) -> int:
    """Its place in DEFINITION_FOLDERS' order: higher hides lower."""
    source = ".agents" if "/.agents/agents/" in definition.label else ".claude"
    return [(scope, parts[0]) for scope, parts in DEFINITION_FOLDERS].index(
        (definition.scope, source)
    )


def resolve_precedence(
    definitions: Iterable[SubagentDefinition],
) -> tuple[tuple[SubagentDefinition, ...], tuple[SubagentDefinition, ...]]:
    """The winner per name (the highest folder; in one folder, the first file by name), sorted
    by name, each knowing what it hides; and the hidden ones."""
    by_key: dict[str, list[SubagentDefinition]] = {}
    for definition in definitions:
        by_key.setdefault(definition.key, []).append(definition)
    winners: list[SubagentDefinition] = []
    hidden: list[SubagentDefinition] = []
    for key in sorted(by_key):
        group = sorted(by_key[key], key=lambda d: -_rank(d))  # stable: first file first
        losers = group[1:]
        winners.append(replace(group[0], shadows=tuple(d.label for d in losers)))
        hidden.extend(losers)
    return tuple(winners), tuple(hidden)
