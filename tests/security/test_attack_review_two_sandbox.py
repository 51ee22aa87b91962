"""Attack review of run_command's shown venvs under /tmp (agent.tools.visible_environment).

- the venv's folder swapped for a link into ~/.ssh between the approval and the run: the bind
  must not show ~/.ssh at the venv's path (the plan is made at the question, run at the yes,
  and the person may take minutes to answer; the "o" answer runs the same plan offline);
- VIRTUAL_ENV at /tmp itself, at /tmp/.. and at a path with `..` through /tmp: /tmp whole is
  never shown, nor / by way of /tmp;
- a venv whose folder holds a link into ~/.ssh: the link leads to the sandbox's empty ~/.ssh.
"""

from __future__ import annotations

import os
import shutil
from collections.abc import Iterator
from pathlib import Path

import anyio
import pytest

from tests.security.run_command_helpers import (
    fake_home,
    folder_in_tmp,
    folder_outside_tmp,
    make_tool,
    refused,
    run,
)
from tests.security.test_run_command_visible_environment import environ_with, make_venv

KEY_TEXT = "SANDBOX-REVIEW-TWO-KEY-CANARY-4242"


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    yield from folder_outside_tmp()


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = fake_home(tmp_path, monkeypatch)
    (home / ".ssh").mkdir()
    (home / ".ssh" / "id_ed25519").write_text(KEY_TEXT + "\n")
    return home


@pytest.fixture
def in_tmp() -> Iterator[Path]:
    yield from folder_in_tmp("agent-review-two-")


@pytest.mark.parametrize("offline", [False, True])
def test_a_venv_swapped_for_a_link_into_ssh_after_the_approval_shows_nothing_of_ssh(
    tmp_path: Path, in_tmp: Path, home: Path, offline: bool
) -> None:
    """Before: the plan kept the checked path, and bwrap bound whatever it named at the run:
    a venv in a /tmp folder another user owns, swapped for a link to ~/.ssh while the person
    read the question, showed the key at the venv's path."""
    venv = make_venv(in_tmp / "venvs" / "x")
    environ = environ_with("/usr/bin", VIRTUAL_ENV=str(venv))
    tool = make_tool(tmp_path, environ=environ)
    arguments = {"argv": ["sh", "-c", 'cat "$VIRTUAL_ENV/id_ed25519"']}
    lines = tool.preview(arguments)
    assert f"visible read-only: {venv}" in lines

    shutil.rmtree(venv)
    venv.symlink_to(home / ".ssh")
    answer = tool.run_without_network if offline else tool.run
    result = anyio.run(answer, arguments)

    assert KEY_TEXT not in result.text
    assert result.is_error and "changed since" in result.text and "nothing ran" in result.text


@pytest.mark.parametrize("value", ["/tmp", "/tmp/..", "/tmp/./", "TMP/../.."])
def test_virtual_env_at_tmp_or_above_it_never_shows_tmp_whole(
    tmp_path: Path, in_tmp: Path, value: str
) -> None:
    (in_tmp / "beside.txt").write_text("another program's file\n")
    value = value.replace("TMP", str(in_tmp))
    tool = make_tool(tmp_path, environ=environ_with("/usr/bin", VIRTUAL_ENV=value))
    arguments = {"argv": ["ls", str(in_tmp)]}
    if Path(value).resolve() == Path("/tmp"):
        assert "lies directly in /tmp" in refused(tool, **arguments)
        return
    lines, result = run(tool, **arguments)
    assert not any(line.startswith("visible read-only") for line in lines), lines
    assert "beside.txt" not in result.text


def test_a_link_into_ssh_inside_a_shown_venv_leads_to_an_empty_ssh(
    tmp_path: Path, in_tmp: Path, home: Path
) -> None:
    venv = make_venv(in_tmp / "venv")
    (venv / "keys").symlink_to(home / ".ssh")
    tool = make_tool(tmp_path, environ=environ_with(str(venv / "bin"), VIRTUAL_ENV=str(venv)))
    lines, result = run(tool, argv=["sh", "-c", f"cat {venv}/keys/id_ed25519; ls {venv}/keys"])
    assert f"visible read-only: {venv}" in lines
    assert KEY_TEXT not in result.text
    assert "No such file" in result.text


@pytest.mark.parametrize("how", ["another user's", "open to all"])
def test_a_venv_in_a_folder_another_user_can_change_is_not_shown(
    tmp_path: Path, in_tmp: Path, how: str
) -> None:
    """Before: a venv in /tmp/shared (another user's) was bound; they could swap it for a link
    into ~/.ssh in the moment between the last check and bwrap's bind."""
    shared = in_tmp / "shared"
    venv = make_venv(shared / "venv")
    if how == "open to all":
        shared.chmod(0o777)
    elif os.geteuid() == 0:
        os.chown(shared, 65534, 65534)
    else:
        pytest.skip("giving a folder to another user needs root")
    tool = make_tool(tmp_path, environ=environ_with(str(venv / "bin"), VIRTUAL_ENV=str(venv)))
    reason = refused(tool, argv=["checker"])
    assert str(shared) in reason and "another user's or open to anyone's" in reason, reason
    assert "nothing ran" in reason


def test_a_program_path_climbing_out_of_tmp_with_dots_into_ssh_is_refused(
    tmp_path: Path, in_tmp: Path, home: Path
) -> None:
    """`/tmp/x/../..<home>/.ssh/tool`: judged where it really is, not by its /tmp start."""
    tool_path = home / ".ssh" / "tool"
    tool_path.write_text("#!/bin/sh\ncat ~/.ssh/id_ed25519\n")
    tool_path.chmod(0o755)
    climbing = f"{in_tmp}/../..{tool_path}"
    reason = refused(make_tool(tmp_path, environ=environ_with("/usr/bin")), argv=[climbing])
    assert "where the sandbox hides" in reason and "nothing ran" in reason, reason
