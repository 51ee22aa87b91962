"""One-shot answers as a script meets them: `agent -p` against a bare litellm script and fast-agent.

Every contender is a whole process answering one prompt from the same scripted OpenAI-compatible
server (tests/fake_openai, on 127.0.0.1), runs alternating, medians of wall time and of the
process's peak RSS (its children, such as an MCP server, are not counted for anyone).

    .venv/bin/python bench/oneshot.py [--runs N] [--no-fast-agent]

Scenarios and goals (issue 17):
  1. no MCP server: `agent -p hi` at most 0.9x fast-agent's wall time and at most 1.05x the bare
     litellm script's peak RSS. `openai/fake` with an address is spoken to directly
     (agent/model/openai_compatible.py); `hosted_vllm/fake` at the same address takes agent's
     litellm path, measured beside it (its RSS held to the same goal, its wall to none), and
     `openai/fake` with the address in OPENAI_BASE_URL takes the direct path (issue 40: the
     same goals as --api-base);
  2. one trusted stdio server (`mcp-server-time` from PyPI, a modern server since 2026.10) whose
     tool is offered in the request (checked on every run): `agent -p` at most 0.9x fast-agent
     with the same server;
  3. the same with a legacy server (mcp-server-time 2026.1.26 on the mcp 1.x SDK): issue 25's
     goal, the era probe paid once per server, not per run;
  4. `agent --help`, `agent mcp list`, `agent sessions list`: at most 1.5x `python -c pass` + 0.1 s.

fast-agent-mcp 0.10.48 needs Python 3.13 (here through pyenv: PYENV_VERSION=3.13.0 python3.13); it
and mcp-server-time are installed into cache venvs under ~/.cache/agent-bench on first use. The bare
script sets LITELLM_LOCAL_MODEL_COST_MAP=True as agent does, so neither waits on the network.
agent's own modules are compiled to bytecode first, as `pip install` does for every contender's
packages: where PYTHONDONTWRITEBYTECODE is set, an editable install would otherwise compile them
from source on every run (about 0.09 s), which no installed copy does.
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

from _common import REPO, trusted_store

from tests.fake_openai.server import FakeOpenAI

CACHE = Path.home() / ".cache" / "agent-bench"
FAST_AGENT_VERSION = "0.10.48"
LEGACY_TIME_VERSION = "2026.1.26"
AGENT = str(Path(sys.executable).with_name("agent"))
ANSWER = "Fast."
BARE_SCRIPT = """
import sys, litellm
stream = litellm.completion(model="openai/fake", api_base=sys.argv[1], stream=True,
                            messages=[{"role": "user", "content": "hi"}])
