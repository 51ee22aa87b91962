"""search_files against `grep -rn` and `git grep` on the same tree, measured in the same run.

    .venv/bin/python bench/search_files.py [--files N] [--runs N] [--tree DIR]

Without --tree, a tree of N files (default 3000) is made in a temporary folder from copies of
this repository's Python files (about the size of a mid-sized project). Each pattern is searched
by the tool as the chat runs it (SearchFiles.run: the child process started, the walk, the
answer composed) and by `grep -rnIE` (skipping the same folders) and `git grep --no-index -nIE`;
the sides alternate run by run so the shared machine's noise hits them alike; medians. The
goal: well under a second for a few thousand files. The matching lines each side found are
printed too: the same counts say the sides did the same work.
"""

from __future__ import annotations

import argparse
import re
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

from agent.tools.file_search import SEARCH_MAX_LIMIT, SearchFiles  # noqa: E402
from agent.tools.walk_rules import SKIPPED_DIRS  # noqa: E402

# (pattern, ignore case): the same syntax for Python's re and grep -E.
PATTERNS = [
    ("def [a-z_]+\\(", False),  # common: many matches in most files
    ("load_config_nowhere", False),  # rare: no match at all
    ("plural\\(", False),
    ("tool_?result", True),
]


def make_tree(root: Path, files: int) -> None:
    sources = sorted(p for p in REPO.glob("agent/**/*.py") if "__pycache__" not in p.parts)
    sources += sorted(p for p in REPO.glob("tests/**/*.py") if "__pycache__" not in p.parts)
    made = 0
    copy = 0
    while made < files:
        for source in sources:
            if made == files:
                break
            target = root / f"copy{copy}" / source.relative_to(REPO)
            target.parent.mkdir(parents=True, exist_ok=True)
            shutil.copyfile(source, target)
            made += 1
        copy += 1


def ours(tree: Path, pattern: str, ignore_case: bool) -> tuple[float, int]:
    tool = SearchFiles(tree.resolve())
    arguments = {"pattern": pattern, "ignore_case": ignore_case, "limit": SEARCH_MAX_LIMIT}
    started = time.perf_counter()
    result = anyio.run(tool.run, arguments)
    took = time.perf_counter() - started
    # The summary is the first note after the lines (a line found may quote one too).
    notes = [line for line in result.text.splitlines() if re.match(r"\[[\d,]+ matching", line)]
    return took, int(notes[-1][1:].split()[0].replace(",", "")) if notes else 0


def grep(tree: Path, pattern: str, ignore_case: bool) -> tuple[float, int]:
    argv = ["grep", "-rnIE", *(f"--exclude-dir={name}" for name in sorted(SKIPPED_DIRS))]
    argv += ["-i"] if ignore_case else []
    return _timed([*argv, "-e", pattern, "."], tree)


def git_grep(tree: Path, pattern: str, ignore_case: bool) -> tuple[float, int]:
    argv = ["git", "grep", "--no-index", "-nIE", *(["-i"] if ignore_case else [])]
    return _timed([*argv, "-e", pattern], tree)


def _timed(argv: list[str], tree: Path) -> tuple[float, int]:
    started = time.perf_counter()
    done = subprocess.run(argv, cwd=tree, capture_output=True, check=False)
    took = time.perf_counter() - started
    return took, done.stdout.count(b"\n")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--tree", type=Path, help="search this folder instead of a made one")
    options = parser.parse_args()
    with tempfile.TemporaryDirectory() as scratch:
        tree = options.tree or Path(scratch)
        if options.tree is None:
            make_tree(tree, options.files)
        files = sum(1 for p in tree.rglob("*") if p.is_file())
        print(f"tree: {tree} ({files:,} files); median of {options.runs} runs\n")
        sides = {"search_files": ours, "grep -rn": grep}
        if shutil.which("git"):
            sides["git grep"] = git_grep
        print(f"{'pattern':26} " + " ".join(f"{name:>20}" for name in sides) + "   ratio")
        for pattern, ignore_case in PATTERNS:
            times: dict[str, list[float]] = {name: [] for name in sides}
            counts: dict[str, int] = {}
            for _ in range(options.runs):
                for name, side in sides.items():
                    took, count = side(tree, pattern, ignore_case)
                    times[name].append(took)
                    counts[name] = count
            medians = {name: statistics.median(values) for name, values in times.items()}
            cells = " ".join(f"{medians[name] * 1000:>9.0f} ms {counts[name]:>6}" for name in sides)
            ratio = medians["search_files"] / medians["grep -rn"]
            label = pattern + (" (i)" if ignore_case else "")
            print(f"{label:26} {cells}   {ratio:.1f}x grep")
        print("\n(each cell: median time, matching lines found; ratio: search_files / grep -rn)")


if __name__ == "__main__":
    main()
