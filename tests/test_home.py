"""Where files live, and atomic writes."""

from __future__ import annotations

import ast
import stat
import sys
from pathlib import Path

import pytest

import agent
from agent.home import atomic_write, config_home, data_home, own_folders


def test_agent_home_overrides_both_homes(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("AGENT_HOME", str(tmp_path / "elsewhere"))

    assert (config_home(), data_home()) == (tmp_path / "elsewhere", tmp_path / "elsewhere")


@pytest.mark.skipif(sys.platform != "linux", reason="XDG folders are the Linux convention")
def test_without_agent_home_the_homes_are_the_platform_folders_for_agent(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENT_HOME")
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))

    assert (config_home(), data_home()) == (
        tmp_path / "xdg-config" / "agent",
        tmp_path / "xdg-data" / "agent",
    )


@pytest.mark.skipif(sys.platform != "linux", reason="XDG folders are the Linux convention")
def test_own_folders_are_the_homes_and_the_platform_folders_for_agent_even_with_agent_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("AGENT_HOME", str(tmp_path / "elsewhere"))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path / "xdg-config"))
    monkeypatch.setenv("XDG_DATA_HOME", str(tmp_path / "xdg-data"))
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path / "xdg-cache"))

    assert own_folders() == tuple(
        sorted(
            (
                tmp_path / "elsewhere",
                tmp_path / "xdg-cache" / "agent",
                tmp_path / "xdg-config" / "agent",
                tmp_path / "xdg-data" / "agent",
            )
        )
    )


def test_platformdirs_is_imported_by_home_alone() -> None:
    package = Path(agent.__file__).parent
    importers = []
    for source in sorted(package.rglob("*.py")):
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            names = (
                [alias.name for alias in node.names] if isinstance(node, ast.Import) else
                [node.module or ""] if isinstance(node, ast.ImportFrom) else []
            )  # fmt: skip
            if any(name.split(".")[0] == "platformdirs" for name in names):
                importers.append(source.relative_to(package).as_posix())

    assert sorted(set(importers)) == ["home.py"]


def test_atomic_write_creates_a_private_file_and_its_folder(agent_home: Path) -> None:
    path = agent_home / "nested" / "state.json"

    atomic_write(path, b'{"a": 1}\n')

    assert path.read_bytes() == b'{"a": 1}\n'
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) & 0o077 == 0


def test_atomic_write_replaces_an_existing_file_and_leaves_no_temp_files(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(b"old contents that are longer than the new ones")
    path.chmod(0o644)

    atomic_write(path, b"new")

    assert path.read_bytes() == b"new"
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]


def test_atomic_write_honours_an_explicit_mode(tmp_path: Path) -> None:
    path = tmp_path / "shared.txt"

    atomic_write(path, b"x", mode=0o644)

    assert stat.S_IMODE(path.stat().st_mode) == 0o644


def test_a_failed_atomic_write_keeps_the_old_file_and_cleans_up(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    path.write_bytes(b"old")

    with pytest.raises(TypeError):
        atomic_write(path, "text is not bytes")  # type: ignore[arg-type]

    assert path.read_bytes() == b"old"
    assert [p.name for p in tmp_path.iterdir()] == ["config.json"]
