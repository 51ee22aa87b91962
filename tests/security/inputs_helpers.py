"""Running the real `agent` against the scripted model, for the hostile-input tests."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

from tests import deadlines
from tests.fake_openai import FakeOpenAI

AGENT = str(Path(sys.executable).with_name("agent"))


def agent_env(home: Path, agent_home: Path | None) -> dict[str, str]:
    """The environment of a person whose home is `home`; AGENT_HOME unset when None."""
    env = dict(os.environ)
    env.update(HOME=str(home), OPENAI_API_KEY="sk-test", TERM="xterm", PROMPT_TOOLKIT_NO_CPR="1")
    for name in ("AGENT_HOME", "AGENT_MODEL", "XDG_CONFIG_HOME", "XDG_DATA_HOME", "XDG_CACHE_HOME"):
        env.pop(name, None)
    if agent_home is not None:
        env["AGENT_HOME"] = str(agent_home)
    return env


def run_agent(
    args: list[str], env: dict[str, str], cwd: Path, timeout: float = deadlines.PROCESS
) -> subprocess.CompletedProcess[str]:
    """`agent ARGS` with no terminal (a new session), stdin empty; bounded by `timeout`."""
    return subprocess.run(
        [AGENT, *args],
        input="",
        capture_output=True,
        text=True,
        env=env,
        cwd=cwd,
        timeout=timeout,
        start_new_session=True,
    )


def one_shot(
    turns: list[dict[str, Any]],
    prompt: str,
    env: dict[str, str],
    cwd: Path,
    timeout: float = 60,
    extra: tuple[str, ...] = (),
) -> tuple[subprocess.CompletedProcess[str], list[dict[str, Any]]]:
    """`agent [EXTRA] -p PROMPT` against a scripted model; the run and the model's requests."""
    with FakeOpenAI(turns) as fake:
        args = ["--model", "openai/fake-model", "--api-base", fake.base_url, *extra, "-p", prompt]
        done = run_agent(args, env, cwd, timeout)
        return done, fake.requests


def tool_results(request: dict[str, Any]) -> dict[str, str]:
    """The tool results a request carried, by call id."""
    return {
        str(m["tool_call_id"]): str(m["content"])
        for m in request["body"]["messages"]
        if m["role"] == "tool"
    }
