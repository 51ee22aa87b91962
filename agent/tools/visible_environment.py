"""What of a program's own installation the sandbox's private /tmp or its empty home would
hide, shown again read-only at the same path.

Inside the sandbox /tmp is a fresh, empty one, and so is the home (sandbox_home.py). A program
that lies under the real /tmp (a venv at /tmp/venvs/x, a project cloned into /tmp with its
tools elsewhere in /tmp) or in the home (~/venvs/x, pyenv's ~/.pyenv, nvm's
~/.nvm/versions/node/v20.11.0) would be named in the approval and then be "not found" once the
person said yes. So what it needs is bound back, read-only: its installation as
program_installation.py finds it (a venv's root and the interpreter it was made from, a
toolchain's prefix, a version manager's root, a script's interpreter), otherwise the program's
own folder; and the VIRTUAL_ENV and CONDA_PREFIX the command is given, when they lie there too.

Nothing the sandbox hides on purpose is ever bound back (agent's folders, credential files,
other agents' logins: the sandbox's own hidden list), nor /tmp or the home whole (that would
undo emptying them): such a call is refused, saying why. Every path is judged by where it really
is (symlinks resolved), so a link from /tmp into ~/.ssh shows nothing of ~/.ssh. A folder
another user could swap for such a link (theirs, or writable by all) is refused, and at the
run each folder must still be the one judged at the question.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Iterable, Mapping
from pathlib import Path

from agent.tools.base import CallRefusedError
from agent.tools.command_environment import shown_argv
from agent.tools.containment import within
from agent.tools.program_installation import installation_folders, interpreter_of, venv_base

PRIVATE_TMP = Path("/tmp")  # noqa: S108 (the folder the sandbox replaces by its own)
ENVIRONMENT_NAMES = ("VIRTUAL_ENV", "CONDA_PREFIX")


def folders_to_show(
    program: Path,
    environment: Mapping[str, str],
    *,
    hidden: Iterable[Path],
    visible: Iterable[Path],
    home: Path | None = None,
) -> tuple[Path, ...]:
    """The real folders to bind read-only so that `program` (as found on PATH, and where its
    links lead), its interpreter and the command's VIRTUAL_ENV / CONDA_PREFIX are there inside
    the sandbox. `hidden`: what the sandbox hides on purpose; `visible`: what it shows anyway
    (the project, a skill's folder, listed folders); `home`: the home the sandbox replaces by
    an empty one (sandbox_home.py), None when it does not. CallRefusedError when one of them
    would mean binding a hidden place, or a whole home or /tmp."""
    hidden = tuple(hidden)
    visible = tuple(visible)
    emptied = (PRIVATE_TMP,) if home is None else (PRIVATE_TMP, home)
    _refuse_if_hidden(
        Path(os.path.realpath(program)), hidden, f"the program {shown_argv([str(program)])}"
    )
    found: dict[Path, None] = {}
    for folder, needed_by in _wanted(program, environment, home, emptied):
        root = _emptied_root(folder, emptied, visible)
        if root is None:
            continue
        if folder == root:
            raise CallRefusedError(_whole_root(needed_by, root))
        _refuse_if_hidden(folder, hidden, needed_by)
        _refuse_if_others_can_swap(folder, root, needed_by)
        found[folder] = None
    return tuple(sorted(found))


def _wanted(
    program: Path, environment: Mapping[str, str], home: Path | None, emptied: tuple[Path, ...]
) -> list[tuple[Path, str]]:
    """Each folder the program needs, with what needs it (for a refusal's words)."""
    real_program = Path(os.path.realpath(program))
    label = f"the program {shown_argv([str(program)])}"
    # The folder the program is looked up in (its entry on PATH), and the folder its links
    # lead to: with both there, the name resolves inside as it does outside.
    needs = [(Path(os.path.realpath(program.parent)), label), (real_program.parent, label)]
    interpreter = interpreter_of(real_program, environment)
    if interpreter is not None:
        said = f"its interpreter {shown_argv([str(interpreter)])}"
        needs.append((Path(os.path.realpath(interpreter.parent)), said))
        needs.append((Path(os.path.realpath(interpreter)).parent, said))
    wanted: list[tuple[Path, str]] = []
    for folder, needed_by in needs:
        wanted += [(root, needed_by) for root in installation_folders(folder, home, emptied)]
    for name in ENVIRONMENT_NAMES:
        value = environment.get(name)
        if value and os.path.isabs(value) and os.path.isdir(value):
            wanted.append((Path(os.path.realpath(value)), name))
    for folder, needed_by in list(wanted):  # a venv's python runs its base interpreter
        base = venv_base(folder)
        if base is not None:
            said = f"{needed_by}'s base interpreter"
            wanted += [(root, said) for root in installation_folders(base, home, emptied)]
    return wanted


def _whole_root(needed_by: str, root: Path) -> str:
    if root == PRIVATE_TMP:
        return (
            f"{needed_by} lies directly in /tmp, which the sandbox replaces by a private "
            "one; showing all of /tmp would undo that: move it into a folder of its own "
            "(or outside /tmp); nothing ran"
        )
    return (
        f"{needed_by} lies directly in your home ({shown_argv([str(root)])}), which the "
        "sandbox replaces by an empty one; showing all of it would undo that: move it into "
        "a folder of its own (~/bin); nothing ran"
    )


def _emptied_root(
    folder: Path, emptied: tuple[Path, ...], visible: tuple[Path, ...]
) -> Path | None:
    """The place the sandbox empties (/tmp, the home) that would hide `folder`, or None: it
    lies in neither, or in a folder the sandbox shows anyway (the project is bound over
    them). The innermost one when both hold it (a home under /tmp)."""
    if any(within(folder, shown) for shown in visible):
        return None
    holding = [root for root in emptied if within(folder, root)]
    return max(holding, key=lambda root: len(root.parts)) if holding else None


def _refuse_if_others_can_swap(folder: Path, root: Path, needed_by: str) -> None:
    """Refuse a folder under /tmp that another user could swap for a link into the home: one
    of its folders below /tmp is theirs, or open to anyone's changes. bwrap binds what the path
    names when the command starts, so such a swap after every check of ours would still show
    ~/.ssh at the venv's path; only the folder's owner (and root) can rename what it holds."""
    me = os.geteuid()
    for part in (folder, *folder.parents):
        if part == root or not within(part, root):
            return
        try:
            status = os.lstat(part)
        except OSError:  # gone since it was found: nothing to show
            raise CallRefusedError(
                f"{needed_by} is in {shown_argv([str(folder)])}, which is gone; nothing ran"
            ) from None
        # Writable by all without the sticky bit; not group-writable: umask 002 with a group
        # of one's own (Debian, Ubuntu) makes every folder so.
        shared = status.st_mode & stat.S_IWOTH and not status.st_mode & stat.S_ISVTX
        if status.st_uid not in (me, 0) or shared:
            raise CallRefusedError(
                f"{needed_by} is in {shown_argv([str(folder)])}, and "
                f"{shown_argv([str(part)])} is another user's or open to anyone's changes: "
                "they could swap it for a link into your home before the command starts, so "
                "it is not shown to commands and nothing ran; use a venv of your own"
            )


def _refuse_if_hidden(path: Path, hidden: tuple[Path, ...], needed_by: str) -> None:
    """Refuse when `path` is in a place hidden on purpose, or holds one (shown at its own
    path, what it holds would be seen there, past the hiding of its real path)."""
    for secret in hidden:
        if within(path, secret) or within(secret, path):
            raise CallRefusedError(
                f"{needed_by} is in {shown_argv([str(path)])}, where the sandbox hides agent's "
                f"own folders or your credentials ({shown_argv([str(secret)])}); it is not "
                "shown to commands, so nothing ran"
            )


def changed_since_checked(folders: Iterable[Path]) -> str | None:
    """Why the shown folders may not be bound now, or None. They were judged at the question
    and are bound at the yes, minutes later maybe: bwrap follows a link, so a folder swapped
    for a link into ~/.ssh meanwhile (by whoever owns the folder holding it in /tmp) would
    show the key at the venv's path, past the hiding of ~/.ssh. Each must still be the real
    folder it was."""
    for folder in folders:
        if os.path.realpath(folder) != str(folder) or not os.path.isdir(folder):
            return (
                f"{shown_argv([str(folder)])} changed since the question (it is gone or now "
                "leads elsewhere), so it is not shown to the command; nothing ran: ask again"
            )
    return None
