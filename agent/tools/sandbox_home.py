"""What of the home a sandboxed command sees: an empty home in its place, and in it only what
the command needs.

A list of names to hide always misses the next tool's token file (~/.cache/huggingface/token,
~/.kaggle/kaggle.json, whatever ships next year). So the sandbox hides the home whole: an
empty tmpfs at its path, writable (programs keep caches under $HOME) and thrown away when the
command ends. Shown in it again, read-only: the program's own installation
(visible_environment.py, program_installation.py) and what the person lists in
`commands.visible_read_only`; and the project, read-write, when it lies in the home. The lists
of credential names stay a second layer for what is shown (the project, a listed folder).

The home is not emptied when it is the project or lies in it (agent started in ~: the person
made it the project, and the file tools read it already). When $HOME is `/`, relative or empty
it names no home, and the account's home (the password database's) is the one hidden: with
nothing emptied and the credential names looked for under `relative/.ssh`, the real ~/.ssh and
every token file were there.

A listed entry is judged by where it really is (links resolved) and shown at the path written
(so ~/.gitconfig, a link into a dotfiles folder, is there as ~/.gitconfig): one that is or holds
a place the sandbox hides, or the home itself, is refused with the setting named; a missing one
is skipped and said. At the run each must still lead where it led at the question.
"""

from __future__ import annotations

import os
import pwd
import stat
from collections.abc import Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path

from agent.tools.base import CallRefusedError
from agent.tools.command_environment import shown_argv
from agent.tools.containment import within

SETTING = "commands.visible_read_only"


@dataclass(frozen=True)
class Listed:
    """The person's listed entries, as this command will see them."""

    shown: tuple[tuple[Path, Path], ...]  # (its real path, the path written): bound read-only
    missing: tuple[Path, ...]  # not there now: skipped, and said


def home_value() -> str:
    """The home to hide: $HOME when it names a folder other than `/` by an absolute path,
    otherwise the account's home (see the module); "" when there is none."""
    value = os.environ.get("HOME", "")
    if os.path.isabs(value) and os.path.realpath(value) != "/":
        return value
    try:
        return pwd.getpwuid(os.getuid()).pw_dir
    except KeyError:  # an account the password database does not know
        return value


def emptied_home(home: str, project: Path) -> Path | None:
    """The real home the sandbox replaces by an empty one, or None (see the module)."""
    if not home or not os.path.isabs(home):
        return None
    real = Path(os.path.realpath(home))
    if real == Path("/") or not real.is_dir() or within(real, project):
        return None
    return real


def listed_entries(
    entries: Sequence[str], home: Path | None, home_value: str, hidden: Iterable[Path]
) -> Listed:
    """The entries of commands.visible_read_only to bind; CallRefusedError for one that would
    show a hidden place or the home whole. `home_value`: $HOME as given, for `~`."""
    hidden = tuple(hidden)
    shown: list[tuple[Path, Path]] = []
    missing: list[Path] = []
    for entry in entries:
        written = _written_path(entry, home_value)
        if written is None:
            raise CallRefusedError(
                f"{SETTING} in settings.yaml lists {shown_argv([entry])}, but there is no home "
                "($HOME is not set) to find it in; nothing ran"
            )
        if not os.path.lexists(written):
            missing.append(written)
            continue
        real = Path(os.path.realpath(written))
        _refuse_listed(entry, real, home, hidden)
        _refuse_if_others_can_swap(entry, written, real)
        shown.append((real, _destination(written, home_value, home)))
    return Listed(tuple(shown), tuple(missing))


def _written_path(entry: str, home_value: str) -> Path | None:
    """The entry with `~` expanded and `.`/`..` taken lexically (as a shell would read it)."""
    if entry == "~" or entry.startswith("~/"):
        if not home_value or not os.path.isabs(home_value):
            return None
        entry = home_value.rstrip("/") + entry[1:]  # a home of "/" gives "/x", not "//x"
    return Path(os.path.normpath(entry))


def _destination(written: Path, home_value: str, home: Path | None) -> Path:
    """Where in the sandbox to show the entry: the path as written, the home's part taken as
    the real home (the sandbox's empty one is made at the real path)."""
    if home is None or not home_value:
        return written
    start = Path(os.path.normpath(home_value))
    if within(written, start):
        return home / written.relative_to(start)
    return written


