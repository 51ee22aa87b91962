"""A folder pinned by real path and identity: what opens it, what refuses it, how it is kept."""

from __future__ import annotations

import os
import shutil
from pathlib import Path

import pytest

from agent.tools.pinned_folder import (
    FolderPin,
    MovedFolderError,
    opened,
    pin_folder,
    place_refusal,
    relative_parts,
)


def test_a_pin_opens_its_folder_until_the_name_leads_to_another(tmp_path: Path) -> None:
    folder = tmp_path / "skill"
    folder.mkdir()
    (tmp_path / "link").symlink_to(folder)
    pin = pin_folder(tmp_path / "link")
    assert pin.path == folder.resolve()  # the real path, not the link's
    with opened(pin) as fd:
        assert os.fstat(fd).st_ino == folder.stat().st_ino

    shutil.rmtree(folder)
    folder.symlink_to("/")
    with pytest.raises(MovedFolderError, match="now leads to another folder"), opened(pin):
        pass
    folder.unlink()
    with pytest.raises(MovedFolderError, match="cannot be opened now"), opened(pin):
        pass


def test_a_pin_round_trips_and_a_malformed_one_vouches_for_nothing(tmp_path: Path) -> None:
    pin = pin_folder(tmp_path)
    assert FolderPin.from_json(pin.to_json()) == pin
    for bad in (None, "x", {"path": "rel", "device": 1, "inode": 2},
                {"path": "/a", "device": "1", "inode": 2}, {"path": "/a", "device": True,
                "inode": 2}):  # fmt: skip
        assert FolderPin.from_json(bad) is None


def test_agents_own_folders_and_the_systems_live_views_are_never_a_skills(tmp_path: Path) -> None:
    own = tmp_path / "agent-home"
    assert "agent's own" in str(place_refusal(own / "skills" / "x", [own]))
    for place in ("/proc/self", "/sys", "/dev/shm"):
        assert "the system's live view" in str(place_refusal(Path(place), [own]))
    assert place_refusal(tmp_path / "skills" / "x", [own]) is None


def test_a_relative_path_that_climbs_out_has_no_parts() -> None:
    assert relative_parts("a/./b/../c.md") == ("a", "c.md")
    assert relative_parts(".") == ()
    assert relative_parts("../x") is None and relative_parts("a/../../x") is None
    assert relative_parts("/etc/passwd") is None
