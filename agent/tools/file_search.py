"""`search_files`: the lines of project files that match a regular expression, grep-like.

Read-only and inside list_files' fence, so it asks nobody (like read_file). The search runs in
a child Python process (agent.tools.file_search_worker) started like any program of ours
(agent.processes.runner: no shell, its own process group, killed at the time limit and on
Ctrl-C): the pattern is the model's, and one that backtracks without end must not hold the
agent. The child's `-I` keeps the project's files (a hostile `agent/` package in it) and the
environment out of what it imports; `-S` skips site-packages, which it does not need (agent's
own folder is put first on its path), and starts sooner.

The arguments are checked here, before anything starts: a bad one is an error naming it.
"""

from __future__ import annotations

import json
import math
import re
import sys
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from agent.messages import ToolResult
from agent.processes.runner import CommandOutcome, run_command
from agent.text import plural
from agent.tools.base import ToolSpec
from agent.tools.containment import OWN_FOLDER_REFUSAL, within
from agent.tools.credential_files import KEY_SCAN_BYTES, NOT_LISTED, credential_folder, refusal
from agent.tools.walk_rules import DEFAULT_GLOB

SEARCH_DEFAULT_LIMIT = 200
SEARCH_MAX_LIMIT = 2000
SEARCH_MAX_VISITED = 200_000  # files looked at before giving up, as list_files
SEARCH_SECONDS = 20.0
SEARCH_MAX_BYTES = 256 * 1024 * 1024  # read in all before giving up
# Of a bigger file only the start is searched: all of it scanned for a key before a line shows.
SEARCH_FILE_BYTES = KEY_SCAN_BYTES
ANSWER_CHARS = 64_000  # the lines shown, about 16k tokens
# What the child may write: the lines within ANSWER_CHARS as JSON, whose escapes of characters
# past ASCII take up to 12 bytes each, and the tally; far below, nothing is ever cut.
OUTPUT_BYTES = 16 * 1024 * 1024
MAX_CONTEXT = 5
MAX_PATTERN_CHARS = 1000
MAX_GLOB_CHARS = 1000
_AGENT_ROOT = str(Path(__file__).resolve().parents[2])  # the folder holding the agent package
_PYTHON = (sys.executable, "-I", "-S", "-X", "utf8")
_WORKER = (
    "import sys; sys.path.insert(0, sys.argv[1]); "
    "from agent.tools.file_search_worker import main; main(sys.argv[2])"
)
# Characters that would make a path read as two lines or another path:line; such a path is
# given as a JSON string.
_UNUSUAL_PATH = re.compile(r'[\x00-\x1f\x7f-\x9f\ud800-\udfff:]|^"')

SPEC = ToolSpec(
    name="search_files",
    description=(
        "Search the text files of the project for lines matching a Python regular "
        "expression, like grep -rn. Answers `path:line: text` per matching line (with "
        "context, `path-line- text` for the lines around, `--` between groups), sorted by "
        "path, then how many matches and files. Skips .git, node_modules, virtualenvs, "
        "caches, binary files and credential files; links are not followed. Use `glob` "
        "(as list_files: '**/*.py', 'src/*') to narrow it, `files_only` for just the paths."
    ),
    parameters={
        "type": "object",
        "properties": {
            "pattern": {
                "type": "string",
                "minLength": 1,
                "maxLength": MAX_PATTERN_CHARS,
                "description": "Python regular expression, matched against each line",
            },
            "glob": {
                "type": "string",
                "maxLength": MAX_GLOB_CHARS,
                "description": f"which files, as list_files; default '{DEFAULT_GLOB}'",
            },
            "ignore_case": {"type": "boolean", "description": "default false"},
            "context": {
                "type": "integer",
                "minimum": 0,
                "maximum": MAX_CONTEXT,
                "description": "lines shown before and after each match; default 0",
            },
            "files_only": {
                "type": "boolean",
                "description": "only the paths of the files with a match; default false",
            },
            "limit": {
                "type": "integer",
                "minimum": 1,
                "maximum": SEARCH_MAX_LIMIT,
                "description": (
                    f"matching lines (or files) shown at most; default {SEARCH_DEFAULT_LIMIT}"
                ),
            },
        },
        "required": ["pattern"],
        "additionalProperties": False,
    },
    requires_approval=False,
    changes_nothing=True,
    source="built-in",
)


@dataclass(frozen=True)
class SearchArguments:
    pattern: str
    glob: str = DEFAULT_GLOB
    ignore_case: bool = False
    context: int = 0
    files_only: bool = False
    limit: int = SEARCH_DEFAULT_LIMIT


