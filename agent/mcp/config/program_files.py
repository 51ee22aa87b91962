"""The content of a program file, as trust records it: a program replaced after a yes (a
`git pull` rewriting `./tool.sh`) asks again, though its path is the same.

For a command tool whose program is an interpreter (`python probe.py`, `node tool.js`,
`bash run.sh`), the script it runs is covered too: the first literal element of the command
line before any placeholder that names a regular file. The interpreter is known by its name as
written and by the file a link leads to (`./py` -> python3.12), and through `env`
(`/usr/bin/env python3 tool.py`) by the program env runs. A stdio server's script (`python
server.py`) is not. Regular files up to MAX_HASHED_BYTES are hashed (SHA-256); a larger one
is recorded by its size, modification and change times and inode, so any rewrite still shows.
"""

from __future__ import annotations

import hashlib
import os
import re
import stat
from collections.abc import Sequence
from functools import lru_cache

MAX_HASHED_BYTES = 256 * 1024 * 1024
_CHUNK = 1024 * 1024
# Programs that run a script named in their arguments (python3.12, node, bash, uv run, ...).
_INTERPRETER = re.compile(
    r"(python|pypy|node|nodejs|bun|deno|bash|sh|dash|zsh|ksh|fish|ruby|perl|php|lua|luajit"
    r"|Rscript|pwsh|tclsh|uv)[0-9.]*"
)
# env's options that take the next element as their value (GNU coreutils, BSD).
_ENV_OPTIONS_WITH_VALUE = frozenset(
    {"-u", "--unset", "-C", "--chdir", "-S", "--split-string", "-P"}
)
# In a tool's recorded content: "<program digest> script <path> <script digest>".
SCRIPT_MARK = " script "


def program_digest(path: str | None) -> str | None:
    """A digest of the file at `path` ("sha256:..."), or None when there is no such file."""
    if path is None:
        return None
    try:
        info = os.stat(path)
    except OSError:
        return None
    if not stat.S_ISREG(info.st_mode):
        return None
    if info.st_size > MAX_HASHED_BYTES:
        # `touch -r` puts the mtime back after a same-size rewrite; the change time and the
        # inode (a rename over it) cannot be put back.
        return (
            f"size:{info.st_size}:mtime:{info.st_mtime_ns}:ctime:{info.st_ctime_ns}"
            f":inode:{info.st_dev}:{info.st_ino}"
        )
    # One hash per file version per process: `agent mcp list` judges every server.
    return _digest(path, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)


@lru_cache(maxsize=256)
def _digest(path: str, _inode: int, _size: int, _mtime: int, _ctime: int) -> str | None:
    hasher = hashlib.sha256()
    try:
        with open(path, "rb") as handle:
            while chunk := handle.read(_CHUNK):
                hasher.update(chunk)
    except OSError:
        return None
    return "sha256:" + hasher.hexdigest()


def interpreter_script(program: str | None, literal: Sequence[str], cwd: str) -> str | None:
    """The script an interpreter `program` runs: the first of the `literal` elements (those
    before any placeholder) naming a regular file, as an absolute path; else None."""
    if program is None:
        return None
    names = {os.path.basename(program), os.path.basename(os.path.realpath(program))}
    elements = list(literal)
    if "env" in names:  # `env [-u NAME] [NAME=value] python3 tool.py` runs its first word
        elements = _after_env(elements)
        if not elements:
            return None
        names, elements = {os.path.basename(elements[0])}, elements[1:]
    # By the name as written and the file it leads to: `./py` linked to python3.12 is python.
    if not any(_INTERPRETER.fullmatch(name) for name in names):
        return None
    for element in elements:
        if element.startswith("-"):
            continue
        candidate = os.path.abspath(os.path.join(cwd, element))  # an absolute one stays
        if os.path.isfile(candidate):
            return candidate
    return None


def _after_env(elements: Sequence[str]) -> list[str]:
    """What `env` runs: its elements after its options and NAME=value assignments."""
    rest = list(elements)
    while rest and (rest[0].startswith("-") or "=" in rest[0]):
        option = rest.pop(0)
        if option in _ENV_OPTIONS_WITH_VALUE and rest:
            rest.pop(0)
    return rest


def tool_content(program: str | None, script: str | None) -> str | None:
    """What trust records of a tool's files: the program's digest, and its script's."""
    digest = program_digest(program)
    if script is None:
        return digest
    return f"{digest}{SCRIPT_MARK}{script} {program_digest(script)}"
