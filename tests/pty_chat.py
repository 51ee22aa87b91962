"""The chat as a person meets it, for tests: the real `agent` binary in a pseudo-terminal with a
throwaway home, and the scripted fake model server as a process whose requests are read back."""

from __future__ import annotations

import json
import os
import shlex
import subprocess
import sys
import time
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path
from typing import Any

import pexpect

from tests import deadlines

AGENT = str(Path(sys.executable).with_name("agent"))
TIMEOUT = deadlines.EXPECT
MODEL = "openai/fake-model"
# Rows and columns of the terminal a chat is drawn in, unless a test needs wider lines.
DIMENSIONS = (40, 120)


class FakeModelProcess:
    """`python -m tests.fake_openai` with a script; requests are read back from its log."""

    def __init__(self, tmp_path: Path, turns: list[dict[str, Any]]) -> None:
        script = tmp_path / "turns.json"
        script.write_text(json.dumps(turns))
        self.log = tmp_path / "requests.jsonl"
        repo = Path(__file__).resolve().parent.parent
        self.process = subprocess.Popen(
            [sys.executable, "-m", "tests.fake_openai", "--script", str(script),
             "--requests-log", str(self.log)],
            cwd=repo,
            stdout=subprocess.PIPE,
            text=True,
        )  # fmt: skip
        assert self.process.stdout is not None
        line = self.process.stdout.readline()
        assert line.startswith("PORT "), line
        self.base_url = f"http://127.0.0.1:{int(line.split()[1])}/v1"

    def requests(self) -> list[dict[str, Any]]:
        return [json.loads(line) for line in self.log.read_text().splitlines()]

    def stop(self) -> None:
        self.process.terminate()
        self.process.wait(timeout=deadlines.STOP)
        assert self.process.stdout is not None
        self.process.stdout.close()


def pty_env(agent_home: Path, tmp_path: Path, *, colours: bool = False) -> dict[str, str]:
    """The environment of a chat under pexpect: its own homes, a fake key and no colours; with
    `colours`, a colour terminal and NO_COLOR as this process has it."""
    env = dict(os.environ)
    (tmp_path / "home").mkdir(exist_ok=True)
    env.update(
        HOME=str(tmp_path / "home"),  # no user skills from the real ~/.agents
        AGENT_HOME=str(agent_home),
        OPENAI_API_KEY="sk-test",
        PROMPT_TOOLKIT_NO_CPR="1",
        TERM="xterm-256color" if colours else "xterm",
    )
    if not colours:
        env["NO_COLOR"] = "1"
    for variable in ("AGENT_MODEL", "OPENAI_BASE_URL", "OPENAI_API_BASE"):
        env.pop(variable, None)  # the person's model choices are not the test's
    return env


def model_args(base_url: str) -> list[str]:
    """The command-line arguments that point agent at the scripted model."""
    return ["--model", MODEL, "--api-base", base_url]


class AgentPty(pexpect.spawn):
    """A pexpect child whose forced close waits for the kill to be reaped.

    ptyprocess sends SIGKILL and looks 0.1 s later; on a loaded machine the child may not be
    reaped by then, and close raised "Could not terminate the child" after the test's own
    checks had passed."""

    def close(self, force: bool = True) -> None:
        try:
            super().close(force=force)
        except pexpect.ExceptionPexpect:
            if not force:
                raise
            deadline = time.monotonic() + 10
            while self.isalive() and time.monotonic() < deadline:
                time.sleep(0.05)
            super().close(force=force)


def spawn_agent(
    args: Sequence[str],
    env: dict[str, str],
    cwd: Path | None,
    *,
    dimensions: tuple[int, int] | None = DIMENSIONS,
    timeout: float = TIMEOUT,
) -> pexpect.spawn:
    """`agent ARGS` in a pseudo-terminal of `dimensions` (None: pexpect's 24 by 80)."""
    return AgentPty(
        AGENT,
        list(args),
        env=env,
        cwd=None if cwd is None else str(cwd),
        encoding="utf-8",
        timeout=timeout,
        dimensions=dimensions,
    )


