"""search_files' child process: walks the project and searches its files with a regular
expression, writing what it finds as JSON lines on stdout.

Apart from the agent because the pattern is the model's: a pattern that backtracks without
end (`(a+)+$` on a long line of a's) holds the interpreter, and in a process of its own it can
be stopped. The worker stops itself at its deadline (SIGALRM: `re` checks for signals while it
matches) and says where it was; the agent kills it a little later whatever it is doing, and on
Ctrl-C. A memory limit turns backtracking state that grows without end into a stop too. Each
file's matches are written as soon as the file is done, so what was found before a stop is
kept.

The walk is list_files' (agent.tools.walk_rules) and its fence: folders are opened one at a time
below the project's descriptor and never through a link (a folder swapped for a link during
the walk leads nowhere), links are not followed at all, only regular files are opened and
without blocking (a FIFO, a device), agent's own folders and credential files and folders by
name are left out, and so is a file holding a private key (agent.tools.credential_files): it
is judged before it is searched, so no answer (nor its time) depends on what the key holds. A
hard link to a credential file of the home or of agent's folders is left out as one by name
(agent.tools.credential_links).

Only the standard library, agent's credential rules and agent.text are imported: it starts in
a few tens of milliseconds.
"""

from __future__ import annotations

import contextlib
import json
import os
import re
import resource
import signal
import sys
import time
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

from agent.text import plural
from agent.tools.credential_files import (
    CREDENTIAL_PATHS,
    credential_folder,
    credential_rule,
    private_key_in,
)
from agent.tools.credential_links import CredentialLinks
from agent.tools.reading import LinkedCredentialError, UnreadableFileError, read_regular
from agent.tools.walk_rules import SKIPPED_DIRS, matches_glob

SNIFF_BYTES = 64 * 1024  # a NUL in here: a binary file (as read_file judges)
LINE_CHARS = 400  # a longer line is cut, around its first match
_LEAD_CHARS = 80  # kept before the match in a cut line
MAX_DEPTH = 100
_LONGEST_RULE = max(len(path) for path in CREDENTIAL_PATHS)
CUT_FILES_NAMED = 5
# Far more than a search needs (one file of 16 MB, its lines): a pattern whose backtracking
# state grows without end fails with MemoryError here instead of swapping the machine.
MEMORY_BYTES = 2 * 1024 * 1024 * 1024
_DIR_FLAGS = os.O_RDONLY | os.O_DIRECTORY | os.O_NOFOLLOW | os.O_NONBLOCK
# A pattern that can only match within one line matches the whole text too (MULTILINE), so a
# file without a match is passed over with one search. Lookarounds, \A and \Z and flags
# turned off can tell a line from the text: with those, every line is searched on its own.
_LINE_BOUND = re.compile(r"\\[AZz]|\(\?(?!P<|P=|:|#|[aiLmsux]+[):])")


class OutOfTime(Exception):
    """The worker's deadline passed."""


@dataclass
class Tally:
    """What the search met, for the summary the tool turns into notes."""

    searched: int = 0
    visited: int = 0
    bytes_read: int = 0
    matched_files: int = 0
    matches: int = 0
    shown: int = 0
    shown_chars: int = 0
    binary: int = 0
    keys: int = 0
    links: int = 0
    unreadable: int = 0
    too_deep: int = 0
    credentials: bool = False
    own: list[str] = field(default_factory=list)
    cut_files: list[str] = field(default_factory=list)  # the first few, by name
    cut_count: int = 0
    stopped: str | None = None  # "time", "memory", "bytes" or "files"
    current: str | None = None  # the file being searched when it stopped


@dataclass(frozen=True)
class Request:
    root: str
    pattern: str
    ignore_case: bool
    glob: str
    context: int
    files_only: bool
    limit: int
    private: tuple[str, ...]
    home: str
    seconds: float
    max_bytes: int
    file_bytes: int
    max_visited: int
    answer_chars: int


