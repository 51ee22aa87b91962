"""The content of a program file, as trust records it: a program replaced after a yes (a
`git pull` rewriting `./tool.sh`) asks again, though its path is the same.

For a command tool whose program is an interpreter (`python probe.py`, `node tool.js`,
`bash run.sh`), the script it runs is covered too: the first literal element of the command
line before any placeholder that names a regular file. A stdio server's script (`python
server.py`) is not. Regular files up to MAX_HASHED_BYTES are hashed (SHA-256); a larger one
is recorded by size and modification time, so any rewrite still shows.
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
        return f"size:{info.st_size}:mtime:{info.st_mtime_ns}"
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
    if program is None or not _INTERPRETER.fullmatch(os.path.basename(program)):
        return None
    for element in literal:
        if element.startswith("-"):
            continue
        candidate = os.path.abspath(os.path.join(cwd, element))  # an absolute one stays
        if os.path.isfile(candidate):
            return candidate
    return None


def tool_content(program: str | None, script: str | None) -> str | None:
    """What trust records of a tool's files: the program's digest, and its script's."""
    digest = program_digest(program)
    if script is None:
        return digest
    return f"{digest}{SCRIPT_MARK}{script} {program_digest(script)}"
