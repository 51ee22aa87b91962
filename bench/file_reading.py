"""The reading tools' cost (read_file, list_files, search_files, the whole-file key judgement)
in this tree against a base commit's, in one run.

    .venv/bin/python bench/file_reading.py [--base REV] [--files N] [--runs N]

A tree of N files (default 3000, copies of this repository's Python files, as
bench/search_files.py makes it) and a 16 MiB file of base64 noise wrapped at 76 columns are made
in a temporary folder; the base's `agent/` is exported there with `git archive` (no worktree is
added). Each round runs a child per side, alternating, with PYTHONPATH set to that side's tree
(each child prints its `agent.__file__`); the child times, with HOME and AGENT_HOME of its own:
read_file of every file of the tree one after another, list_files of the tree, search_files of
a pattern found in many files, and the whole-file key judgement of the noise (what read_file
and `@path` do to a 16 MiB file). Medians; ratio = this tree / base.
"""

from __future__ import annotations

import argparse
import base64
import io
import json
import os
import statistics
import subprocess
import sys
import tarfile
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
NOISE_BYTES = 16 * 1024 * 1024


def child(tree: Path, noise: Path) -> None:
    import anyio

    import agent
    from agent.tools.builtin import ListFiles, ReadFile
    from agent.tools.credential_files import KEY_SCAN_BYTES, file_holds_private_key
    from agent.tools.file_search import SearchFiles

    root = tree.resolve()
    files = sorted(str(p.relative_to(root)) for p in root.rglob("*") if p.is_file())
    reader = ReadFile(root)
    times: dict[str, float] = {}
    started = time.perf_counter()
    refused = [path for path in files if reader._read({"path": path}).is_error]
    times["read_file x all"] = time.perf_counter() - started
    started = time.perf_counter()
    anyio.run(ListFiles(root).run, {"limit": 2000})
    times["list_files"] = time.perf_counter() - started
    started = time.perf_counter()
    anyio.run(SearchFiles(root).run, {"pattern": "def [a-z_]+\\(", "limit": 2000})
    times["search_files"] = time.perf_counter() - started
    with noise.open("rb") as handle:
        started = time.perf_counter()
        assert not file_holds_private_key(handle, KEY_SCAN_BYTES)
        times["16 MiB judged"] = time.perf_counter() - started
    print(
        json.dumps(
            {"agent": agent.__file__, "files": len(files), "refused": refused, "times": times}
        )
    )


def export_base(base: str, into: Path) -> None:
    archive = subprocess.run(
        ["git", "-C", str(REPO), "archive", "--format=tar", base, "agent"],
        capture_output=True,
        check=True,
    ).stdout
    with tarfile.open(fileobj=io.BytesIO(archive)) as tar:
        tar.extractall(into, filter="data")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default="HEAD")
    parser.add_argument("--files", type=int, default=3000)
    parser.add_argument("--runs", type=int, default=5)
    parser.add_argument("--child", nargs=2, type=Path, help=argparse.SUPPRESS)
    options = parser.parse_args()
    if options.child:
        child(*options.child)
        return
    sys.path.insert(0, str(REPO / "bench"))
    from search_files import make_tree

    with tempfile.TemporaryDirectory() as scratch:
        top = Path(scratch)
        tree, base = top / "tree", top / "base"
        make_tree(tree, options.files)
        noise = top / "noise.b64"
        raw = base64.b64encode(os.urandom(NOISE_BYTES * 3 // 4))
        noise.write_bytes(b"\n".join(raw[i : i + 76] for i in range(0, len(raw), 76))[:NOISE_BYTES])
        base.mkdir()
        export_base(options.base, base)
        sides = {"this tree": REPO, f"base {options.base}": base}
        results: dict[str, list[dict[str, float]]] = {name: [] for name in sides}
        for _ in range(options.runs):
            for name, path in sides.items():
                env = dict(os.environ, PYTHONPATH=str(path), HOME=str(top / "home"))
                env["AGENT_HOME"] = str(top / f"agent-home-{len(results[name])}")
                done = subprocess.run(
                    [sys.executable, __file__, "--child", str(tree), str(noise)],
                    capture_output=True, text=True, env=env, check=False, cwd=top,
                )  # fmt: skip
                if done.returncode != 0:
                    raise SystemExit(f"{name}: {done.stderr}")
                record = json.loads(done.stdout.splitlines()[-1])
                assert record["agent"].startswith(str(path)), record["agent"]
                results[name].append(record["times"])
                if record["refused"] and len(results[name]) == 1:
                    print(f"{name}: read_file refused {len(record['refused'])} files")
        print(f"{options.files} files, median of {options.runs} runs (ms)")
        names = list(sides)
        print(f"{'':18}" + "".join(f"{name:>16}" for name in names) + "   ratio")
        for measure in results[names[0]][0]:
            medians = [statistics.median(r[measure] for r in results[n]) for n in names]
            cells = "".join(f"{m * 1000:>16.1f}" for m in medians)
            print(f"{measure:18}{cells}   {medians[0] / medians[1]:.2f}")


if __name__ == "__main__":
    main()
