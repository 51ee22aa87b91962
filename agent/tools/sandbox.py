"""The fence run_command's programs run in: bubblewrap (bwrap) on Linux.

What a sandboxed command gets (measured in tests/security/test_run_command_sandbox.py and
test_sandbox_home_hidden.py):
- the home replaced by an empty tmpfs (writable, thrown away), in which only the project, the
  program's own installation and the person's commands.visible_read_only are shown again
  (sandbox_home.py): a token file no list names is out of reach;
- the system folders read-only, the project writable (what of it git or a hook manager runs
  later, outside any sandbox, read-only: later_run_files.py) and a private, empty /tmp;
- inside what is shown, agent's own folders (settings, trust records, sessions, tokens) and the
  person's credential files and folders by name (~/.ssh, ~/.aws, ~/.netrc, ~/*.p12, ..., every
  ~/*.pem and ~/*.key, and other agents' logins, browser profiles, keyrings, shell histories:
  a second layer, for a project that is the home) replaced by empty ones (a key's content is
  not looked for); the sockets
  through which a process could act outside the fence (the user's D-Bus and runtime folder,
  the system bus, container engines) hidden too: a read-only mount does not stop a connect()
  to a socket;
- no network (a network namespace of its own, loopback included) unless the person allowed
  it for this call (then this machine's: the internet and its TCP/UDP services); in both
  modes no new unix socket and no kernel keyring (a seccomp filter, seccomp_filter.py: the
  host's abstract sockets and its keyrings are no namespace's to hide); fresh process, IPC
  and host-name namespaces; no capabilities at all (as root bwrap would keep them, and
  CAP_SYS_ADMIN could remount / writable);
- the skill's folder readable when the command belongs to a skill: the folder pinned when the
  skill was found, mounted by its descriptor before anything hidden (skill_run_folder.py);
- the program's own installation read-only where the private /tmp or the empty home would
  hide it: a venv at /tmp/venvs/x or ~/venvs/x, pyenv's ~/.pyenv, runs as the approval named
  it (visible_environment.py, program_installation.py).

The mounts in order, each over the ones before: / read-only; /tmp and the home emptied; the
program's installation and the listed entries read-only; the project read-write; its read-only
folders; the skill's folder; the hidden places.

Where bwrap is missing or cannot make namespaces, `sandbox_state` says why, and the caller
decides (settings: commands.unsandboxed).
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from agent.text import sanitize_line
from agent.tools.credential_files import CREDENTIAL_FILES, CREDENTIAL_FOLDERS, CREDENTIAL_PATHS
from agent.tools.credential_links import HIDDEN_HOME_PATHS, home_key_files, linked_names_in
from agent.tools.later_run_files import read_only_in_project
from agent.tools.seccomp_filter import command_filter

# Sockets and runtime folders through which a fenced process could act outside the fence.
HIDDEN_SYSTEM_PATHS = (
    "/run/user",
    "/run/dbus",
    "/run/docker.sock",
    "/run/containerd",
    "/run/podman",
    "/var/run/docker.sock",
)
PROBE_TIMEOUT_SECONDS = 5.0


@dataclass(frozen=True)
class SandboxState:
    """Whether commands can be fenced here, with which bwrap, and if not, why not."""

    program: str | None  # the bwrap that works; None: no sandbox
    reason: str = ""  # why there is none, in words for the approval

    @property
    def available(self) -> bool:
        return self.program is not None


@dataclass(frozen=True)
class Fence:
    """What one command may reach."""

    project: Path
    cwd: Path
    network: bool
    hidden: tuple[Path, ...]  # folders and files replaced by empty ones
    # A skill's folder, read-only, mounted before the hidden places (never holding one).
    readable: tuple[Path, ...] = ()
    # Shown again read-only over the private /tmp and the emptied home: the program's venv,
    # toolchain or folder that lies there (visible_environment.py); bound before the project,
    # which may lie inside one.
    environments: tuple[Path, ...] = ()
    # The real home, replaced by an empty tmpfs (sandbox_home.py); None: not replaced.
    home: Path | None = None
    # The person's commands.visible_read_only: (real path, path shown at), read-only.
    listed: tuple[tuple[Path, Path], ...] = ()


def sandbox_state() -> SandboxState:
    """Found once per process: bwrap on PATH, and a trial run that makes every namespace."""
    if not sys.platform.startswith("linux"):
        return SandboxState(None, "bubblewrap runs on Linux only")
    program = shutil.which("bwrap")
    if program is None:
        return SandboxState(None, "bubblewrap is not installed (apt install bubblewrap)")
    return _probe(program)


@cache
def _probe(program: str) -> SandboxState:
    true = shutil.which("true") or "/bin/true"
    probe = [program, *_base_options(network=False), "--", true]
    try:
        done = subprocess.run(probe, capture_output=True, timeout=PROBE_TIMEOUT_SECONDS)
    except (OSError, subprocess.TimeoutExpired) as error:
        return SandboxState(None, f"bubblewrap could not start: {sanitize_line(str(error))}")
    if done.returncode != 0:
        said = done.stderr.decode("utf-8", "replace").strip().splitlines()
        why = sanitize_line(said[-1]) if said else f"exit code {done.returncode}"
        return SandboxState(None, f"bubblewrap cannot make its namespaces here ({why})")
    return SandboxState(program)


def _base_options(*, network: bool) -> list[str]:
    # /tmp is a fresh tmpfs inside the sandbox, seen by nobody else.
    options = ["--ro-bind", "/", "/", "--dev", "/dev", "--proc", "/proc", "--tmpfs", "/tmp"]  # noqa: S108
    options += ["--unshare-all", "--die-with-parent", "--new-session", "--cap-drop", "ALL"]
    if network:
        options.append("--share-net")
    return options


def bwrap_command(
    program: str,
    fence: Fence,
    argv: Sequence[str],
    filter_fd: int | None = None,
    folder_fds: Mapping[Path, int] | None = None,
) -> list[str]:
    """The bwrap command line that runs `argv` inside `fence` (`--` ends bwrap's options, so
    no argument of the command is read as one of them); `filter_fd`: a seccomp filter for
    bwrap to read (seccomp_filter.py), `folder_fds`: descriptors of `fence.readable` folders
    to mount as they are (whatever their paths lead to by now); the caller passes them all to
    the child."""
    options = [program, *_base_options(network=fence.network)]
    if filter_fd is not None:
        options += ["--seccomp", str(filter_fd)]
    if fence.home is not None:
        options += ["--tmpfs", str(fence.home)]
    for folder in fence.environments:
        options += ["--ro-bind", str(folder), str(folder)]
    for real, shown_at in fence.listed:
        options += ["--ro-bind", str(real), str(shown_at)]
    options += ["--bind", str(fence.project), str(fence.project)]
    for folder in read_only_in_project(fence.project):
        options += ["--ro-bind", str(folder), str(folder)]
    # A skill's folder before the hidden places, never after: mounted after them, a folder
    # holding one (a name swapped for a link to /) brought back everything they hide.
    for folder in fence.readable:
        fd = (folder_fds or {}).get(folder)
        source = ["--ro-bind-fd", str(fd)] if fd is not None else ["--ro-bind", str(folder)]
        options += [*source, str(folder)]
    for path in fence.hidden:
        if path.is_dir():
            options += ["--tmpfs", str(path)]
        elif path.exists() or path.is_symlink():
            options += ["--ro-bind", "/dev/null", str(path)]
    options += ["--chdir", str(fence.cwd), "--"]
    return [*options, *argv]


def hidden_paths(home: Path, own_folders: Iterable[Path], project: Path) -> tuple[Path, ...]:
    """What a fenced command must not see: agent's folders, the home's credential files (and
    the project's hard links to them, agent.tools.credential_links), the sockets that reach
    outside. Each by its real path (a linked ~/.ssh is hidden where it
    lies), only those that exist; never the project itself or a folder holding it."""
    own = tuple(own_folders)
    wanted: list[Path] = [*own]
    wanted += [home / name for name in sorted(CREDENTIAL_FOLDERS | CREDENTIAL_FILES)]
    wanted += [home.joinpath(*parts) for parts in sorted(CREDENTIAL_PATHS)]
    wanted += [home.joinpath(*parts) for parts in HIDDEN_HOME_PATHS]
    wanted += home_key_files(home)
    wanted += [Path(path) for path in HIDDEN_SYSTEM_PATHS]
    found: dict[str, Path] = {}
    for path in wanted:
        if not (path.exists() or path.is_symlink()):
            continue
        real = Path(os.path.realpath(path))
        if real == project or real in project.parents or not real.exists():
            continue
        found[str(real)] = real
    # A hard link in the project to one of those files is that file under another path.
    for path in linked_names_in(project, home, own):
        found[str(path)] = path
    return tuple(found[key] for key in sorted(found))


def describe(state: SandboxState, network: bool) -> list[str]:
    """The approval's lines on the fence, plainly."""
    if not state.available:
        return [
            f"sandbox: NONE: {state.reason}",
            "  this command runs with all of your access: any file you can change, the network",
        ]
    # The seccomp filter (seccomp_filter.py) refuses new unix sockets in both modes; on a
    # machine it does not know, unix socket files stay reachable, and with the network on, the
    # host's abstract sockets (the X display) too. With the network on the command shares this
    # machine's network namespace: its loopback services answer it.
    filtered = command_filter() is not None
    closed = "off (unix sockets too)" if filtered else "off"
    reach = "ON for this call (the model asked for it): the internet and TCP/UDP services on "
    reach += "this machine; " + ("no unix sockets" if filtered else "its unix sockets too")
    reach = reach if network else closed
    return [
        "sandbox: bubblewrap: writes only in the project and a private /tmp; agent's folders "
        "and your credential files hidden",
        f"network: {reach}",
    ]
