"""Helpers for the command tools tests: a project with probe programs, a commands server saved
and trusted as a person's yes records it, and the real `agent` binary to call it."""

from __future__ import annotations

import io
import json
import os
import subprocess
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Any

import pexpect

from tests import deadlines
from tests.pty_chat import AGENT, spawn_agent

TIMEOUT = deadlines.PROCESS

# Writes its arguments (after the script name) as JSON to argv.json in its working directory.
PROBE = """\
import json, sys
with open("argv.json", "w") as handle:
    json.dump(sys.argv[1:], handle)
print("probe ran")
"""


def make_project(root: Path) -> Path:
    """A git project (so it is the project directory) holding probe.py."""
    project = root / "project"
    (project / ".git").mkdir(parents=True)
    (project / "probe.py").write_text(PROBE, encoding="utf-8")
    return project


def probe_tool(*elements: str, properties: Mapping[str, Any], **extra: Any) -> dict[str, Any]:
    """A tool running `python probe.py ELEMENTS...` with the given argument schema."""
    return {
        "command": [sys.executable, "probe.py", *elements],
        "input_schema": {"type": "object", "properties": dict(properties)},
        **extra,
    }


def save_commands_server(
    agent_home: Path,
    project: Path,
    tools: Mapping[str, Any],
    *,
    name: str = "cmd",
    environ: Mapping[str, str] | None = None,
    trust: bool = True,
    env: Mapping[str, str] | None = None,
) -> None:
    """Save a commands server (cwd: the project) enabled with every tool selected, trusted
    for `environ` as answering yes to the trust question records it."""
    from agent.mcp.config.definitions import fingerprint
    from agent.mcp.config.document import parse_document_data
    from agent.mcp.store import CachedTool, McpStore
    from agent.mcp.trust.launches import launch_trust_for, remember

    store = McpStore(agent_home / "mcp-servers.json")
    server: dict[str, Any] = {"type": "commands", "cwd": str(project), "tools": tools}
    if env is not None:
        server["env"] = dict(env)
    document = {"mcpServers": {name: server}}
    store.replace_definitions(parse_document_data(document, "test").definitions)
    definition = store.load().find(name)
    cached = tuple(
        CachedTool(tool, None, dict(body.get("input_schema", {"type": "object"})))
        for tool, body in tools.items()
    )

    def update(state: Any) -> Any:
        state = replace(state, enabled=True, cached_tools=cached, enabled_tools=tuple(tools))
        if trust:
            verdict = launch_trust_for(project, environ).verdict(definition, ())  # type: ignore[arg-type]
            state = replace(state, trusted_launches=remember((), verdict.record))
        return state

    store.update_state(name, fingerprint(definition), update)


def agent(
    *args: str, cwd: Path, env: Mapping[str, str] | None = None
) -> subprocess.CompletedProcess[str]:
    """`agent ARGS` in `cwd`, without a terminal."""
    return subprocess.run(
        [AGENT, *args],
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        cwd=cwd,
        env=dict(env or os.environ),
        timeout=TIMEOUT,
        check=False,
    )


def call(
    project: Path, tool: str, arguments: Mapping[str, Any], *extra: str, server: str = "cmd"
) -> subprocess.CompletedProcess[str]:
    """`agent mcp call SERVER TOOL --args JSON` in the project."""
    return agent("mcp", "call", server, tool, "--args", json.dumps(arguments), *extra, cwd=project)


def structured(output: str) -> dict[str, Any]:
    """The structured result a call printed (the line of JSON text, after any note)."""
    value: dict[str, Any] = json.loads(
        next(line for line in output.splitlines() if line[:1] == "{")
    )
    return value


def at_terminal(
    *args: str, cwd: Path, answers: Sequence[tuple[str, str]], env: Mapping[str, str] | None = None
) -> tuple[int | None, str]:
    """`agent ARGS` in `cwd` on a pseudo-terminal, answering each prompt once it shows."""
    environ = {**(env or os.environ), "PROMPT_TOOLKIT_NO_CPR": "1"}
    shown = io.StringIO()
    child = spawn_agent(list(args), environ, cwd, dimensions=(50, 300), timeout=TIMEOUT)
    child.logfile_read = shown
    try:
        for prompt, answer in answers:
            child.expect_exact(prompt)
            child.sendline(answer)
        child.expect(pexpect.EOF)
    finally:
        child.close()
    return child.exitstatus, shown.getvalue()