def search_arguments(arguments: dict[str, Any]) -> SearchArguments:
    """The arguments checked, or ValueError naming the first bad one and what it takes."""
    unknown = sorted(set(arguments) - set(SPEC.parameters["properties"]))
    if unknown:
        raise ValueError(f"unknown argument {unknown[0]!r}: search_files takes {_NAMES}")
    pattern = arguments.get("pattern")
    if not isinstance(pattern, str) or not pattern:
        raise ValueError("pattern must be a non-empty string: a Python regular expression")
    if len(pattern) > MAX_PATTERN_CHARS:
        raise ValueError(f"pattern is longer than {MAX_PATTERN_CHARS} characters")
    ignore_case = _flag(arguments, "ignore_case")
    try:
        re.compile(pattern, re.IGNORECASE if ignore_case else 0)
    except re.error as error:
        raise ValueError(f"pattern is not a valid Python regular expression: {error}") from None
    glob = arguments.get("glob")
    if glob is not None and not isinstance(glob, str):
        raise ValueError("glob must be a string such as '**/*.py'")
    if glob is not None and len(glob) > MAX_GLOB_CHARS:
        raise ValueError(f"glob is longer than {MAX_GLOB_CHARS} characters")
    return SearchArguments(
        pattern=pattern,
        glob=glob or DEFAULT_GLOB,
        ignore_case=ignore_case,
        context=_whole(arguments, "context", 0, 0, MAX_CONTEXT),
        files_only=_flag(arguments, "files_only"),
        limit=_whole(arguments, "limit", SEARCH_DEFAULT_LIMIT, 1, SEARCH_MAX_LIMIT),
    )


_NAMES = "pattern, glob, ignore_case, context, files_only and limit"


def _flag(arguments: dict[str, Any], name: str) -> bool:
    value = arguments.get(name, False)
    if not isinstance(value, bool):
        raise ValueError(f"{name} must be true or false, not {json.dumps(value)[:40]}")
    return value


def _whole(arguments: dict[str, Any], name: str, default: int, low: int, high: int) -> int:
    value = arguments.get(name, default)
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)  # JSON Schema counts 3.0 as an integer
    if isinstance(value, bool) or not isinstance(value, int) or not low <= value <= high:
        shown = json.dumps(value)[:40] if _jsonable(value) else repr(value)[:40]
        raise ValueError(f"{name} must be a whole number from {low} to {high}, not {shown}")
    return value


def _jsonable(value: object) -> bool:
    return not (isinstance(value, float) and not math.isfinite(value))


@dataclass(frozen=True)
class SearchFiles:
    """Search the project's text files with a regular expression, in a child process."""

    project: Path
    private: tuple[Path, ...] = ()
    seconds: float = SEARCH_SECONDS  # the whole search; the child stops itself a little before

    @property
    def spec(self) -> ToolSpec:
        return SPEC

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        try:
            asked = search_arguments(arguments)
        except ValueError as error:
            return ToolResult(str(error), is_error=True)
        if any(within(self.project, folder) for folder in self.private):
            return ToolResult(f"the project directory {OWN_FOLDER_REFUSAL}", is_error=True)
        inside = credential_folder(self.project.parts)
        if inside is not None:
            return ToolResult(refusal("the project directory", inside), is_error=True)
        outcome = await run_command(
            [*_PYTHON, "-c", _WORKER, _AGENT_ROOT, self._request(asked)],
            cwd="/",
            env={},
            timeout=self.seconds,
            cap=OUTPUT_BYTES,
        )
        return answer(asked, outcome, self.seconds)

    def _request(self, asked: SearchArguments) -> str:
        margin = min(2.0, self.seconds / 4)  # time to say where it stopped before being killed
        return json.dumps(
            {
                **asked.__dict__,
                "root": str(self.project),
                "private": [str(folder) for folder in self.private],
                # Its environment is empty: the home whose credential files a hard link may be.
                "home": str(Path.home()),
                "seconds": self.seconds - margin,
                "max_bytes": SEARCH_MAX_BYTES,
                "file_bytes": SEARCH_FILE_BYTES,
                "max_visited": SEARCH_MAX_VISITED,
                "answer_chars": ANSWER_CHARS,
            }
        )


