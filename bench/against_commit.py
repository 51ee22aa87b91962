"""This working tree's `agent` against a base commit's, on the paths a person runs, in one run.

    .venv/bin/python bench/against_commit.py [--base REV] [--runs N]

The base (default efed32f, the commit before issue 24's module move) is checked out with
`git worktree add --detach` into a temporary directory (removed at the end, also on an error or
Ctrl-C). Both sides run as `python -m agent` with this venv's interpreter, PYTHONPATH set to
their own tree and an empty working directory, so `import agent` finds that tree's package first
(checked once: each side's `agent.__file__` is printed) and the launcher, the interpreter and
every other package are the same. Both trees are compiled to bytecode first, as an installed copy
is, so neither pays for compiling. Each side has its own throwaway AGENT_HOME, set up alike.

Scenarios, each a warm-up and then N rounds alternating the two sides, so the machine's noise (this
2-core machine is shared) hits both alike; medians of wall time and of peak RSS:
  1. `agent -p hi`, no MCP server, answered by the scripted OpenAI-compatible server
     (tests/fake_openai, on 127.0.0.1);
  2. `agent -p hi` with one trusted stdio server (`mcp-server-time`, a cache venv as in
     bench/oneshot.py), enabled by `agent mcp enable` of that side, whose tool must be offered in
     every request;
  3. launch to prompt in a real pseudo-terminal (bench/startup_to_prompt.py); the peak RSS there
     is the process's high-water mark while the prompt is up.

A ratio (this tree / base) within 10% either way is reported as unchanged within noise. The
machine's noise sets that bound: comparing a tree with itself (`--base HEAD`, 7 runs, while other
engineers ran tests and mypy on the 2 cores) gave wall ratios of 1.01, 1.05 and 1.05 and CPU
ratios up to 1.08, so a change smaller than that cannot be told from noise here, and 10% is the
round bound above it. Peak RSS is steadier (1.00 in every scenario) and gets the same bound to
keep one rule. A change that only moves files (issue 24's module move) could cost a few more
package `__init__` imports: milliseconds against 0.3 to 5 s.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from types import FrameType

from _common import REPO
from oneshot import Contender, agent_oneshot, base_env, compile_agent, race, time_server
from startup_to_prompt import time_to_prompt

from tests.fake_openai.server import FakeOpenAI

DEFAULT_BASE = "efed32f"
NOISE = 0.10  # a ratio within 1 +- NOISE is unchanged (the docstring says why)
TOOL = "get_current_time"


@dataclass(frozen=True)
class Side:
    """One tree whose `agent` package is run: `python -m agent` with PYTHONPATH=tree."""

    name: str
    tree: Path
    slug: str  # names its directories under the run's work directory

    @property
    def launcher(self) -> tuple[str, ...]:
        return (sys.executable, "-m", "agent")

    @property
    def env(self) -> dict[str, str]:
        return {"PYTHONPATH": str(self.tree)}

    def trust(self, command: list[str], project: Path, environ: dict[str, str]) -> Path:
        """A home trusting `command`, written by this side's own bench/_common.py: the two sides'
        stores may differ in format (issue 25 made it version 4, which older trees refuse)."""
        script = (
            "import json, sys; from pathlib import Path; sys.path.insert(0, sys.argv[1]);"
            " import _common; command, environ = json.loads(sys.argv[2]), json.loads(sys.argv[3]);"
            " print(_common.trusted_store(['time'], command, Path(sys.argv[4]), environ)[1])"
        )
        argv = [sys.executable, "-c", script, str(self.tree / "bench"), json.dumps(command),
                json.dumps(environ), str(project)]  # fmt: skip
        done = subprocess.run(argv, env=dict(base_env(), **self.env), capture_output=True,
                              text=True, check=True)  # fmt: skip
        return Path(done.stdout.strip().splitlines()[-1])


def _git(*args: str) -> str:
    done = subprocess.run(["git", "-C", str(REPO), *args], capture_output=True, text=True)
    if done.returncode != 0:
        raise SystemExit(f"git {' '.join(args)} failed:\n{done.stderr}")
    return done.stdout.strip()


@contextlib.contextmanager
def base_checkout(rev: str) -> Iterator[Path]:
    """`rev` checked out (detached) in a temporary worktree, removed again however we leave."""
    parent = Path(tempfile.mkdtemp(prefix="agent-bench-base-"))
    tree = parent / "tree"
    try:
        _git("worktree", "add", "--detach", str(tree), rev)
        yield tree
    finally:
        # --force: the compiled __pycache__ directories are files git did not put there.
        subprocess.run(
            ["git", "-C", str(REPO), "worktree", "remove", "--force", str(tree)],
            capture_output=True,
        )
        shutil.rmtree(parent, ignore_errors=True)
        subprocess.run(["git", "-C", str(REPO), "worktree", "prune"], capture_output=True)


def _terminated(signum: int, frame: FrameType | None) -> None:
    raise SystemExit(f"stopped by signal {signum}")  # so the worktree is removed on the way out


def check_import(side: Side, cwd: Path) -> None:
    """Fail unless `import agent` with this side's environment finds this side's tree."""
    argv = [sys.executable, "-c", "import agent; print(agent.__file__)"]
    env = dict(base_env(), **side.env)
    found = subprocess.run(argv, env=env, cwd=cwd, capture_output=True, text=True, check=True)
    path = Path(found.stdout.strip())
    if path.resolve() != (side.tree / "agent" / "__init__.py").resolve():
        raise SystemExit(f"{side.name}: import agent found {path}, not the package in {side.tree}")
    print(f"  {side.name}: agent.__file__ = {path}")


def oneshot_pair(
    fake: FakeOpenAI, sides: list[Side], server: Path | None, work: Path, runs: int
) -> list[Contender]:
    """`agent -p hi` of each side (with `server` trusted and enabled if given), raced."""
    contenders: list[Contender] = []
    try:
        for side in sides:
            side_work = work / f"{side.slug}-{'time' if server else 'plain'}"
            side_work.mkdir()
            launcher, env = side.launcher, side.env
            contenders.append(
                agent_oneshot(fake, server, side_work, side.name, launcher, env, side.trust)
            )
        race(fake, contenders, runs, None if server is None else TOOL)
    finally:
        # With a server the home is a temporary directory of its own (bench/_common.py).
        for contender in contenders:
            shutil.rmtree(contender.env["AGENT_HOME"], ignore_errors=True)
    return contenders


def _prompt_usage(pid: int) -> tuple[float, float]:
    """The process's peak RSS (MiB) and CPU seconds so far, from /proc."""
    status = Path(f"/proc/{pid}/status").read_text()
    peak_kib = next(int(line.split()[1]) for line in status.splitlines() if line[:6] == "VmHWM:")
    # Fields after the command name's closing parenthesis: utime and stime are the 12th and 13th.
    fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    cpu = (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    return peak_kib / 1024, cpu


def prompt_pair(sides: list[Side], work: Path, runs: int) -> list[Contender]:
    """Launch to prompt of each side in a pseudo-terminal: a warm-up, then `runs` rounds."""
    contenders = []
    for side in sides:
        project, home = work / f"{side.slug}-pty", work / f"{side.slug}-pty-home"
        project.mkdir()
        env = dict(base_env(), **side.env, AGENT_HOME=str(home))
        env.update(PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm")
        argv = [*side.launcher, "--model", "openai/bench"]
        contenders.append(Contender(side.name, argv, env, project))
    for round_number in range(runs + 1):
        for contender in contenders:
            usage: list[tuple[float, float]] = []

            def at_prompt(pid: int, usage: list[tuple[float, float]] = usage) -> None:
                usage.append(_prompt_usage(pid))

            command, *args = contender.argv
            cwd = str(contender.cwd)
            elapsed = time_to_prompt(command, args, contender.env, at_prompt, cwd)
            if round_number > 0:  # the warm-up fills the page cache; not counted
                contender.samples.append((elapsed, *usage[0]))
    return contenders


def verdict(ratio: float) -> str:
    if abs(ratio - 1) <= NOISE:
        return "unchanged within noise"
    return f"{abs(ratio - 1):.0%} {'more' if ratio > 1 else 'less'}: CHANGED beyond noise"


def report(title: str, contenders: list[Contender]) -> None:
    print(f"\n{title}, median of {len(contenders[0].samples)} alternating runs")
    width = max(len(contender.name) for contender in contenders)
    for contender in contenders:
        print(
            f"  {contender.name:<{width}} {contender.wall:6.2f} s  {contender.rss:6.0f} MiB"
            f"  ({contender.cpu:.2f} s CPU)"
        )
    ours, base = contenders
    wall, rss, cpu = ours.wall / base.wall, ours.rss / base.rss, ours.cpu / base.cpu
    print(f"  wall, this tree / base:      {wall:.2f}  {verdict(wall)}")
    print(f"  peak RSS, this tree / base:  {rss:.2f}  {verdict(rss)}")
    # The process's own CPU time waits less on the other work of the machine than wall time does.
    print(f"  (CPU, this tree / base:      {cpu:.2f}  {verdict(cpu)})")


def compare(sides: list[Side], runs: int, work: Path) -> None:
    """Check both imports, then the three scenarios, each reported as it finishes."""
    print("each side imports its own package:")
    neutral = work / "neutral"
    neutral.mkdir()
    for side in sides:
        compile_agent(side.tree)
        check_import(side, neutral)
    server = time_server()
    with FakeOpenAI() as fake:
        report("1. `agent -p hi`, no MCP server", oneshot_pair(fake, sides, None, work, runs))
        if server is None:
            print("\n2. left out: mcp-server-time could not be installed")
        else:
            title = "2. `agent -p hi`, one trusted stdio server (mcp-server-time)"
            report(title, oneshot_pair(fake, sides, server, work, runs))
    report("3. launch to prompt (pseudo-terminal)", prompt_pair(sides, work, runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--base", default=DEFAULT_BASE, help="the commit to compare against")
    parser.add_argument("--runs", type=int, default=7)
    args = parser.parse_args()
    signal.signal(signal.SIGTERM, _terminated)
    base_rev = _git("rev-parse", "--short", f"{args.base}^{{commit}}")
    dirty = " plus uncommitted changes" if _git("status", "--porcelain", "--", "agent") else ""
    this = Side(f"this tree ({_git('rev-parse', '--short', 'HEAD')})", REPO, "this")
    print(f"this tree: {REPO} at HEAD{dirty}; base: {args.base} = {base_rev}")
    work = Path(tempfile.mkdtemp(prefix="agent-bench-against-"))
    try:
        with base_checkout(base_rev) as tree:
            compare([this, Side(f"base ({base_rev})", tree, "base")], args.runs, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
