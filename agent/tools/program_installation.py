"""Where a program's own installation lies: the folders a sandbox that hides the home and /tmp
must show again (read-only) for the program to run as it does outside.

A program found on PATH needs more than its own file: a venv's python needs the venv's
pyvenv.cfg and its lib/, and the base interpreter the venv was made from; a toolchain's binary
needs the lib/ beside its bin/ (pyenv's ~/.pyenv/versions/3.11.7, nvm's
~/.nvm/versions/node/v20.11.0); a version manager's shim needs the manager's root, where the
versions are (pyenv's, rbenv's, nodenv's ~/.X/shims beside ~/.X/versions, asdf's beside
installs/); a script needs its interpreter (the `#!` line, `#!/usr/bin/env node` looked up on
the command's PATH). So a program's folder stands for:
- a venv's or a conda environment's root, for its bin/ (pyvenv.cfg, conda-meta/);
- a prefix, for its bin/ beside a lib/: the prefix whole (the toolchain's own files), except
  ~/.local, which holds every program's data too (~/.local/share, ~/.local/state): there its
  bin/ and lib/ only;
- a version manager's root, for its shims/ beside versions/ or installs/;
- rustup's proxies' folder (~/.cargo/bin, holding `rustup`) and the toolchains in ~/.rustup;
- otherwise the folder itself.
Never a root the sandbox empties (the home, /tmp) nor `/`: a program there gets its own folder
only. Whether a folder may be shown at all (it must hold no hidden place) is for
visible_environment.py to judge.
"""

from __future__ import annotations

import filecmp
import os
import shutil
from collections.abc import Iterable, Mapping
from pathlib import Path

SHEBANG_BYTES = 256  # the kernel reads no more of a `#!` line either
VERSION_FOLDERS = ("versions", "installs")  # pyenv, rbenv, nodenv; asdf
MAX_VENV_PROGRAMS = 500  # a venv's bin/ looked through for its interpreter, no further


def installation_folders(folder: Path, home: Path | None, roots: Iterable[Path]) -> list[Path]:
    """What to show for a program lying in `folder` (a real path): see the module's rules.
    `roots`: folders the sandbox empties, never shown whole as a prefix."""
    never = {Path("/"), *roots, *(() if home is None else (home,))}
    parent = folder.parent
    if parent in never:
        return [folder]
    if folder.name == "bin":
        if (parent / "pyvenv.cfg").is_file() or (parent / "conda-meta").is_dir():
            return [parent]
        if (parent / "lib").is_dir():
            if home is not None and parent == home / ".local":
                return [folder, parent / "lib"]
            return [parent]
    if folder.name == "shims" and any((parent / name).is_dir() for name in VERSION_FOLDERS):
        return [parent]
    if (folder / "rustup").is_file() and home is not None and (home / ".rustup").is_dir():
        # rustup's proxies (~/.cargo/bin/cargo, rustc) run the toolchains in ~/.rustup; the
        # rest of ~/.cargo holds crates.io's token and the registry's cache.
        return [folder, home / ".rustup"]
    return [folder]


def venv_base(root: Path) -> Path | None:
    """The real folder of the interpreter a venv was made from (pyvenv.cfg's `home`), which the
    venv's python runs: its link leads there and its standard library lies beside it.

    Only when the venv's interpreter is that folder's (a link to it, or a copy): pyvenv.cfg is
    a text file anyone who writes in the venv's folder writes, the model too in the project,
    and `home = ~/.kaggle` would otherwise have the sandbox show a token folder no list names.
    Whoever cannot read that folder cannot copy an interpreter out of it either."""
    try:
        text = (root / "pyvenv.cfg").read_text(encoding="utf-8", errors="replace")
    except OSError:
        return None
    for line in text.splitlines()[:50]:
        key, _, value = line.partition("=")
        if key.strip() == "home" and os.path.isabs(value.strip()):
            folder = Path(os.path.realpath(value.strip()))
            return folder if folder.is_dir() and _made_from(root, folder) else None
    return None


def _made_from(root: Path, base: Path) -> bool:
    """Whether an executable of the venv's bin/ is the one of the same name in `base`: the
    same file (the venv's link leads there) or an equal copy (`venv --copies`)."""
    try:
        names = sorted(os.listdir(root / "bin"))[:MAX_VENV_PROGRAMS]
    except OSError:
        return False
    for name in names:
        own, theirs = root / "bin" / name, base / name
        if not (own.is_file() and os.access(own, os.X_OK) and theirs.is_file()):
            continue
        try:
            if os.path.samefile(own, theirs) or filecmp.cmp(own, theirs, shallow=False):
                return True
        except OSError:
            continue
    return False


def interpreter_of(program: Path, environment: Mapping[str, str]) -> Path | None:
    """The interpreter a script's `#!` line names, found as the kernel and `env` would find it
    (an absolute path; `env NAME` on the command's PATH), or None (no such line, not found)."""
    try:
        with open(program, "rb") as file:
            head = file.read(SHEBANG_BYTES)
    except OSError:
        return None
    if not head.startswith(b"#!"):
        return None
    words = head[2:].split(b"\n", 1)[0].decode("utf-8", "replace").split()
    if not words or not os.path.isabs(words[0]):
        return None
    if os.path.basename(words[0]) != "env":
        return Path(words[0]) if os.path.isfile(words[0]) else None
    names = [word for word in words[1:] if not word.startswith("-") and "=" not in word]
    if not names:
        return None
    found = shutil.which(names[0], path=environment.get("PATH", os.defpath))
    return None if found is None else Path(found)
