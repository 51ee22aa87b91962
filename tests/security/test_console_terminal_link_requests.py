"""Attack on the new-link channel (issue 23): the console reads its terminal for Enter.

A new one-time link comes only from the console's terminal, so the console reads it. A program
in the background of a shell that reads its terminal is stopped by the kernel (SIGTTIN): run as
`agent mcp console &`, the console would freeze, page and all, and a stop signal would not
end it (each wake-up reads again and is stopped again), leaving the person only SIGKILL and the
servers it started orphaned. Real parts: an interactive bash in a real pseudo-terminal (job
control on, as a person's shell) running the real `agent mcp console`.
"""

from __future__ import annotations

import http.client
import os
import re
import signal
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import pexpect

from tests import deadlines
from tests.commands.test_cli_mcp_console import AGENT
from tests.fixtures.mcp_fixtures import pid_alive

TIMEOUT = deadlines.PROCESS  # seconds: every wait for the shell or the console
LINK = r"Console: http://127\.0\.0\.1:(\d+)/open\?token=([A-Za-z0-9_-]+)"


@contextmanager
def interactive_shell(home: Path) -> Iterator[pexpect.spawn]:
    """bash -i (job control on) in a pseudo-terminal, with AGENT_HOME=home; killed at the end."""
    env = {**os.environ, "AGENT_HOME": str(home), "PS1": "$ ", "PROMPT_TOOLKIT_NO_CPR": "1"}
    shell = pexpect.spawn(
        "bash", ["--norc", "--noprofile", "-i"], env=env, encoding="utf-8", timeout=TIMEOUT
    )
    try:
        shell.expect_exact("$ ")
        yield shell
    finally:
        shell.close(force=True)


def link_answer(port: str, token: str) -> int:
    """The status of GET /open?token=... (a frozen console answers nothing: a timeout)."""
    connection = http.client.HTTPConnection("127.0.0.1", int(port), timeout=TIMEOUT)
    try:
        connection.request("GET", f"/open?token={token}")
        return connection.getresponse().status
    finally:
        connection.close()


def test_the_console_as_a_background_job_of_a_shell_keeps_serving_and_stops_on_sigterm(
    agent_home: Path,
) -> None:
    with interactive_shell(agent_home) as shell:
        shell.sendline(f"{AGENT} mcp console --no-browser --port 0 & echo pid=$!")
        shell.expect(r"pid=(\d+)")
        pid = int(shell.match[1])
        try:
            shell.expect(LINK)
            port, token = shell.match[1], shell.match[2]
            status = link_answer(port, token)
            os.kill(pid, signal.SIGTERM)
            shell.expect_exact("Console stopped.")
            shell.sendline("wait; echo status=$?")
            shell.expect(r"status=(\d+)")
            assert (status, shell.match[1]) == (200, "0")
        finally:
            if pid_alive(pid):
                os.kill(pid, signal.SIGKILL)


def test_enter_in_the_consoles_own_terminal_prints_a_new_link_and_ctrl_c_stops_it(
    agent_home: Path,
) -> None:
    with interactive_shell(agent_home) as shell:
        shell.sendline(f"{AGENT} mcp console --no-browser --port 0")
        shell.expect(LINK)
        first = shell.match[2]
        shell.expect_exact("Press Enter here for a new link")
        shell.send("\r")
        shell.expect(LINK)
        port, second = shell.match[1], shell.match[2]
        old, new = link_answer(port, first), link_answer(port, second)
        shell.sendintr()
        shell.expect_exact("Console stopped.")
        shell.expect_exact("$ ")
        shell.sendline("echo status=$?")
        shell.expect(r"status=(\d+)")

    assert (old, new, shell.match[1]) == (403, 200, "0")
    assert re.fullmatch(r"[A-Za-z0-9_-]{43}", second) and second != first
