"""search_files: grep-like lines of the project's text files, sorted, bounded, arguments checked
before anything runs. Each call runs the real child process."""

from __future__ import annotations

import json
import os
import subprocess
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.messages import ToolResult
from agent.processes.runner import CommandOutcome
from agent.tools import file_search, file_search_worker
from agent.tools.builtin import BuiltinToolset
from agent.tools.file_search import (
    ANSWER_CHARS,
    SEARCH_DEFAULT_LIMIT,
    SEARCH_FILE_BYTES,
    SEARCH_MAX_LIMIT,
    SearchArguments,
    SearchFiles,
    answer,
)
from agent.tools.file_search_worker import LINE_CHARS
from tests.security.inputs_helpers import agent_env, one_shot, tool_results


def search(project: Path, **arguments: object) -> ToolResult:
    tools = {tool.spec.name: tool for tool in BuiltinToolset(project, private=()).tools()}
    return anyio.run(tools["search_files"].run, dict(arguments))


def write(root: Path, relative: str, content: str | bytes) -> Path:
    path = root / relative
    path.parent.mkdir(parents=True, exist_ok=True)
    if isinstance(content, bytes):
        path.write_bytes(content)
    else:
        path.write_text(content)
    return path


@pytest.fixture
def project(tmp_path: Path) -> Path:
    root = tmp_path / "project"
    write(root, "src/pkg/a.py", "import os\n\ndef load_config():\n    return os.environ\n")
    write(root, "src/b.py", "from pkg.a import load_config\nload_config()\n")
    write(root, "src/z.py", "nothing here\n")
    write(root, "README.md", "# Project\nCall load_config() first.\n")
    write(root, ".git/config", "load_config in git\n")
    write(root, "node_modules/x/index.js", "load_config\n")
    write(root, ".venv/lib/site.py", "load_config\n")
    write(root, "__pycache__/a.pyc", "load_config\n")
    return root


def test_it_is_offered_after_list_files_and_needs_no_approval(project: Path) -> None:
    specs = [tool.spec for tool in BuiltinToolset(project).tools()]
    names = [spec.name for spec in specs]
    assert names.index("search_files") == names.index("list_files") + 1
    spec = specs[names.index("search_files")]
    assert spec.requires_approval is False and spec.source == "built-in"
    assert spec.parameters["required"] == ["pattern"]
    assert spec.parameters["properties"]["limit"]["maximum"] == SEARCH_MAX_LIMIT


def test_matches_come_as_path_line_text_sorted_by_path_with_a_summary(project: Path) -> None:
    result = search(project, pattern=r"load_config\(")
    assert result == ToolResult(
        "README.md:2: Call load_config() first.\n"
        "src/b.py:2: load_config()\n"
        "src/pkg/a.py:3: def load_config():\n"
        "[3 matching lines in 3 files; 4 files searched]"
    )


def test_sorted_by_path_means_a_folder_sits_between_files_by_name(tmp_path: Path) -> None:
    for name in ("b.txt", "a/x.txt", "c.txt", "B/y.txt"):
        write(tmp_path, name, "hit\n")
    lines = search(tmp_path, pattern="hit", files_only=True).text.splitlines()
    assert lines[:4] == ["B/y.txt", "a/x.txt", "b.txt", "c.txt"]


def test_glob_ignore_case_and_files_only(project: Path) -> None:
    assert search(project, pattern="LOAD_CONFIG", glob="**/*.py") == ToolResult(
        "no matches for 'LOAD_CONFIG' in 3 files searched"
    )
    result = search(project, pattern="LOAD_CONFIG", glob="**/*.py", ignore_case=True)
    assert result.text.splitlines() == [
        "src/b.py:1: from pkg.a import load_config",
        "src/b.py:2: load_config()",
        "src/pkg/a.py:3: def load_config():",
        "[3 matching lines in 2 files; 3 files searched]",
    ]
    assert search(project, pattern="load_config", files_only=True).text.splitlines() == [
        "README.md",
        "src/b.py",
        "src/pkg/a.py",
        "[4 matching lines in 3 files; 4 files searched]",
    ]
    assert search(project, pattern="os", glob="src/*").text.startswith("src/pkg/a.py:1: import")