class Search:
    """One search: the walk, each file's matches, and the tally."""

    def __init__(self, request: Request) -> None:
        self.request = request
        flags = re.MULTILINE | (re.IGNORECASE if request.ignore_case else 0)
        self.regex = re.compile(request.pattern, flags)
        self.whole_text_first = _LINE_BOUND.search(request.pattern) is None
        self.tally = Tally()
        self.hidden = {os.path.normpath(folder) for folder in request.private}
        self.links = CredentialLinks(request.private, Path(request.home), request.root)
        # The project's own last folders go before each relative path: started in ~/.config,
        # `gh/hosts.yml` is ~/.config/gh, a credential folder no relative part names.
        self.root_tail = tuple(os.path.normpath(request.root).split("/")[-(_LONGEST_RULE - 1) :])

    def run(self) -> None:
        root_fd = os.open(self.request.root, _DIR_FLAGS)
        try:
            for dir_fd, name, relative in self._files(root_fd, "", 0):
                if not self._visit():
                    break
                if matches_glob(relative, self.request.glob):
                    self.tally.current = relative
                    self._search_file(dir_fd, name, relative)
                    self.tally.current = None
                    if self.tally.stopped:
                        break
        finally:
            os.close(root_fd)

    def _visit(self) -> bool:
        self.tally.visited += 1
        if self.tally.visited > self.request.max_visited:
            self.tally.stopped = "files"
            return False
        return True

    def _files(self, dir_fd: int, prefix: str, depth: int) -> Iterator[tuple[int, str, str]]:
        """(folder descriptor, name, project-relative path) of each file to consider, sorted by
        path; nothing through a link."""
        with os.scandir(dir_fd) as listing:
            entries = sorted(listing, key=lambda entry: entry.name)
        for entry in entries:
            relative = prefix + entry.name
            if entry.is_symlink():
                self.tally.links += 1
            elif entry.is_dir(follow_symlinks=False):
                yield from self._folder(dir_fd, entry.name, relative, depth)
            elif entry.is_file(follow_symlinks=False):
                # Its folders passed credential_folder on the way down: only a rule ending at
                # the file is left, no longer than the longest (`.config/git/credentials`).
                parts = (*self.root_tail, *relative.split("/"))
                if credential_rule(parts[-_LONGEST_RULE:]) is not None:
                    self.tally.credentials = True
                    continue
                yield dir_fd, entry.name, relative
            # anything else (a FIFO, a socket, a device) is not a file to search

    def _folder(
        self, dir_fd: int, name: str, relative: str, depth: int
    ) -> Iterator[tuple[int, str, str]]:
        if name in SKIPPED_DIRS:
            return
        if os.path.join(self.request.root, relative) in self.hidden:
            self.tally.own.append(relative)
            return
        if credential_folder((*self.root_tail, *relative.split("/"))) is not None:
            self.tally.credentials = True
            return
        if depth >= MAX_DEPTH:
            self.tally.too_deep += 1
            return
        try:
            child = os.open(name, _DIR_FLAGS, dir_fd=dir_fd)
        except OSError:  # swapped for a link, or unreadable
            self.tally.unreadable += 1
            return
        try:
            yield from self._files(child, relative + "/", depth + 1)
        finally:
            os.close(child)

    def _search_file(self, dir_fd: int, name: str, relative: str) -> None:
        data = self._read(dir_fd, name, relative)
        if data is None:
            return
        if data.find(b"\0", 0, SNIFF_BYTES) != -1:
            self.tally.binary += 1
            return
        if private_key_in(data):  # before any search: nothing may depend on the key
            self.tally.keys += 1
            return
        self.tally.searched += 1
        text = data.decode("utf-8", errors="replace")
        if "\r" in text:
            text = text.replace("\r\n", "\n")
        # Only the lines that can still be shown are kept; the others are only counted.
        keep = 0 if self.request.files_only else self._room()
        counted = self._matching_lines(text, keep) if self.whole_text_first else None
        if counted is not None and not counted[1]:
            return
        lines = text.split("\n") if keep or counted is None else []
        if lines and lines[-1] == "":
            lines.pop()
        found, total = counted or self._matching_each_line(lines, keep)
        if total:
            self._report(relative, lines, found, total)

    def _room(self) -> int:
        """How many more matching lines (or files) the answer can show."""
        if self.tally.shown_chars >= self.request.answer_chars:
            return 0
        return max(0, self.request.limit - self.tally.shown)

    def _matching_each_line(self, lines: list[str], keep: int) -> tuple[list[Any], int]:
        found: list[tuple[int, int]] = []
        total = 0
        search = self.regex.search
        for index, line in enumerate(lines):
            if (hit := search(line)) is not None:
                total += 1
                if len(found) < keep:
                    found.append((index, hit.start()))
        return found, total

    def _matching_lines(self, text: str, keep: int) -> tuple[list[Any], int] | None:
        """(line index, column of its first match) of the first `keep` lines the pattern
        matches alone, and how many lines match, found in the whole text; None when a match
        spans a line break (then each line is searched on its own).

        For a pattern that cannot tell a line from the text (see _LINE_BOUND), the leftmost
        match from a line's start, if it stays within one line, starts in the first line from
        there that has a match; the search goes on from the next line. One search per matching
        line, and one for a file without any.
        """
        found: list[tuple[int, int]] = []
        total = line = position = start = 0
        end_of_lines = len(text) - (not text or text[-1] == "\n")  # past the last line's start
        while (hit := self.regex.search(text, start)) is not None:
            begin, end = hit.span()
            if text.find("\n", begin, end) != -1:
                return None
            if begin > end_of_lines:  # an empty match after the last line break: no line
                break
            total += 1
            if len(found) < keep:
                line += text.count("\n", position, begin)
                position = begin
                found.append((line, begin - (text.rfind("\n", 0, begin) + 1)))
            start = text.find("\n", end) + 1
            if start == 0:
                break
        return found, total

    def _read(self, dir_fd: int, name: str, relative: str) -> bytes | None:
        room = self.request.max_bytes - self.tally.bytes_read
        if room <= 0:
            self.tally.stopped = "bytes"
            return None
        try:
            data = read_regular(name, dir_fd, min(self.request.file_bytes, room) + 1, self.links)
        except LinkedCredentialError:
            self.tally.credentials = True
            return None
        except (UnreadableFileError, OSError):
            self.tally.unreadable += 1
            return None
        if len(data) > self.request.file_bytes:
            data = data[: self.request.file_bytes]
            self.tally.cut_count += 1
            if len(self.tally.cut_files) < CUT_FILES_NAMED:
                self.tally.cut_files.append(relative)
        elif len(data) > room:
            data = data[:room]
            self.tally.stopped = "bytes"
        self.tally.bytes_read += len(data)
        return data

    def _report(
        self, relative: str, lines: list[str], found: list[tuple[int, int]], total: int
    ) -> None:
        tally, request = self.tally, self.request
        tally.matched_files += 1
        tally.matches += total
        if not self._room():
            return
        if request.files_only:
            tally.shown += 1
            tally.shown_chars += len(relative) + 1
            emit({"file": relative, "count": total})
            return
        out = self._with_context(lines, found)
        # Within the answer's size, one file too (thousands of long lines with context): its
        # lines are kept up to the budget, at least its first match.
        budget = request.answer_chars - tally.shown_chars
        kept = chars = matches = 0
        while kept < len(out) and (chars <= budget or not matches):
            _, kind, text = out[kept]
            chars += len(text) + len(relative) + 8
            matches += kind == ":"
            kept += 1
        out = out[:kept]
        tally.shown += matches
        tally.shown_chars += chars
        emit({"file": relative, "lines": out})

    def _with_context(self, lines: list[str], shown: list[tuple[int, int]]) -> list[Any]:
        """[line number (1-based) or 0 for a gap, ":" match or "-" context, text]."""
        context = self.request.context
        columns = dict(shown)
        wanted: list[int] = []
        for index in columns:
            start = max(0, index - context, wanted[-1] + 1 if wanted else 0)
            wanted.extend(range(start, min(len(lines), index + context + 1)))
        out: list[Any] = []
        for index in wanted:
            if context and out and out[-1][0] != index:  # a gap after the line before
                out.append([0, "--", ""])
            column = columns.get(index)
            text = _cut(lines[index], column or 0)
            out.append([index + 1, "-" if column is None else ":", text])
        return out