def answer(asked: SearchArguments, outcome: CommandOutcome, seconds: float) -> ToolResult:
    """What the model is told: the lines found, then notes on what was left out and why."""
    files: list[dict[str, Any]] = []
    tally: dict[str, Any] | None = None
    for line in outcome.stdout.splitlines():
        try:
            record = json.loads(line)
        except ValueError:  # the last line, cut by the kill
            continue
        if "done" in record:
            tally = record["done"]
        elif "file" in record:
            files.append(record)
    if tally is None and not outcome.timed_out:
        problem = (outcome.stderr.strip().splitlines() or ["it ended without an answer"])[-1]
        return ToolResult(f"the search failed: {problem}", is_error=True)
    shown = _shown_lines(asked, files)
    if tally is None:
        stop = (
            f"[stopped: the search was ended at the time limit ({seconds:g} s); the lines "
            "above were found before that]"
        )
        return ToolResult("\n".join([*shown, stop]))
    return ToolResult("\n".join([*shown, *_notes(asked, tally, seconds)]))


def _shown_lines(asked: SearchArguments, files: list[dict[str, Any]]) -> list[str]:
    out: list[str] = []
    for record in files:
        path = _path(record["file"])
        if asked.files_only:
            out.append(path)
            continue
        if asked.context and out:
            out.append("--")
        for number, kind, text in record["lines"]:
            out.append("--" if kind == "--" else f"{path}{kind}{number}{kind} {text}")
    return out


def _path(relative: str) -> str:
    """The path as the model reads it: as it is, or a JSON string if it holds a line break,
    a control character, a colon or bytes that are not UTF-8."""
    return json.dumps(relative) if _UNUSUAL_PATH.search(relative) else relative


def _notes(asked: SearchArguments, tally: dict[str, Any], seconds: float) -> list[str]:
    notes: list[str] = []
    matches, matched_files, shown = tally["matches"], tally["matched_files"], tally["shown"]
    searched = plural(tally["searched"], "file")
    if not matches:
        notes.append(f"no matches for {asked.pattern!r} in {searched} searched")
    else:
        found = plural(matches, "matching line")
        notes.append(f"[{found} in {plural(matched_files, 'file')}; {searched} searched]")
    total = matched_files if asked.files_only else matches
    if shown < total:
        what = "files" if asked.files_only else "matching lines"
        if shown < asked.limit:  # the answer's size stopped it first
            why = f" (the answer is kept under {ANSWER_CHARS:,} characters)"
            room = ""
        else:
            why = ""
            room = (
                f"raise limit (up to {SEARCH_MAX_LIMIT:,}) or " if shown < SEARCH_MAX_LIMIT else ""
            )
        notes.append(
            f"[showing the first {shown:,} {what} of {total:,}{why}: {room}narrow the pattern "
            "or glob]"
        )
    notes += _left_out(tally)
    notes += _stop_note(tally, seconds)
    return notes


def _left_out(tally: dict[str, Any]) -> list[str]:
    notes = []
    counted = (  # (tally key, one, many, what happened to them)
        ("binary", "binary file", "binary files", "not searched"),
        ("keys", "file holding a private key", "files holding a private key", "not searched"),
        ("links", "link", "links", "not followed"),
        ("unreadable", "file or folder", "files or folders", "that could not be opened"),
        ("too_deep", "folder", "folders", "deeper than 100 levels not searched"),
    )
    for key, one, many, what in counted:
        if tally[key]:
            notes.append(f"[{plural(tally[key], one, many)} {what}]")
    if tally["cut_count"]:
        size = SEARCH_FILE_BYTES // (1024 * 1024)
        names = ", ".join(_path(name) for name in tally["cut_files"])
        more = tally["cut_count"] - len(tally["cut_files"])
        names += f" and {more:,} more" if more else ""
        notes.append(f"[only the first {size} MB of each of these was searched: {names}]")
    for name in tally["own"]:
        notes.append(f"[agent's own settings and data folder {_path(name)} is not searched]")
    if tally["credentials"]:
        notes.append(NOT_LISTED)
    return notes


def _stop_note(tally: dict[str, Any], seconds: float) -> list[str]:
    stopped = tally["stopped"]
    where = f" while searching {_path(tally['current'])}" if tally["current"] else ""
    if stopped == "memory":
        return [
            f"[stopped: the search ran out of memory{where}; the lines above were found "
            "before that; a simpler pattern helps]"
        ]
    if stopped == "time":
        return [
            f"[stopped at the time limit ({seconds:g} s){where}: the lines above were found "
            "before that; a pattern that backtracks a lot (nested repeats like (a+)+) or a "
            "wide glob is slow]"
        ]
    if stopped == "bytes":
        size = SEARCH_MAX_BYTES // (1024 * 1024)
        return [f"[stopped after reading {size} MB: narrow the glob to search the rest]"]
    if stopped == "files":
        return [
            f"[stopped after looking at {SEARCH_MAX_VISITED:,} files: narrow the glob to "
            "search the rest]"
        ]
    return []
