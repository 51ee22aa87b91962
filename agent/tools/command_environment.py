"""What a program run by run_command starts with: an environment without secrets, and how its
name is found and shown.

The agent's own environment holds the model's API key and often other tokens; a command
inherits none of it. Only names that say where things are and how text is written pass
(PATH, HOME, the locale...); the rest is dropped, so nothing the model runs can print a key
into its own context. Output goes to the model, never to a terminal: colours and pagers off.
"""

from __future__ import annotations

import os
import shlex
import shutil
from collections.abc import Mapping, Sequence
from pathlib import Path

KEPT_NAMES = frozenset(
    {"PATH", "HOME", "USER", "LOGNAME", "LANG", "LANGUAGE", "TZ", "VIRTUAL_ENV", "CONDA_PREFIX"}
)
SET_FOR_COMMANDS = {
    "TERM": "dumb",
    "NO_COLOR": "1",
    "PAGER": "cat",
    "GIT_PAGER": "cat",
    "GIT_TERMINAL_PROMPT": "0",  # git asks for a password on the terminal otherwise
}
DEFAULT_PATH = "/usr/local/bin:/usr/bin:/bin"


def command_environment(source: Mapping[str, str], *, private_tmp: bool) -> dict[str, str]:
    """The environment a command gets from the agent's `source` environment."""
    kept = {
        name: value
        for name, value in source.items()
        if name in KEPT_NAMES or name.startswith("LC_")
    }
    kept["PATH"] = _absolute_path(kept.get("PATH", DEFAULT_PATH))
    kept.update(SET_FOR_COMMANDS)
    if private_tmp:
        kept["TMPDIR"] = "/tmp"  # noqa: S108 (the sandbox's own, private and empty)
    elif "TMPDIR" in source:
        kept["TMPDIR"] = source["TMPDIR"]
    return kept


def _absolute_path(value: str) -> str:
    """PATH without its relative entries ("." or an empty one): the approval looks a program up
    from the agent's folder, but the command would look it up again from its own, where a
    repository can leave a program of the same name; absolute entries mean the same in both."""
    entries = [entry for entry in value.split(os.pathsep) if os.path.isabs(entry)]
    return os.pathsep.join(entries) or DEFAULT_PATH


def find_program(name: str, cwd: Path, environment: Mapping[str, str]) -> Path | None:
    """The file `name` runs: looked up on the command's PATH, or, with a slash, from `cwd`."""
    if "/" in name:
        path = cwd / name
        return path if path.is_file() and os.access(path, os.X_OK) else None
    found = shutil.which(name, path=environment.get("PATH", DEFAULT_PATH))
    return None if found is None else Path(found)


def shown_argv(argv: Sequence[str]) -> str:
    """The command line as a person reads it: each argument quoted as a POSIX shell would need
    it, and anything unprintable (escapes, line breaks, invisible or direction controls)
    written as a visible escape in $'...' quoting, so what is shown is all that runs."""
    return " ".join(_shown_word(word) for word in argv)


def _shown_word(word: str) -> str:
    if word.isprintable():
        return shlex.quote(word)
    escaped = []
    for char in word:
        if char in "\\'":
            escaped.append("\\" + char)
        elif char.isprintable():
            escaped.append(char)
        elif char in _NAMED:
            escaped.append(_NAMED[char])
        elif ord(char) < 0x100:
            escaped.append(f"\\x{ord(char):02x}")
        else:
            escaped.append(f"\\u{ord(char):04x}" if ord(char) < 0x10000 else f"\\U{ord(char):08x}")
    return "$'" + "".join(escaped) + "'"


_NAMED = {"\n": "\\n", "\t": "\\t", "\r": "\\r", "\x1b": "\\e"}