print("".join(chunk.choices[0].delta.content or "" for chunk in stream))
"""


@dataclass
class Contender:
    """One command line, run again and again; its samples are (seconds, peak RSS in MiB, CPU
    seconds of the process itself: less sensitive than wall time to what else the machine runs)."""

    name: str
    argv: list[str]
    env: dict[str, str]
    cwd: Path
    check: Callable[[str], None] | None = None  # raises when a run did not do the work
    samples: list[tuple[float, float, float]] = field(default_factory=list)
    last_errors: str = ""  # stderr of the last run, to say why a check failed

    def run_once(self) -> None:
        with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
            started = time.perf_counter()
            child = subprocess.Popen(
                self.argv,
                env=self.env,
                cwd=self.cwd,
                stdin=subprocess.DEVNULL,
                stdout=out,
                stderr=err,
            )
            # wait4, not wait(): it also gives the child's own peak RSS (ru_maxrss, KiB on Linux).
            _, status, usage = os.wait4(child.pid, 0)
            elapsed = time.perf_counter() - started
            child.returncode = code = os.waitstatus_to_exitcode(status)
            out.seek(0)
            err.seek(0)
            output, errors = out.read(), err.read()
        if code != 0:
            raise SystemExit(f"{self.name} failed (exit {code}):\n{output}\n{errors}")
        if self.check is not None:
            self.check(output)
        self.last_errors = errors
        cpu = usage.ru_utime + usage.ru_stime
        self.samples.append((elapsed, usage.ru_maxrss / 1024, cpu))

    @property
    def wall(self) -> float:
        return statistics.median(sample[0] for sample in self.samples)

    @property
    def rss(self) -> float:
        return statistics.median(sample[1] for sample in self.samples)

    @property
    def cpu(self) -> float:
        return statistics.median(sample[2] for sample in self.samples)


def _answer_check(out: str) -> None:
    if ANSWER not in out:
        raise SystemExit(f"the answer {ANSWER!r} is missing from the output:\n{out}")


def compile_agent(tree: Path = REPO) -> None:
    """agent's modules (of `tree`, this checkout by default) as bytecode in their __pycache__,
    as an installed copy has them."""
    import compileall

    if not compileall.compile_dir(tree / "agent", quiet=1):
        raise SystemExit(f"could not compile agent's modules in {tree}")
    print(f"agent's modules in {tree} compiled to bytecode (as pip install does)", file=sys.stderr)


def cache_venv(
    name: str, python: list[str], env: dict[str, str], packages: list[str]
) -> Path | None:
    """A venv under CACHE with `packages`, made on first use; None (saying why) if it can't be."""
    venv = CACHE / name
    marker = venv / ".installed"
    if marker.exists():
        return venv
    shutil.rmtree(venv, ignore_errors=True)
    print(f"installing {' '.join(packages)} into {venv} (first use only)", file=sys.stderr)
    try:
        subprocess.run([*python, "-m", "venv", str(venv)], check=True, env=env)
        pip = [str(venv / "bin" / "pip"), "install", "-q", *packages]
        subprocess.run(pip, check=True, env=env, capture_output=True)
    except (OSError, subprocess.CalledProcessError) as error:
        print(f"  could not install it ({error}); leaving it out", file=sys.stderr)
        return None
    marker.touch()
    return venv


def fast_agent() -> Path | None:
    env = dict(os.environ, PYENV_VERSION="3.13.0")
    venv = cache_venv(
        f"fast-agent-{FAST_AGENT_VERSION}",
        ["python3.13"],
        env,
        [f"fast-agent-mcp=={FAST_AGENT_VERSION}"],
    )
    return None if venv is None else venv / "bin" / "fast-agent"


def time_server() -> Path | None:
    venv = cache_venv("mcp-server-time", [sys.executable], dict(os.environ), ["mcp-server-time"])
    return None if venv is None else venv / "bin" / "mcp-server-time"


def legacy_time_server() -> Path | None:
    """mcp-server-time as it was before the 2026-07-28 revision: on the mcp 1.x SDK, it speaks
    only the 2025 protocol (today's release is modern, so scenario 2 no longer shows a legacy
    server; issue 25's goal is about one)."""
    packages = [f"mcp-server-time=={LEGACY_TIME_VERSION}", "mcp<2"]
    venv = cache_venv("mcp-server-time-legacy", [sys.executable], dict(os.environ), packages)
    return None if venv is None else venv / "bin" / "mcp-server-time"


def base_env() -> dict[str, str]:
    env = {k: v for k, v in os.environ.items() if not k.startswith(("AGENT_", "LITELLM_"))}
    env.update(OPENAI_API_KEY="sk-bench", NO_COLOR="1")
    return env


# Makes a home in which the server (its argv) is trusted for the project and environment given.
Trust = Callable[[list[str], Path, dict[str, str]], Path]


def trust_here(command: list[str], project: Path, environ: dict[str, str]) -> Path:
    """A home whose store, in this tree's format, trusts `command` as the server `time`."""
    return trusted_store(["time"], command, project, environ)[1]


