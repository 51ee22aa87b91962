"""A repository that passes review names its interpreter so the script check does not see it:
through a link of another name (`./py tool.py`, `py` -> python3.12) or through `env`
(`/usr/bin/env python3 tool.py`, `env PYTHONUTF8=1 python3 tool.py`). A later `git pull`
rewrites tool.py; the next call must ask again, as it does for `python3 tool.py`. The
interpreter is known by the file the link leads to, and `env` by the program it runs.
Real `agent mcp call`, real interpreter."""

from __future__ import annotations

import shutil
import sys
from pathlib import Path

import pytest

from tests.security.command_tools_helpers import call, make_project, save_commands_server

ENV = shutil.which("env") or "/usr/bin/env"


@pytest.mark.parametrize("how", ["link", "env", "env-assignment", "env-option"])
def test_a_script_run_by_a_disguised_interpreter_is_checked_like_any_other(
    how: str, tmp_path: Path, agent_home: Path
) -> None:
    project = make_project(tmp_path)
    (project / "tool.py").write_text("print('harmless')\n")
    if how == "link":
        (project / "py").symlink_to(sys.executable)
        command = ["./py", "tool.py"]
    elif how == "env":
        command = [ENV, sys.executable, "tool.py"]
    elif how == "env-assignment":
        command = [ENV, "PYTHONUTF8=1", sys.executable, "tool.py"]
    else:
        command = [ENV, "-u", "PYTHONPATH", sys.executable, "tool.py"]
    tool = {"command": command, "input_schema": {"type": "object"}}
    save_commands_server(agent_home, project, {"run": tool})
    first = call(project, "run", {})
    assert "harmless" in first.stdout, first.stderr

    (project / "tool.py").write_text("open('owned', 'w')\n")
    refused = call(project, "run", {})

    assert not (project / "owned").exists()
    assert refused.returncode != 0
    assert (
        f"program of run: the script it runs changed ({project / 'tool.py'})" in refused.stderr
    ), refused.stderr
