"""A skill's folder as run_command uses it: refused when it is, holds or lies in a hidden
place, entered without following a link, and mounted by descriptor before the hidden places."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.tools.base import CallRefusedError
from agent.tools.pinned_folder import pin_folder
from agent.tools.sandbox import Fence, bwrap_command
from agent.tools.skill_run_folder import hidden_refusal, skill_cwd


def test_a_skill_folder_that_is_holds_or_lies_in_a_hidden_place_is_refused(tmp_path: Path) -> None:
    skill = tmp_path / "home" / ".agents" / "skills" / "x"
    skill.mkdir(parents=True)
    pin = pin_folder(skill)
    home = (tmp_path / "home").resolve()
    assert hidden_refusal("x", pin, [home / ".ssh"]) is None
    assert " is " in str(hidden_refusal("x", pin, [pin.path]))
    assert " lies in " in str(hidden_refusal("x", pin, [home / ".agents"]))
    assert " holds " in str(hidden_refusal("x", pin, [pin.path / "secrets"]))


def test_a_commands_folder_in_a_skill_is_reached_without_following_a_link(tmp_path: Path) -> None:
    (tmp_path / "skill" / "scripts").mkdir(parents=True)
    (tmp_path / "skill" / "out").symlink_to("/", target_is_directory=True)
    pin = pin_folder(tmp_path / "skill")
    assert skill_cwd("x", pin, "scripts/.") == pin.path / "scripts"
    with pytest.raises(CallRefusedError, match="never through a link"):
        skill_cwd("x", pin, "out/etc")
    with pytest.raises(CallRefusedError, match="outside the skill's folder"):
        skill_cwd("x", pin, "../..")
    with pytest.raises(CallRefusedError, match="not a folder"):
        skill_cwd("x", pin, "missing")


def test_the_skills_folder_is_mounted_by_descriptor_before_what_is_hidden(tmp_path: Path) -> None:
    skill, hidden = tmp_path / "skill", tmp_path / "hidden"
    skill.mkdir()
    hidden.mkdir()
    fence = Fence(tmp_path, skill, False, hidden=(hidden,), readable=(skill,))

    options = bwrap_command("bwrap", fence, ["true"], folder_fds={skill: 7})

    mount = options.index("--ro-bind-fd")
    assert options[mount : mount + 3] == ["--ro-bind-fd", "7", str(skill)]
    assert mount < options.index(str(hidden))