def agent_oneshot(
    fake: FakeOpenAI,
    server: Path | None,
    work: Path,
    name: str = "agent -p",
    launcher: tuple[str, ...] = (AGENT,),
    extra_env: dict[str, str] | None = None,
    trust: Trust | None = None,
    model: str = "openai/fake",
    base_url_from_env: bool = False,
) -> Contender:
    """`agent -p hi` for `model` in its own project and AGENT_HOME under `work`, started by
    `launcher` (the console script unless told) with `extra_env`; with `server` trusted (by
    `trust`, this tree's store unless told) and enabled in that home. `base_url_from_env`:
    the address in OPENAI_BASE_URL (the openai SDK's convention) instead of --api-base."""
    tag = ("-time" if server else "") + ("" if model == "openai/fake" else "-" + model[:6])
    tag += "-env" if base_url_from_env else ""
    project = work / f"project{tag}"
    project.mkdir()
    agent_env = dict(base_env(), **(extra_env or {}))
    agent_env["AGENT_HOME"] = str(work / f"home{tag}")
    if server is not None:
        # Trusted for the environment the agent will have: its children inherit that one.
        home = (trust or trust_here)([str(server)], project, agent_env)
        agent_env["AGENT_HOME"] = str(home)
        # As a person would: enabling discovers the tools (and selects them all).
        enable = [*launcher, "mcp", "enable", "time"]
        subprocess.run(enable, env=agent_env, cwd=project, check=True, capture_output=True)
    agent = [*launcher, "--model", model, "--api-base", fake.base_url, "-p", "hi"]
    if base_url_from_env:
        agent_env["OPENAI_BASE_URL"] = fake.base_url
        agent = [*launcher, "--model", model, "-p", "hi"]
    return Contender(name, agent, agent_env, project, _answer_check)


def oneshot_contenders(
    fake: FakeOpenAI, fast: Path | None, server: Path | None, work: Path
) -> list[Contender]:
    """agent -p, the bare script (without a server only), fast-agent; with `server` if given."""
    env = base_env()
    contenders = [agent_oneshot(fake, server, work)]
    project = contenders[0].cwd  # the bare script answers in the same directory
    if server is None:
        # The same server named through one of litellm's own providers: agent's litellm path
        # (openai/NAME with an address is spoken to directly), measured beside it, no goal.
        name = "agent -p via litellm"
        contenders.append(agent_oneshot(fake, None, work, name, model="hosted_vllm/fake"))
        # OPENAI_BASE_URL names the same server: the direct path, as --api-base (issue 40).
        name = "agent -p OPENAI_BASE_URL"
        contenders.append(agent_oneshot(fake, None, work, name, base_url_from_env=True))
        bare_env = dict(env, LITELLM_LOCAL_MODEL_COST_MAP="True")
        bare = [sys.executable, "-c", BARE_SCRIPT, fake.base_url]
        contenders.append(Contender("bare litellm script", bare, bare_env, project, _answer_check))
    if fast is not None:
        fast_env = dict(env, GENERIC_BASE_URL=fake.base_url, GENERIC_API_KEY="sk-bench")
        fast_dir = work / ("fast-agent-time" if server else "fast-agent")
        fast_dir.mkdir()
        argv = [str(fast), "go", "--model", "generic.fake", "-m", "hi"]
        if server is not None:
            argv += ["--stdio", str(server)]
        name = f"fast-agent {FAST_AGENT_VERSION}"
        contenders.append(Contender(name, argv, fast_env, fast_dir, _answer_check))
    return contenders


def race(fake: FakeOpenAI, contenders: list[Contender], runs: int, tool: str | None) -> None:
    """A warm-up each, then `runs` rounds, alternating; with `tool`, each request must offer it."""
    for round_number in range(runs + 1):
        for contender in contenders:
            fake.add_turns({"text": ANSWER})
            contender.run_once()
            if tool is not None:
                tools = fake.requests[-1]["body"].get("tools", [])
                offered = [t["function"]["name"] for t in tools]
                if not any(name.endswith(tool) for name in offered):
                    raise SystemExit(
                        f"{contender.name} did not offer {tool}: {offered}\n{contender.last_errors}"
                    )
            if round_number == 0:
                contender.samples.clear()  # the warm-up fills the page cache; not counted


def verdict(ratio: float, goal: float) -> str:
    return f"{ratio:.2f} (goal <= {goal:.2f}) {'ok' if ratio <= goal else 'MISSED'}"


