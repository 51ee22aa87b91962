"""Time from launching `agent` to its prompt being drawn, in a real pseudo-terminal.

Baseline, in the same run: a bare prompt_toolkit prompt in a fresh interpreter (the least any
prompt_toolkit app can cost here). Goal: agent under 0.3 s.

    .venv/bin/python bench/startup_to_prompt.py [runs]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

import pexpect

RUNS = int(sys.argv[1]) if len(sys.argv) > 1 else 7
AGENT = str(Path(sys.executable).with_name("agent"))
BARE = "from prompt_toolkit import PromptSession; PromptSession().prompt('› ')"


def time_to_prompt(command: str, args: list[str], env: dict[str, str]) -> float:
    started = time.perf_counter()
    child = pexpect.spawn(command, args, env=env, encoding="utf-8", timeout=30)
    child.expect("›")
    elapsed = time.perf_counter() - started
    child.sendcontrol("d")
    child.expect(pexpect.EOF)
    child.close()
    return elapsed


def main() -> None:
    home = tempfile.mkdtemp(prefix="agent-bench-")
    env = dict(os.environ, AGENT_HOME=home, PROMPT_TOOLKIT_NO_CPR="1", TERM="xterm")
    ours, bare = [], []
    for _ in range(RUNS):
        bare.append(time_to_prompt(sys.executable, ["-c", BARE], env))
        ours.append(time_to_prompt(AGENT, ["--model", "openai/bench"], env))
    agent_median, bare_median = statistics.median(ours), statistics.median(bare)
    print(f"launch to prompt, median of {RUNS} runs")
    print(f"  bare prompt_toolkit prompt: {bare_median * 1000:.0f} ms")
    print(f"  agent:                      {agent_median * 1000:.0f} ms (goal < 300 ms)")
    print(f"  ratio: {agent_median / bare_median:.2f}")


if __name__ == "__main__":
    main()