def _refuse_listed(entry: str, real: Path, home: Path | None, hidden: tuple[Path, ...]) -> None:
    said = f"{SETTING} in settings.yaml lists {shown_argv([entry])}"
    if home is not None and within(home, real):
        raise CallRefusedError(
            f"{said}, which is or holds your home itself ({shown_argv([str(home)])}): showing "
            "it would undo hiding the home; list the folders in it a command needs instead; "
            "nothing ran"
        )
    for secret in hidden:
        if within(real, secret) or within(secret, real):
            raise CallRefusedError(
                f"{said}, which is or holds {shown_argv([str(secret)])}, a place the sandbox "
                "hides (agent's folders, your credentials); take it out of the list or list "
                "what in it a command needs; nothing ran"
            )


def _refuse_if_others_can_swap(entry: str, written: Path, real: Path) -> None:
    """Refuse an entry another user could swap for a link into the home (a folder on its way
    is theirs, or open to anyone's changes without the sticky bit, as a shared folder in /tmp
    may be): bwrap binds what the path names when the command starts, after every check of
    ours. Only a folder's owner (and root) can rename what it holds."""
    me = os.geteuid()
    for path in (written, real):
        for part in path.parents:
            try:
                status = os.lstat(part)
            except OSError:
                continue  # gone meanwhile: the check at the run says so
            shared = status.st_mode & stat.S_IWOTH and not status.st_mode & stat.S_ISVTX
            if status.st_uid not in (me, 0) or shared:
                raise CallRefusedError(
                    f"{SETTING} in settings.yaml lists {shown_argv([entry])}, and "
                    f"{shown_argv([str(part)])} is another user's or open to anyone's changes: "
                    "they could swap it for a link into your home before the command starts, "
                    "so it is not shown; nothing ran"
                )


def changed_listed(listed: Listed) -> str | None:
    """Why a listed entry may not be bound now, or None: each must still lead where it led
    when it was judged at the question (a link swapped in meanwhile would show what it leads
    to)."""
    for real, written in listed.shown:
        if os.path.realpath(written) != str(real) or not os.path.exists(real):
            return (
                f"{shown_argv([str(written)])} ({SETTING}) changed since the question (it is "
                "gone or now leads elsewhere), so it is not shown; nothing ran: ask again"
            )
    return None


def in_view(hidden: Iterable[Path], home: Path | None, shown: Iterable[Path]) -> tuple[Path, ...]:
    """The hidden places still to cover: those outside the emptied home, and those in it that
    lie in something shown again (the project, a listed folder). The rest are gone with the
    home; covering them would only make empty folders for them in the empty home."""
    shown = tuple(shown)
    return tuple(
        path
        for path in hidden
        if home is None or not within(path, home) or any(within(path, seen) for seen in shown)
    )


def home_lines(
    home: Path | None, home_value: str, project: Path, shown: Sequence[Path], listed: Listed
) -> list[str]:
    """The approval's lines on the home, and on what is shown again read-only: `shown`, the
    program's folders (visible_environment.py), then the listed entries."""
    lines = []
    if home is not None:
        inside = "; the project in it read-write" if within(project, home) else ""
        lines.append(
            f"home: {shown_argv([str(home)])} hidden (an empty one in its place: writable, "
            f"thrown away after){inside}"
        )
    elif _in_project(home_value, project):
        lines.append("home: part of the project, so shown (your credential files in it hidden)")
    lines += [f"visible read-only: {shown_argv([str(folder)])}" for folder in shown]
    for _, written in listed.shown:
        lines.append(f"visible read-only: {shown_argv([str(written)])} ({SETTING})")
    for written in listed.missing:
        lines.append(f"not found, so not shown: {shown_argv([str(written)])} ({SETTING})")
    return lines


def _in_project(home_value: str, project: Path) -> bool:
    if not home_value or not os.path.isabs(home_value):
        return False
    real = Path(os.path.realpath(home_value))
    return real != Path("/") and within(real, project)
