"""What of the home a sandboxed command sees (agent.tools.sandbox_home), the installation a
program needs (agent.tools.program_installation) and the order of bwrap's mounts, without
running bwrap (tests/security/test_sandbox_home_hidden.py runs it)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from agent.tools.base import CallRefusedError
from agent.tools.command_environment import shown_argv
from agent.tools.program_installation import installation_folders, interpreter_of, venv_base
from agent.tools.sandbox import Fence, bwrap_command
from agent.tools.sandbox_home import (
    Listed,
    changed_listed,
    emptied_home,
    home_lines,
    in_view,
    listed_entries,
)


def test_the_home_is_emptied_unless_it_is_missing_slash_relative_or_in_the_project(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    (home / "work").mkdir(parents=True)
    assert emptied_home(str(home), home / "work") == home  # a project in the home
    assert emptied_home(str(home), tmp_path / "elsewhere") == home
    assert emptied_home(str(home), home) is None  # agent started in the home
    assert emptied_home(str(home), tmp_path) is None  # the project holds the home
    assert emptied_home("/", tmp_path) is None
    assert emptied_home("", tmp_path) is None
    assert emptied_home("relative/home", tmp_path) is None
    assert emptied_home(str(tmp_path / "missing"), tmp_path / "elsewhere") is None
    (tmp_path / "link").symlink_to(home)
    assert emptied_home(str(tmp_path / "link"), tmp_path / "elsewhere") == home  # its real path


def test_listed_entries_are_judged_where_they_lead_and_shown_where_written(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    (home / "dotfiles").mkdir(parents=True)
    (home / "dotfiles" / "gitconfig").write_text("[user]\n")
    (home / ".gitconfig").symlink_to(home / "dotfiles" / "gitconfig")
    (home / ".cargo" / "registry").mkdir(parents=True)
    entries = ("~/.gitconfig", "~/.cargo/registry/", "~/.m2/repository", "/etc/hostname")
    listed = listed_entries(entries, home, str(home), hidden=[home / ".ssh"])

    assert listed.shown == (
        (home / "dotfiles" / "gitconfig", home / ".gitconfig"),
        (home / ".cargo" / "registry", home / ".cargo" / "registry"),
        (Path("/etc/hostname"), Path("/etc/hostname")),
    )
    assert listed.missing == (home / ".m2" / "repository",)
    lines = home_lines(home, str(home), tmp_path / "project", [], listed)
    assert (
        lines[0] == f"home: {home} hidden (an empty one in its place: writable, thrown away after)"
    )
    assert f"visible read-only: {home / '.gitconfig'} (commands.visible_read_only)" in lines
    assert (
        f"not found, so not shown: {home / '.m2' / 'repository'} (commands.visible_read_only)"
        in lines
    )
    assert changed_listed(listed) is None
    (home / ".gitconfig").unlink()
    (home / ".gitconfig").symlink_to(home / ".ssh")
    assert "changed since the question" in (changed_listed(listed) or "")


@pytest.mark.parametrize(
    ("entry", "said"),
    [
        ("~/.", "your home itself"),
        ("~/x/..", "your home itself"),
        ("/", "your home itself"),
        ("~/keys", "SECRET"),  # a link to ~/.ssh: judged where it leads
        ("~/.ssh/config", "SECRET"),
        ("~/agent-data", "SECRET"),  # holds agent's own folder
    ],
)
def test_a_listed_entry_showing_the_home_or_a_hidden_place_is_refused_naming_it(
    tmp_path: Path, entry: str, said: str
) -> None:
    home = tmp_path / "home"
    ssh = home / ".ssh"
    ssh.mkdir(parents=True)
    (ssh / "config").write_text("Host x\n")
    (home / "keys").symlink_to(ssh)
    (home / "x").mkdir()
    own = home / "agent-data" / "agent"
    own.mkdir(parents=True)
    with pytest.raises(CallRefusedError) as caught:
        listed_entries((entry,), home, str(home), hidden=[ssh, own])
    reason = str(caught.value)
    assert reason.startswith(
        f"commands.visible_read_only in settings.yaml lists {shown_argv([entry])}"
    )
    assert said.replace("SECRET", str(ssh) if "agent" not in entry else str(own)) in reason
    assert reason.endswith("nothing ran")


def test_without_a_home_a_tilde_entry_is_refused_and_an_absolute_one_kept(
    tmp_path: Path,
) -> None:
    with pytest.raises(CallRefusedError, match=r"no home \(\$HOME is not set\)"):
        listed_entries(("~/.gitconfig",), None, "", hidden=[])
    assert listed_entries((str(tmp_path),), None, "", hidden=[]).shown == ((tmp_path, tmp_path),)


def test_a_listed_entry_in_a_folder_others_can_change_is_refused(tmp_path: Path) -> None:
    shared = tmp_path / "shared"
    (shared / "cache").mkdir(parents=True)
    shared.chmod(0o777)  # anyone may rename what it holds: swap cache for a link into ~/.ssh
    with pytest.raises(CallRefusedError) as caught:
        listed_entries((str(shared / "cache"),), None, "", hidden=[])
    assert f"{shared} is another user's or open to anyone's changes" in str(caught.value)
    shared.chmod(0o1777)  # the sticky bit: only the owner renames what is theirs, as in /tmp
    assert listed_entries((str(shared / "cache"),), None, "", hidden=[]).shown


def test_a_home_of_slash_empties_nothing_and_expands_tilde_plainly(tmp_path: Path) -> None:
    assert emptied_home("/", tmp_path) is None
    listed = listed_entries(("~/etc/hostname",), None, "/", hidden=[])
    assert listed.shown == ((Path("/etc/hostname"), Path("/etc/hostname")),)


def test_hidden_places_in_the_emptied_home_are_covered_only_inside_what_is_shown(
    tmp_path: Path,
) -> None:
    home = tmp_path / "home"
    project = home / "work" / "app"
    hidden = (home / ".ssh", project / ".env", tmp_path / "agent-home", Path("/run/user"))
    assert in_view(hidden, home, [project]) == hidden[1:]
    assert in_view(hidden, None, [project]) == hidden


def test_bwrap_empties_the_home_before_showing_anything_of_it_and_hides_last(
    tmp_path: Path,
) -> None:
    home, project = tmp_path / "home", tmp_path / "home" / "app"
    venv, registry = home / "venvs" / "x", home / ".cargo" / "registry"
    fence = Fence(
        project=project,
        cwd=project,
        network=False,
        hidden=(project / ".env",),
        environments=(venv,),
        home=home,
        listed=((registry, registry),),
    )
    (project).mkdir(parents=True)
    (project / ".env").write_text("KEY=x\n")
    argv = bwrap_command("bwrap", fence, ["true"])
    place = {word: index for index, word in reversed(list(enumerate(argv)))}
    tmpfs_home = argv.index(str(home)) - 1
    assert argv[tmpfs_home] == "--tmpfs" and argv.index("/tmp") < tmpfs_home
    assert tmpfs_home < place[str(venv)] < place[str(registry)] < place[str(project)]
    assert place[str(project)] < argv.index(str(project / ".env"))
    assert argv[-2:] == ["--", "true"]


def make_prefix(root: Path, *names: str) -> Path:
    for name in names:
        (root / name).mkdir(parents=True, exist_ok=True)
    return root


def test_a_programs_folder_stands_for_its_installation(tmp_path: Path) -> None:
    home = tmp_path / "home"
    venv = make_prefix(home / "venvs" / "x", "bin", "lib")
    (venv / "pyvenv.cfg").write_text("home = /usr/bin\n")
    conda = make_prefix(home / "miniconda3" / "envs" / "d", "bin", "conda-meta")
    pyenv = make_prefix(home / ".pyenv", "shims", "versions/3.11.7/bin", "versions/3.11.7/lib")
    asdf = make_prefix(home / ".asdf", "shims", "installs")
    local = make_prefix(home / ".local", "bin", "lib", "share/keyrings")
    plain = make_prefix(home / "tools", "bin")
    mine = make_prefix(home, "bin", "lib")
    in_tmp = make_prefix(tmp_path / "t", "bin", "lib")
    roots = (tmp_path / "t",)

    def shown(folder: Path) -> list[Path]:
        return installation_folders(folder, home, roots)

    assert shown(venv / "bin") == [venv]
    assert shown(conda / "bin") == [conda]
    assert shown(pyenv / "versions" / "3.11.7" / "bin") == [pyenv / "versions" / "3.11.7"]
    assert shown(pyenv / "shims") == [pyenv]
    assert shown(asdf / "shims") == [asdf]
    assert shown(local / "bin") == [local / "bin", local / "lib"]  # not ~/.local/share
    assert shown(plain / "bin") == [plain / "bin"]  # no lib/: no prefix
    assert shown(mine / "bin") == [mine / "bin"]  # never the home whole
    assert shown(in_tmp / "bin") == [in_tmp / "bin"]  # never an emptied root whole
    assert installation_folders(Path("/bin"), home, roots) == [Path("/bin")]


def test_rustups_proxies_bring_its_toolchains(tmp_path: Path) -> None:
    home = tmp_path / "home"
    cargo_bin = make_prefix(home / ".cargo", "bin") / "bin"
    (cargo_bin / "rustup").write_text("")
    assert installation_folders(cargo_bin, home, ()) == [cargo_bin]  # no ~/.rustup: none
    (home / ".rustup").mkdir()
    assert installation_folders(cargo_bin, home, ()) == [cargo_bin, home / ".rustup"]


def test_a_scripts_interpreter_is_found_as_the_kernel_and_env_find_it(tmp_path: Path) -> None:
    tools = make_prefix(tmp_path / "tools", "bin") / "bin"
    (tools / "node").write_text("")
    (tools / "node").chmod(0o755)
    cases = {
        "absolute": (f"#!{tools / 'node'} --flag\n", tools / "node"),
        "env": ("#!/usr/bin/env node\n", tools / "node"),
        "env -S": ("#!/usr/bin/env -S node --flag\n", tools / "node"),
        "env missing": ("#!/usr/bin/env no-such-interpreter\n", None),
        "relative": ("#!node\n", None),
        "none": ("print('x')\n", None),
    }
    for name, (text, expected) in cases.items():
        script = tmp_path / name
        script.write_text(text)
        assert interpreter_of(script, {"PATH": str(tools)}) == expected, name


def test_a_venvs_base_interpreter_is_read_from_its_pyvenv_cfg(tmp_path: Path) -> None:
    venv = tmp_path / "venv"
    subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(venv)], check=True)
    base = venv_base(venv)
    assert base is not None and (base / os.path.basename(sys._base_executable)).exists()  # type: ignore[attr-defined]
    assert venv_base(tmp_path) is None
    (tmp_path / "pyvenv.cfg").write_text("home = relative/bin\n")
    assert venv_base(tmp_path) is None


def test_a_venvs_base_is_trusted_only_when_its_interpreter_is_the_bases(tmp_path: Path) -> None:
    copied = tmp_path / "copied"
    made = [sys.executable, "-m", "venv", "--without-pip", "--copies", str(copied)]
    subprocess.run(made, check=True)
    assert venv_base(copied) is not None  # an equal copy of the base's interpreter
    # A pyvenv.cfg written by hand (the model writes in the project) naming a token folder:
    # no interpreter of its bin/ is that folder's, so the folder is not the venv's base.
    secrets = tmp_path / "home" / ".kaggle"
    secrets.mkdir(parents=True)
    (secrets / "kaggle.json").write_text("token")
    forged = tmp_path / "forged"
    (forged / "bin").mkdir(parents=True)
    (forged / "pyvenv.cfg").write_text(f"home = {secrets}\n")
    (forged / "bin" / "python").write_text("#!/bin/sh\n")
    (forged / "bin" / "python").chmod(0o755)
    (forged / "bin" / "kaggle.json").symlink_to(secrets / "kaggle.json")  # not executable
    assert venv_base(forged) is None


def test_the_approval_says_a_home_that_is_the_project_is_shown(tmp_path: Path) -> None:
    lines = home_lines(None, str(tmp_path), tmp_path, [tmp_path / "v"], Listed((), ()))
    assert lines == [
        "home: part of the project, so shown (your credential files in it hidden)",
        f"visible read-only: {tmp_path / 'v'}",
    ]
    assert home_lines(None, "/", tmp_path, [], Listed((), ())) == []