def _cut(line: str, column: int) -> str:
    """The line, or LINE_CHARS of it around `column` (a match's start) and what was cut."""
    if len(line) <= LINE_CHARS:
        return line
    start = 0 if column < LINE_CHARS - _LEAD_CHARS else column - _LEAD_CHARS
    shown = line[start : start + LINE_CHARS]
    where = f", shown from column {start + 1:,}" if start else ""
    return f"{shown} [line cut: {plural(len(line), 'character')}{where}]"


def emit(record: dict[str, Any]) -> None:
    """One JSON line, whole: the deadline's signal waits until it is written."""
    line = json.dumps(record, ensure_ascii=True) + "\n"
    signal.pthread_sigmask(signal.SIG_BLOCK, {signal.SIGALRM})
    try:
        sys.stdout.write(line)
        sys.stdout.flush()
    finally:
        signal.pthread_sigmask(signal.SIG_UNBLOCK, {signal.SIGALRM})


def _out_of_time(signum: int, frame: object) -> None:
    raise OutOfTime


def main(encoded: str) -> None:
    """Search as `encoded` (the JSON of a Request) asks; the last line is the tally."""
    fields = json.loads(encoded)
    request = Request(**{**fields, "private": tuple(fields["private"])})
    search = Search(request)
    with contextlib.suppress(ValueError, OSError):  # a lower hard limit is kept as it is
        resource.setrlimit(resource.RLIMIT_AS, (MEMORY_BYTES, MEMORY_BYTES))
    signal.signal(signal.SIGALRM, _out_of_time)
    signal.setitimer(signal.ITIMER_REAL, request.seconds)
    started = time.monotonic()
    try:
        search.run()
    except OutOfTime:
        search.tally.stopped = "time"
    except MemoryError:
        search.tally.stopped = "memory"
    finally:
        signal.setitimer(signal.ITIMER_REAL, 0)
    tally = search.tally.__dict__ | {"elapsed": time.monotonic() - started}
    emit({"done": tally})