def test_context_lines_are_marked_and_groups_separated(tmp_path: Path) -> None:
    write(tmp_path, "a.txt", "".join(f"line {n}\n" for n in range(1, 21)))
    write(tmp_path, "b.txt", "one\ntwo\n")
    result = search(tmp_path, pattern=r"^line (3|5|15)$|^two", context=1)
    assert result.text.splitlines() == [
        "a.txt-2- line 2",
        "a.txt:3: line 3",
        "a.txt-4- line 4",
        "a.txt:5: line 5",
        "a.txt-6- line 6",
        "--",
        "a.txt-14- line 14",
        "a.txt:15: line 15",
        "a.txt-16- line 16",
        "--",
        "b.txt-1- one",
        "b.txt:2: two",
        "[4 matching lines in 2 files; 2 files searched]",
    ]


def test_the_limit_shows_the_first_matches_and_says_how_many_more(tmp_path: Path) -> None:
    for index in range(3):
        write(tmp_path, f"f{index}.txt", "hit\nhit\n")
    result = search(tmp_path, pattern="hit", limit=3)
    assert result.text.splitlines() == [
        "f0.txt:1: hit",
        "f0.txt:2: hit",
        "f1.txt:1: hit",
        "[6 matching lines in 3 files; 3 files searched]",
        "[showing the first 3 matching lines of 6: raise limit (up to 2,000) or narrow the "
        "pattern or glob]",
    ]
    files = search(tmp_path, pattern="hit", limit=2, files_only=True).text.splitlines()
    assert files[:2] == ["f0.txt", "f1.txt"]
    assert files[-1] == (
        "[showing the first 2 files of 3: raise limit (up to 2,000) or narrow the pattern or glob]"
    )


def test_the_default_limit(tmp_path: Path) -> None:
    write(tmp_path, "many.txt", "hit\n" * (SEARCH_DEFAULT_LIMIT + 5))
    lines = search(tmp_path, pattern="hit").text.splitlines()
    assert len([line for line in lines if line.startswith("many.txt:")]) == SEARCH_DEFAULT_LIMIT
    assert f"of {SEARCH_DEFAULT_LIMIT + 5}" in lines[-1]


def test_a_long_line_is_cut_around_its_match_and_says_so(tmp_path: Path) -> None:
    write(tmp_path, "min.js", "x" * 5000 + "NEEDLE" + "y" * 5000 + "\n")
    write(tmp_path, "short.js", "NEEDLE" + "z" * 1000 + "\n")
    first, second = search(tmp_path, pattern="NEEDLE").text.splitlines()[:2]
    assert first.startswith("min.js:1: " + "x" * 80 + "NEEDLE")
    assert first.endswith("[line cut: 10,006 characters, shown from column 4,921]")
    assert len(first) < LINE_CHARS + 100
    assert second == "short.js:1: NEEDLE" + "z" * (LINE_CHARS - 6) + " [line cut: 1,006 characters]"


def test_binary_files_are_skipped_and_bad_utf8_is_read_with_replacement(tmp_path: Path) -> None:
    write(tmp_path, "image.png", b"\x89PNG\x00\x00needle\n")
    write(tmp_path, "latin1.txt", "caf\xe9 needle\n".encode("latin-1"))
    write(tmp_path, "crlf.txt", b"needle at end\r\nnext\r\n")
    assert search(tmp_path, pattern=r"needle( at end$)?").text.splitlines() == [
        "crlf.txt:1: needle at end",
        "latin1.txt:1: caf\ufffd needle",
        "[2 matching lines in 2 files; 2 files searched]",
        "[1 binary file not searched]",
    ]


def test_lines_are_matched_one_by_one_whatever_the_pattern(tmp_path: Path) -> None:
    """A pattern that could span lines in the whole text matches within a line only, and
    anchors and lookarounds see each line on its own (as grep does)."""
    write(tmp_path, "a.txt", "alpha\nbeta\n")
    assert search(tmp_path, pattern=r"alpha\sbeta").text.startswith("no matches")
    assert search(tmp_path, pattern=r"\Abeta\Z").text.startswith("a.txt:2: beta")
    assert search(tmp_path, pattern=r"(?<!x)beta(?!\n)").text.startswith("a.txt:2: beta")
    assert search(tmp_path, pattern=r"a$").text.splitlines()[:2] == [
        "a.txt:1: alpha",
        "a.txt:2: beta",
    ]


