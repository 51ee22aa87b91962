"""How much a task that reads 20 files grows the parent's context, with and without an
`explore` subagent, on the path a person runs: the real `agent -p` against the scripted
OpenAI-compatible server (tests/fake_openai, on 127.0.0.1), in a throwaway project and home.

    .venv/bin/python bench/delegate_context.py [--files 20] [--lines 120]

Both runs do the same reads of the same files. Without a subagent, the parent reads them with
20 read_file calls of one answer; with one, it delegates one explore task, whose subagent makes
those 20 calls and answers with a summary of a few lines. The measure is the parent's own
context: the tokens of its last request (the fake's usage, derived from the request's length as
a model's tokenizer would count it roughly) minus those of its first, against what the reads
returned. Goal (issue 41): with the subagent, the parent grows by less than 10% of the reads.
The baseline is measured in the same run: the parent reading the files itself.
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

from _common import REPO

from tests.fake_openai.server import FakeOpenAI

AGENT = str(Path(sys.executable).with_name("agent"))
SUMMARY = (
    "The 20 modules each define one configuration table and a loader; the loaders share one "
    "pattern (read, validate, merge defaults). Nothing is duplicated beyond that pattern."
)


def project(files: int, lines: int) -> Path:
    """A project of `files` Python files of `lines` lines each."""
    root = Path(tempfile.mkdtemp(prefix="agent-bench-delegate-"))
    for number in range(files):
        body = "".join(
            f"SETTING_{number}_{line} = {{'name': 'value {line}', 'enabled': True}}  # row\n"
            for line in range(lines)
        )
        (root / f"module_{number:02}.py").write_text(body)
    return root


def reads(files: int) -> list[dict[str, Any]]:
    return [
        {"id": f"r{n}", "name": "read_file", "arguments": {"path": f"module_{n:02}.py"}}
        for n in range(files)
    ]


def script(files: int, delegated: bool) -> list[dict[str, Any]]:
    if not delegated:
        return [
            {"when": "PARENT", "tool_calls": reads(files)},
            {"when": "PARENT", "text": SUMMARY},
        ]
    task = "SUB: read every module_*.py and say what they have in common"
    return [
        {"when": "PARENT", "tool_calls": [
            {"id": "d1", "name": "delegate", "arguments": {"kind": "explore", "task": task}}]},
        {"when": "SUB", "tool_calls": reads(files)},
        {"when": "SUB", "text": SUMMARY},
        {"when": "PARENT", "text": SUMMARY},
    ]  # fmt: skip


def run(files: int, lines: int, delegated: bool) -> tuple[int, int, int]:
    """(parent's first request tokens, its last, what the reads returned in tokens)."""
    root = project(files, lines)
    home = Path(tempfile.mkdtemp(prefix="agent-bench-home-"))
    env = {**os.environ, "AGENT_HOME": str(home), "HOME": str(home), "OPENAI_API_KEY": "sk-x"}
    with FakeOpenAI(script(files, delegated)) as fake:
        done = subprocess.run(
            [AGENT, "--model", "openai/fake", "--api-base", fake.base_url, "-p", "PARENT: go"],
            cwd=root, env=env, capture_output=True, text=True, timeout=600, input="",
        )  # fmt: skip
        requests = [r["body"] for r in fake.requests]
    if done.returncode != 0 or SUMMARY not in done.stdout:
        raise SystemExit(f"agent -p failed ({done.returncode}): {done.stderr[-2000:]}")
    parent = [body for body in requests if "PARENT" in _first_user(body)]
    read_chars = sum(len((root / f"module_{n:02}.py").read_text()) for n in range(files))
    return _tokens(parent[0]), _tokens(parent[-1]), read_chars // 4


def _first_user(body: dict[str, Any]) -> str:
    return next((str(m["content"]) for m in body["messages"] if m["role"] == "user"), "")


def _tokens(body: dict[str, Any]) -> int:
    # What the fake counts as prompt tokens (tests/fake_openai usage_of): about 4 characters
    # a token of the messages, the same measure for both runs.
    return len(json.dumps(body["messages"])) // 4


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--files", type=int, default=20)
    parser.add_argument("--lines", type=int, default=120)
    args = parser.parse_args()
    first_a, last_a, read = run(args.files, args.lines, delegated=False)
    first_b, last_b, _ = run(args.files, args.lines, delegated=True)
    alone, delegated = last_a - first_a, last_b - first_b
    print(f"reads: {args.files} files, about {read:,} tokens")
    print(f"parent reads them itself:    context grew by {alone:,} tokens")
    print(f"parent delegates to explore: context grew by {delegated:,} tokens")
    share = delegated / read
    print(f"growth with the subagent / the reads: {share:.3f} (goal < 0.10)")
    print(f"ratio delegated / baseline (parent reading itself): {delegated / alone:.3f}x")


if __name__ == "__main__":
    sys.path.insert(0, str(REPO))
    main()
