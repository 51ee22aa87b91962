"""run_command against real programs: a project, a home and agent's folder in tmp_path, and the
tool built the way the chat builds it."""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from agent.messages import ToolResult
from agent.settings import CommandsSettings
from agent.tools.base import CallRefusedError
from agent.tools.command_tool import RunCommand, SkillFolder
from agent.tools.sandbox import SandboxState, sandbox_state

# The interpreter by its real path: a venv under /tmp (a clone checked out there) is not in the
# sandbox, whose /tmp is its own; the real interpreter runs these stdlib-only scripts the same.
PYTHON = os.path.realpath(sys.executable)


def folder_outside_tmp() -> Iterator[Path]:
    """A folder under /var/tmp, removed afterwards: inside the sandbox /tmp is a fresh, empty
    one, which would hide whatever a test put under pytest's usual tmp_path, and so prove
    nothing about the fence. Requires the sandbox (skip, or fail under AGENT_REQUIRE_SANDBOX)."""
    require_sandbox()
    base = Path(tempfile.mkdtemp(prefix="agent-run-command-", dir="/var/tmp")).resolve()
    try:
        yield base
    finally:
        shutil.rmtree(base, ignore_errors=True)


def folder_in_tmp(prefix: str) -> Iterator[Path]:
    """A fresh folder in the real /tmp (the place the sandbox replaces by its own), removed
    afterwards."""
    folder = Path(tempfile.mkdtemp(prefix=prefix, dir="/tmp")).resolve()
    try:
        yield folder
    finally:
        shutil.rmtree(folder, ignore_errors=True)


def fake_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """HOME as tmp_path/home (made), and the agent-home folder beside it made too."""
    home = tmp_path / "home"
    home.mkdir(exist_ok=True)
    monkeypatch.setenv("HOME", str(home))
    (tmp_path / "agent-home").mkdir(exist_ok=True)
    return home


def require_sandbox() -> None:
    """Skip without bubblewrap (or fail, when AGENT_REQUIRE_SANDBOX=1 as .ci/run sets)."""
    state = sandbox_state()
    if state.available:
        return
    if os.environ.get("AGENT_REQUIRE_SANDBOX") == "1":
        pytest.fail(f"AGENT_REQUIRE_SANDBOX=1 but {state.reason}")
    pytest.skip(state.reason)


class Skills:
    """The SkillFolders seam: the skills a test says are active."""

    def __init__(self, *folders: SkillFolder) -> None:
        self.folders = {folder.name: folder for folder in folders}

    def folder(self, name: str) -> SkillFolder:
        if name not in self.folders:
            raise LookupError(f"skill {name!r} is not active in this chat")
        return self.folders[name]


def make_tool(
    tmp_path: Path,
    *,
    sandboxed: bool = True,
    settings: CommandsSettings | None = None,
    skills: Skills | None = None,
    environ: dict[str, str] | None = None,
) -> RunCommand:
    """run_command over tmp_path/project, agent's folder tmp_path/agent-home; without
    `sandboxed`, as on a machine where bubblewrap cannot run."""
    project = tmp_path / "project"
    project.mkdir(exist_ok=True)
    own = tmp_path / "agent-home"
    own.mkdir(exist_ok=True)
    state = sandbox_state if sandboxed else (lambda: SandboxState(None, "no bwrap (test)"))
    return RunCommand(
        project.resolve(),
        [own.resolve()],
        settings or CommandsSettings(),
        skills,
        sandbox=state,
        environ=dict(os.environ) if environ is None else environ,
    )


def run(tool: RunCommand, **arguments: Any) -> tuple[list[str], ToolResult]:
    """Preview (what the approval shows), then run: as a `y` does."""
    lines = tool.preview(arguments)
    result = anyio.run(tool.run, arguments)
    return lines, result


def refused(tool: RunCommand, **arguments: Any) -> str:
    """The reason a call is refused before anyone is asked."""
    with pytest.raises(CallRefusedError) as caught:
        tool.preview(arguments)
    return str(caught.value)