def report(title: str, contenders: list[Contender]) -> None:
    print(f"\n{title}, median of {len(contenders[0].samples)} runs")
    for contender in contenders:
        print(
            f"  {contender.name:<22} {contender.wall:6.2f} s  {contender.rss:6.0f} MiB"
            f"  ({contender.cpu:.2f} s CPU)"
        )
    agent, *others = contenders
    by_name = {contender.name.split()[0]: contender for contender in others}
    fast, bare = by_name.get("fast-agent"), by_name.get("bare")
    via_litellm = next((c for c in others if c.name.endswith("via litellm")), None)
    if fast is not None:
        print(f"  wall, agent / fast-agent:         {verdict(agent.wall / fast.wall, 0.9)}")
    if bare is not None:
        print(f"  peak RSS, agent / bare litellm:   {verdict(agent.rss / bare.rss, 1.05)}")
    if via_litellm is not None and fast is not None:
        ratio = via_litellm.wall / fast.wall
        print(f"  wall, agent via litellm / fast-agent: {ratio:.2f} (no goal)")
    from_env = next((c for c in others if c.name.endswith("OPENAI_BASE_URL")), None)
    if from_env is not None and fast is not None:
        ratio = from_env.wall / fast.wall
        print(f"  wall, agent with OPENAI_BASE_URL / fast-agent: {verdict(ratio, 0.9)}")
    if from_env is not None and bare is not None:
        ratio = from_env.rss / bare.rss
        print(f"  peak RSS, agent with OPENAI_BASE_URL / bare litellm: {verdict(ratio, 1.05)}")
    if via_litellm is not None and bare is not None:
        ratio = via_litellm.rss / bare.rss
        print(f"  peak RSS, agent via litellm / bare litellm: {verdict(ratio, 1.05)}")


def cli_commands(runs: int, work: Path) -> None:
    env = dict(base_env(), AGENT_HOME=str(work / "home-cli"))
    baseline = Contender("python -c pass", [sys.executable, "-c", "pass"], env, work)
    commands = [
        Contender(f"agent {' '.join(args)}", [AGENT, *args], env, work)
        for args in (["--help"], ["mcp", "list"], ["sessions", "list"])
    ]
    for _ in range(runs + 1):
        for contender in [baseline, *commands]:
            contender.run_once()
    print(f"\ncommands that load no model, median of {runs + 1} runs")
    print(f"  {baseline.name:<22} {baseline.wall * 1000:6.0f} ms")
    limit = 1.5 * baseline.wall + 0.1
    for contender in commands:
        state = "ok" if contender.wall <= limit else "MISSED"
        goal = f"(goal <= {limit * 1000:.0f} ms) {state}"
        print(f"  {contender.name:<22} {contender.wall * 1000:6.0f} ms  {goal}")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=7)
    parser.add_argument("--no-fast-agent", action="store_true", help="leave fast-agent out")
    args = parser.parse_args()
    compile_agent()
    fast = None if args.no_fast_agent else fast_agent()
    server = time_server()
    legacy = legacy_time_server()
    work = Path(tempfile.mkdtemp(prefix="agent-bench-oneshot-"))
    try:
        with FakeOpenAI() as fake:
            plain = oneshot_contenders(fake, fast, None, work)
            race(fake, plain, args.runs, None)
            report("1. one-shot, no MCP server", plain)
            if server is not None:
                with_server = oneshot_contenders(fake, fast, server, work)
                race(fake, with_server, args.runs, "get_current_time")
                report("2. one-shot, one trusted stdio server (mcp-server-time)", with_server)
            if legacy is not None:
                (work / "legacy").mkdir()
                with_legacy = oneshot_contenders(fake, fast, legacy, work / "legacy")
                race(fake, with_legacy, args.runs, "get_current_time")
                title = f"3. one-shot, one trusted legacy stdio server ({LEGACY_TIME_VERSION})"
                report(title, with_legacy)
        cli_commands(args.runs, work)
    finally:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == "__main__":
    main()
