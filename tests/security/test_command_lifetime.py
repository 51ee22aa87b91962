"""A command tool's program never outlives the call that started it: not when `agent` is
ended by SIGTERM or SIGHUP (the program runs in a session of its own, so the signal never
reaches it), and a descendant that left the group cannot make a finished call look timed out.
Real `agent` binary, real in-process commands server, real programs, checked by pid."""

from __future__ import annotations

import os
import select
import signal
import subprocess
import sys
import time
from pathlib import Path

import anyio
import pytest

from agent.processes.runner import run_command
from tests.fixtures.mcp_fixtures import pid_alive, pid_ends
from tests.security.command_tools_helpers import (
    AGENT,
    TIMEOUT,
    call,
    make_project,
    save_commands_server,
    structured,
)

# Writes its pid into the FIFO named by its argument, then sleeps far longer than any test.
NAPPER = """\
import os, sys, time
with open(sys.argv[1], "w") as fifo:
    fifo.write(str(os.getpid()))
time.sleep(600)
"""


def _pid_from(fifo: Path) -> int:
    descriptor = os.open(fifo, os.O_RDONLY | os.O_NONBLOCK)
    try:
        readable, _, _ = select.select([descriptor], [], [], TIMEOUT)
        assert readable, "the program never started"
        return int(os.read(descriptor, 64))
    finally:
        os.close(descriptor)


def _ends(pid: int) -> bool:
    return pid_ends(pid, TIMEOUT)


# SIGTERM and SIGHUP are handled (the program's group is killed, the agent exits 128+n with a
# line); SIGKILL runs no handler: the kernel ends the program when its parent dies (Linux).
@pytest.mark.parametrize("ending", [signal.SIGTERM, signal.SIGHUP, signal.SIGKILL])
def test_ending_the_agent_by_signal_kills_the_running_program(
    tmp_path: Path, agent_home: Path, ending: signal.Signals
) -> None:
    if ending == signal.SIGKILL and sys.platform != "linux":
        pytest.skip("PR_SET_PDEATHSIG is Linux's")
    project = make_project(tmp_path)
    (project / "napper.py").write_text(NAPPER)
    fifo = tmp_path / "started.fifo"
    os.mkfifo(fifo)
    tool = {"command": [sys.executable, "napper.py", str(fifo)], "timeout": 600}
    save_commands_server(agent_home, project, {"nap": tool})
    agent = subprocess.Popen(
        [AGENT, "mcp", "call", "cmd", "nap", "--args", "{}"],
        cwd=project, stdin=subprocess.DEVNULL, stdout=subprocess.PIPE, stderr=subprocess.PIPE,
    )  # fmt: skip
    program = 0
    try:
        program = _pid_from(fifo)
        agent.send_signal(ending)
        _, stderr = agent.communicate(timeout=TIMEOUT)
        assert _ends(program), "the program outlived the agent"
        if ending != signal.SIGKILL:
            assert agent.returncode == 128 + ending
            assert f"agent: ended by {ending.name}" in stderr.decode()
    finally:
        agent.kill()
        agent.communicate(timeout=TIMEOUT)
        if program and pid_alive(program):
            os.kill(program, signal.SIGKILL)


# Starts `sleep 300` in a session of its own that inherits stdout, says its pid, exits 0.
DAEMONIZER = """\
import subprocess
child = subprocess.Popen(["sleep", "300"], start_new_session=True)
print(child.pid, flush=True)
"""


def test_a_setsid_grandchild_holding_stdout_does_not_make_the_call_time_out(
    tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    (project / "daemonizer.py").write_text(DAEMONIZER)
    # A timeout longer than any start on a loaded machine: waiting for the grandchild (300 s)
    # would run into it, and nothing else could.
    tool = {"command": [sys.executable, "daemonizer.py"], "timeout": 150}
    save_commands_server(agent_home, project, {"spawn": tool})
    started = time.monotonic()

    result = call(project, "spawn", {})

    elapsed = time.monotonic() - started
    outcome = structured(result.stdout)
    grandchild = int(outcome["stdout"].split()[0])
    try:
        assert result.returncode == 0, result.stderr
        assert (outcome["exit_code"], outcome["timed_out"]) == (0, False)
        assert elapsed < 150, "the call waited for the detached grandchild"
        assert "kept its output open" in result.stdout + result.stderr
        assert "a process that left it (setsid, a daemon) was not" in result.stdout + result.stderr
    finally:
        if pid_alive(grandchild):
            os.kill(grandchild, signal.SIGKILL)


# Starts `sleep 300` in its own process group (not a new session) holding stdout, exits 3.
HOLDER = """\
import subprocess, sys
child = subprocess.Popen(["sleep", "300"])
print(child.pid, flush=True)
sys.exit(3)
"""


@pytest.mark.anyio
async def test_a_grandchild_in_the_group_holding_stdout_is_killed_and_the_exit_code_kept(
    tmp_path: Path,
) -> None:
    (tmp_path / "holder.py").write_text(HOLDER)

    with anyio.fail_after(TIMEOUT):
        outcome = await run_command(
            [sys.executable, "holder.py"], cwd=str(tmp_path), env=dict(os.environ), timeout=20
        )

    assert (outcome.exit_code, outcome.timed_out, outcome.output_held) == (3, False, True)
    assert _ends(int(outcome.stdout))
