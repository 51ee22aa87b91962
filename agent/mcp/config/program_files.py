"""The content of a program file, as trust records it: a program replaced after a yes (a
`git pull` rewriting `./tool.sh`) asks again, though its path is the same.

When the program is an interpreter (`python probe.py`, `node build/index.js`, `bash run.sh`,
`python -m pkg.mod`), the script it runs is covered too, for a command tool and for a stdio
server alike: interpreter_scripts.py finds it as the interpreter would. Regular files up to
MAX_HASHED_BYTES are hashed (SHA-256), read through the descriptor that was checked to be a
regular file (a link swapped meanwhile cannot make us hash another file, nor a FIFO or a
device hang us); a larger one is recorded by its size, modification and change times and
inode, so any rewrite still shows.
"""

from __future__ import annotations

import hashlib
import os
import stat
from collections.abc import Sequence

from agent.mcp.config.interpreter_scripts import find_script

MAX_HASHED_BYTES = 256 * 1024 * 1024
_CHUNK = 1024 * 1024
_MAX_DIGESTS = 256
# (device, inode, size, mtime, ctime) of a file version -> its digest.
_DIGESTS: dict[tuple[int, int, int, int, int], str] = {}
# In a tool's recorded content: "<program digest> script <path> <script digest>".
SCRIPT_MARK = " script "
# Before a script's digest that covers the files run before it too (tool_content).
PRELOADS_MARK = "with-preloads:"


def program_digest(path: str | None) -> str | None:
    """A digest of the file at `path` ("sha256:..."), or None when there is no such file."""
    if path is None:
        return None
    try:
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | os.O_CLOEXEC | os.O_NOCTTY)
    except OSError:
        return None
    try:
        return _digest_of(fd)
    except OSError:
        return None
    finally:
        os.close(fd)


def file_problem(path: str) -> str | None:
    """Why the file at `path` cannot be hashed ("is missing", "is not a regular file",
    "cannot be read (Permission denied)"), or None when it can."""
    try:
        info = os.stat(path)
    except FileNotFoundError:
        return "is missing"
    except OSError as error:
        return f"cannot be read ({error.strerror})"
    if not stat.S_ISREG(info.st_mode):
        return "is not a regular file"
    if not os.access(path, os.R_OK):
        return "cannot be read (Permission denied)"
    return None


def _digest_of(fd: int) -> str | None:
    info = os.fstat(fd)
    if not stat.S_ISREG(info.st_mode):
        return None
    identity = (info.st_dev, info.st_ino, info.st_size, info.st_mtime_ns, info.st_ctime_ns)
    if info.st_size > MAX_HASHED_BYTES:
        # `touch -r` puts the mtime back after a same-size rewrite; the change time and the
        # inode (a rename over it) cannot be put back.
        return (
            f"size:{info.st_size}:mtime:{info.st_mtime_ns}:ctime:{info.st_ctime_ns}"
            f":inode:{info.st_dev}:{info.st_ino}"
        )
    # One hash per file version per process: `agent mcp list` judges every server, and each
    # start checks its files again.
    known = _DIGESTS.get(identity)
    if known is not None:
        return known
    hasher = hashlib.sha256()
    os.set_blocking(fd, True)
    while chunk := os.read(fd, _CHUNK):
        hasher.update(chunk)
    digest = "sha256:" + hasher.hexdigest()
    if len(_DIGESTS) >= _MAX_DIGESTS:
        _DIGESTS.pop(next(iter(_DIGESTS)))
    _DIGESTS[identity] = digest
    return digest


def interpreter_script(program: str | None, literal: Sequence[str], cwd: str) -> str | None:
    """The script an interpreter `program` runs given the `literal` elements (those before
    any placeholder), as an absolute path, found as the interpreter would
    (interpreter_scripts.py); None when it runs none. A missing one is still named: its
    appearing later asks again."""
    script = find_script(program, literal, cwd)
    return None if script is None else script.path


def tool_content(
    program: str | None, script: str | None, preloads: Sequence[str] = ()
) -> str | None:
    """What trust records of a tool's files: the program's digest, and its script's; with
    files run before the script (`node -r ./pre.js`), one digest of the script's and theirs
    (PRELOADS_MARK before it), so a change to either asks again."""
    digest = program_digest(program)
    if script is None:
        return digest
    script_digest = program_digest(script)
    if preloads:
        files = [f"{path} {program_digest(path)}" for path in (script, *preloads)]
        combined = hashlib.sha256("\n".join(files).encode("utf-8", "surrogateescape"))
        script_digest = f"{PRELOADS_MARK}sha256:{combined.hexdigest()}"
    return f"{digest}{SCRIPT_MARK}{script} {script_digest}"