def test_a_file_bigger_than_the_cap_is_searched_at_its_start_and_named(tmp_path: Path) -> None:
    block = b"filler line\n" * (SEARCH_FILE_BYTES // 12 + 1000)
    write(tmp_path, "huge.log", b"first needle\n" + block + b"late needle\n")
    result = search(tmp_path, pattern="needle")
    assert result.text.splitlines() == [
        "huge.log:1: first needle",
        "[1 matching line in 1 file; 1 file searched]",
        "[only the first 16 MB of each of these was searched: huge.log]",
    ]


@pytest.mark.parametrize(
    ("arguments", "error"),
    [
        ({}, "pattern must be a non-empty string: a Python regular expression"),
        ({"pattern": ""}, "pattern must be a non-empty string: a Python regular expression"),
        ({"pattern": 5}, "pattern must be a non-empty string: a Python regular expression"),
        (
            {"pattern": "(unclosed"},
            "pattern is not a valid Python regular expression: missing ), unterminated "
            "subpattern at position 0",
        ),
        ({"pattern": "a" * 1001}, "pattern is longer than 1000 characters"),
        ({"pattern": "x", "glob": 3}, "glob must be a string such as '**/*.py'"),
        ({"pattern": "x", "ignore_case": "yes"}, 'ignore_case must be true or false, not "yes"'),
        ({"pattern": "x", "files_only": 1}, "files_only must be true or false, not 1"),
        ({"pattern": "x", "context": 6}, "context must be a whole number from 0 to 5, not 6"),
        ({"pattern": "x", "context": -1}, "context must be a whole number from 0 to 5, not -1"),
        ({"pattern": "x", "context": True}, "context must be a whole number from 0 to 5, not true"),
        ({"pattern": "x", "context": 1.5}, "context must be a whole number from 0 to 5, not 1.5"),
        ({"pattern": "x", "limit": 0}, "limit must be a whole number from 1 to 2000, not 0"),
        ({"pattern": "x", "limit": 2001}, "limit must be a whole number from 1 to 2000, not 2001"),
        (
            {"pattern": "x", "limit": float("nan")},
            "limit must be a whole number from 1 to 2000, not nan",
        ),
        ({"pattern": "x", "limit": "10"}, 'limit must be a whole number from 1 to 2000, not "10"'),
        (
            {"pattern": "x", "path": "src"},
            "unknown argument 'path': search_files takes pattern, glob, ignore_case, context, "
            "files_only and limit",
        ),
    ],
)
def test_bad_arguments_are_refused_naming_the_argument_before_any_search(
    project: Path, arguments: dict[str, object], error: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    # Counted where the child would start, not timed: a loaded machine makes a refusal slow
    # too, and a search started and refused later would be quick on a small project.
    started: list[list[str]] = []
    real_run_command = file_search.run_command

    async def counting_run_command(argv: list[str], **options: Any) -> CommandOutcome:
        started.append(argv)
        return await real_run_command(argv, **options)

    monkeypatch.setattr(file_search, "run_command", counting_run_command)
    assert search(project, **arguments) == ToolResult(error, is_error=True)
    assert started == []  # no child was started


def test_whole_floats_count_as_integers_as_json_schema_says(project: Path) -> None:
    assert search(project, pattern="import os", limit=5.0, context=0.0).text.startswith("src/")


def test_the_tool_runs_in_a_child_so_the_agent_never_imports_the_pattern_engine_state(
    tmp_path: Path,
) -> None:
    """A project holding its own `agent` package must not be what the child imports."""
    write(tmp_path, "agent/__init__.py", "raise SystemExit('the project was imported')\n")
    write(tmp_path, "agent/tools/__init__.py", "raise SystemExit('the project was imported')\n")
    result = anyio.run(SearchFiles(tmp_path).run, {"pattern": "imported"})
    assert result.text.splitlines()[-1] == "[2 matching lines in 2 files; 2 files searched]"


@pytest.mark.parametrize(
    ("text", "pattern", "lines"),
    [
        ("a\n\nb\n\n", "^$", [2, 4]),  # empty lines, not the end after the last line break
        ("", "^", []),
        ("\n", "^$", [1]),
        ("x\ny", "y$", [2]),  # a last line without a line break
        ("ab\ncd\n", "b\\s*c", []),  # would span the line break in the whole text
        ("ab\ncd\nbc\n", "b\\s*c", [3]),  # the first match spans lines: line by line
        ("aXa\nXXX\nb\n", "X*", [1, 2, 3]),  # empty matches: every line, once
        ("one two\none\n", "one|two", [1, 2]),  # two matches in a line: one line
    ],
)
def test_each_matching_line_once_exactly_as_line_by_line(
    tmp_path: Path, text: str, pattern: str, lines: list[int]
) -> None:
    write(tmp_path, "f.txt", text)
    found = search(tmp_path, pattern=pattern).text.splitlines()
    assert [int(line.split(":")[1]) for line in found if line.startswith("f.txt:")] == lines


def test_a_search_ended_at_the_hard_limit_keeps_what_it_had_written() -> None:
    """The child killed before its own stop (a signal it never saw): the whole lines it wrote
    are kept, the one cut by the kill dropped, and the answer says it was ended."""
    written = (
        '{"file": "a.txt", "lines": [[1, ":", "hit"]]}\n{"file": "b.txt", "lines": [[4, ":", "hi'
    )
    outcome = CommandOutcome(None, written, "", truncated=False, timed_out=True)
    assert answer(SearchArguments("hit"), outcome, 20) == ToolResult(
        "a.txt:1: hit\n[stopped: the search was ended at the time limit (20 s); the lines above "
        "were found before that]"
    )
    crashed = CommandOutcome(1, "", "Traceback...\nMemoryError\n", truncated=False)
    assert answer(SearchArguments("hit"), crashed, 20) == ToolResult(
        "the search failed: MemoryError", is_error=True
    )


def test_the_model_calls_search_files_through_the_real_agent_and_gets_the_matches(
    project: Path, tmp_path: Path
) -> None:
    calls = [
        {"id": "s1", "name": "search_files", "arguments": {"pattern": "load_config", "context": 1}}
    ]
    env = agent_env(tmp_path / "home", tmp_path / "agent-home")
    done, requests = one_shot([{"tool_calls": calls}, {"text": "found"}], "where?", env, project)
    assert done.returncode == 0, done.stderr
    assert tool_results(requests[1])["s1"] == (
        "README.md-1- # Project\n"
        "README.md:2: Call load_config() first.\n"
        "--\n"
        "src/b.py:1: from pkg.a import load_config\n"
        "src/b.py:2: load_config()\n"
        "--\n"
        "src/pkg/a.py-2- \n"
        "src/pkg/a.py:3: def load_config():\n"
        "src/pkg/a.py-4-     return os.environ\n"
        "[4 matching lines in 3 files; 4 files searched]"
    )
    assert "search_files" in done.stdout + done.stderr


def test_the_answer_stays_within_its_size_even_for_one_file(tmp_path: Path) -> None:
    """2,000 long matching lines with context in one file: the lines are kept up to the
    answer's size, and the note says how many of the matches were shown."""
    write(tmp_path, "wide.txt", ("hit " + "w" * 1000 + "\n") * 3000)
    result = search(tmp_path, pattern="hit", limit=SEARCH_MAX_LIMIT, context=5)
    assert len(result.text) < ANSWER_CHARS + 2000
    shown = [line for line in result.text.splitlines() if line.startswith("wide.txt:")]
    assert 100 < len(shown) < 200
    assert result.text.splitlines()[-1] == (
        f"[showing the first {len(shown)} matching lines of 3,000 (the answer is kept under "
        "64,000 characters): narrow the pattern or glob]"
    )


def test_a_file_name_that_is_not_utf8_comes_as_a_json_string(tmp_path: Path) -> None:
    (tmp_path / os.fsdecode(b"caf\xe9.txt")).write_text("needle\n")
    assert search(tmp_path, pattern="needle").text.splitlines()[0] == ('"caf\\udce9.txt":1: needle')


def worker_tally(root: Path, **limits: object) -> dict[str, object]:
    """The child's own run, started as search_files starts it, with limits small enough to
    reach. (In this process it would leave its address-space limit on pytest and so on every
    program a later test starts: Chromium and Node then fail to reserve their memory.)"""
    request = {
        "root": str(root.resolve()),
        "pattern": "hit",
        "ignore_case": False,
        "glob": "**/*",
        "context": 0,
        "files_only": False,
        "limit": 200,
        "private": [],
        "home": str(root.parent / "home"),
        "seconds": 30,
        "max_bytes": 1 << 30,
        "file_bytes": 1 << 20,
        "max_visited": 1000,
        "answer_chars": 64_000,
        **limits,
    }
    command = [*file_search._PYTHON, "-c", file_search._WORKER, file_search._AGENT_ROOT]
    done = subprocess.run(
        [*command, json.dumps(request)], capture_output=True, text=True, check=True, timeout=60
    )
    return dict(json.loads(done.stdout.splitlines()[-1])["done"])


def test_the_walk_stops_at_its_bounds_and_says_which(tmp_path: Path) -> None:
    for index in range(10):
        write(tmp_path, f"f{index}.txt", "hit\n" + "x" * 100 + "\n")
    by_files = worker_tally(tmp_path, max_visited=4)
    assert (by_files["stopped"], by_files["searched"]) == ("files", 4)
    by_bytes = worker_tally(tmp_path, max_bytes=350)
    assert (by_bytes["stopped"], by_bytes["searched"]) == ("bytes", 4)
    assert by_bytes["bytes_read"] == 350
    deep = tmp_path / "deep"
    folder = deep
    for _ in range(file_search_worker.MAX_DEPTH + 2):
        folder = folder / "d"
    write(folder, "bottom.txt", "hit\n")
    write(deep, "top.txt", "hit\n")
    tally = worker_tally(deep)
    assert (tally["too_deep"], tally["matches"], tally["stopped"]) == (1, 1, None)


def test_the_notes_for_each_stop() -> None:
    tally: dict[str, object] = {
        "searched": 4, "matched_files": 1, "matches": 1, "shown": 1, "binary": 0, "keys": 0,
        "links": 0, "unreadable": 0, "too_deep": 0, "credentials": False, "own": [],
        "cut_files": [], "cut_count": 0, "current": "big.log",
    }  # fmt: skip

    def notes(stopped: str) -> str:
        outcome = CommandOutcome(0, json.dumps({"done": {**tally, "stopped": stopped}}), "", False)
        return answer(SearchArguments("hit"), outcome, 20).text.splitlines()[-1]

    assert notes("bytes") == "[stopped after reading 256 MB: narrow the glob to search the rest]"
    assert notes("files") == (
        "[stopped after looking at 200,000 files: narrow the glob to search the rest]"
    )
    assert notes("memory") == (
        "[stopped: the search ran out of memory while searching big.log; the lines above were "
        "found before that; a simpler pattern helps]"
    )


@pytest.mark.parametrize("pattern", ["hit", "(?=hit)hit"])  # whole text, and line by line
def test_past_the_limit_matches_are_counted_not_kept(tmp_path: Path, pattern: str) -> None:
    write(tmp_path, "a.txt", "hit\n" * 50)
    write(tmp_path, "b.txt", "miss\nhit\n" * 30)
    result = search(tmp_path, pattern=pattern, limit=3)
    assert result.text.splitlines() == [
        "a.txt:1: hit",
        "a.txt:2: hit",
        "a.txt:3: hit",
        "[80 matching lines in 2 files; 2 files searched]",
        "[showing the first 3 matching lines of 80: raise limit (up to 2,000) or narrow the "
        "pattern or glob]",
    ]
    files = search(tmp_path, pattern=pattern, files_only=True).text.splitlines()
    assert files == ["a.txt", "b.txt", "[80 matching lines in 2 files; 2 files searched]"]


def test_it_searches_the_files_list_files_lists(project: Path) -> None:
    """One walk's rules for both tools: skipped folders, credential names, globs."""
    write(project, ".env", "x\n")
    write(project, ".aws/config", "x\n")
    write(project, "docs/deep/guide.md", "x\n")
    tools = {tool.spec.name: tool for tool in BuiltinToolset(project, private=()).tools()}
    for glob in ("**/*", "**/*.py", "src/*", "*.md"):
        listed = anyio.run(tools["list_files"].run, {"glob": glob}).text.splitlines()
        searched = search(project, pattern="^", glob=glob, files_only=True).text.splitlines()
        names = [line for line in listed if not line.startswith("[")]
        assert [line for line in searched if not line.startswith("[")] == sorted(names), glob