PAGER_LINE = r"-- lines (\d+)-\d+ of \d+"


def page_to(chat: pexpect.spawn, question: str, *, pressed: int = 0) -> str:
    """Press space once at each page of a paged dialog until `question` is on screen; what was
    drawn on the way. A page is drawn more than once (its pager line comes back after a pause in
    the typing, and once more as the dialog ends), so only a page later than the last one
    pressed at takes a space. `pressed`: the first line of the page the caller pressed at."""
    drawn = ""
    while chat.expect([PAGER_LINE, question]) == 0:
        drawn += chat.before
        first = int(chat.match.group(1))
        if first > pressed:
            pressed = first
            chat.send(" ")
    return drawn + chat.before


def spawn_chat(
    base_url: str, env: dict[str, str], cwd: Path, *, dimensions: tuple[int, int] = DIMENSIONS
) -> pexpect.spawn:
    """The chat against the scripted model at `base_url`, in a pseudo-terminal."""
    return spawn_agent(model_args(base_url), env, cwd, dimensions=dimensions)


@contextmanager
def scripted_chat(
    tmp_path: Path,
    turns: list[dict[str, Any]],
    env: dict[str, str],
    cwd: Path | None = None,
    *,
    dimensions: tuple[int, int] = DIMENSIONS,
) -> Iterator[tuple[pexpect.spawn, FakeModelProcess]]:
    """The chat in a pty (in `cwd`, else `tmp_path`) against a model scripted with `turns`;
    leaving the block closes both (the model's requests stay readable: `fake.requests()`)."""
    fake = FakeModelProcess(tmp_path, turns)
    try:
        chat = spawn_chat(fake.base_url, env, cwd or tmp_path, dimensions=dimensions)
        try:
            yield chat, fake
        finally:
            chat.close(force=True)
    finally:
        fake.stop()


@contextmanager
def running_chat(
    tmp_path: Path, agent_home: Path, turns: list[dict[str, Any]], cwd: Path | None = None
) -> Iterator[tuple[pexpect.spawn, FakeModelProcess]]:
    """The real chat in a pty against a scripted model; leaving the block types /exit and
    waits for the chat to end (after a failure it only closes it). The model's requests stay
    readable afterwards (`fake.requests()`)."""
    with scripted_chat(tmp_path, turns, pty_env(agent_home, tmp_path), cwd) as (chat, fake):
        yield chat, fake
        chat.send("\x15/exit\r")  # Ctrl-U first: keys typed at a question are back in the prompt
        chat.expect(pexpect.EOF)


def finish(chat: pexpect.spawn) -> None:
    """Leave the chat with /exit and check that it ended well (Ctrl-U first: keys typed at a
    question come back to the prompt, and must not become part of the /exit line)."""
    chat.send("\x15/exit\r")
    chat.expect(pexpect.EOF)
    chat.close()
    assert chat.exitstatus == 0


def oneshot_in_terminal(
    base_url: str, prompt: str, env: dict[str, str], cwd: Path
) -> pexpect.spawn:
    """`agent -p PROMPT` started by a shell in a pty of 40x120: the terminal a person runs it
    in, where its questions are asked on /dev/tty."""
    command = shlex.join([AGENT, *model_args(base_url), "-p", prompt])
    return pexpect.spawn("/bin/sh", ["-c", command], env=env, cwd=str(cwd), encoding="utf-8",
                         timeout=TIMEOUT, dimensions=(40, 120))  # fmt: skip


def oneshot_without_terminal(
    base_url: str, prompt: str, env: dict[str, str], cwd: Path
) -> subprocess.CompletedProcess[str]:
    """`agent -p PROMPT` as a script runs it: no controlling terminal, so nobody can approve."""
    return subprocess.run(
        [AGENT, *model_args(base_url), "-p", prompt],
        input="",
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=deadlines.PROCESS,
        start_new_session=True,
    )
