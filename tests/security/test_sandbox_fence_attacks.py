"""Attacks on issue 39's fence from inside a sandboxed command (the review of findings 2-4).

1. The empty home: a venv's pyvenv.cfg names the folder of the interpreter it was made from,
   and the sandbox shows that folder again read-only. The model writes files in the project, so
   a pyvenv.cfg it wrote there (`home = ~/.kaggle`) had the sandbox show a token folder no list
   names, and a script beside it print the token.
2. Unix sockets: socket(AF_UNIX) is refused, but socketpair() was allowed whole, and a
   datagram pair may still send to any address (sendto) and be connected anew: it reached a
   datagram socket file the fence shows (a logger's, a service's), and with the network on the
   host's abstract datagram sockets.

The home is a fake one under /var/tmp (inside the sandbox /tmp is private already).
"""

from __future__ import annotations

import contextlib
import os
import socket
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.run_command_helpers import (
    PYTHON,
    fake_home,
    folder_outside_tmp,
    make_tool,
    run,
)

CANARY = "FENCE-ATTACK-CANARY-51c2"


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    yield from folder_outside_tmp()


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = fake_home(tmp_path, monkeypatch)
    (home / ".kaggle").mkdir()
    (home / ".kaggle" / "kaggle.json").write_text(f'{{"key": "{CANARY}"}}\n')
    return home


def test_a_pyvenv_cfg_the_model_wrote_in_the_project_shows_no_folder_of_the_home(
    tmp_path: Path, home: Path
) -> None:
    tool = make_tool(tmp_path)
    project = tmp_path / "project"
    # What a sandboxed command (or the model's file tools) can write: files in the project.
    (project / "pyvenv.cfg").write_text(f"home = {home / '.kaggle'}\n")
    venv = project / "venv"
    (venv / "bin").mkdir(parents=True)
    (venv / "pyvenv.cfg").write_text(f"home = {home / '.kaggle'}\n")
    for script in (project / "run", venv / "bin" / "python"):
        script.write_text(f"#!/bin/sh\ncat {home / '.kaggle' / 'kaggle.json'}\n")
        script.chmod(0o755)

    for program in ("./run", "./venv/bin/python"):
        lines, result = run(tool, argv=[program])

        assert CANARY not in result.text, (program, result.text)
        assert f"visible read-only: {home / '.kaggle'}" not in lines, (program, lines)


@pytest.mark.parametrize("network", [False, True])
def test_a_datagram_socketpair_reaches_no_unix_socket_of_this_machine(
    tmp_path: Path, network: bool
) -> None:
    on_file = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    on_file.bind(str(tmp_path / "service.sock"))  # a folder the fence shows read-only
    abstract = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    abstract.bind(f"\0agent-fence-attack-{tmp_path.name}")
    targets = [str(tmp_path / "service.sock"), f"\0agent-fence-attack-{tmp_path.name}"]
    code = (
        "import socket\n"
        f"for target in {targets!r}:\n"
        "    for kind in (socket.SOCK_DGRAM, 3, socket.SOCK_STREAM):\n"  # 3: SOCK_RAW
        "        try:\n"
        "            a, b = socket.socketpair(socket.AF_UNIX, kind)\n"
        "        except OSError as error:\n"
        "            print('pair refused', kind, error.errno); continue\n"
        "        for how in ('sendto', 'connect'):\n"
        "            try:\n"
        "                if how == 'sendto':\n"
        "                    a.sendto(b'REACHED by sendto', target)\n"
        "                else:\n"
        "                    a.connect(target); a.send(b'REACHED by connect')\n"
        "                print('REACHED', how, kind)\n"
        "            except OSError as error:\n"
        "                print(how, kind, 'failed', error.errno)\n"
        "a, b = socket.socketpair(); a.send(b'own'); print('own pair', b.recv(3))\n"
    )
    tool = make_tool(tmp_path)
    try:
        _, result = run(tool, argv=[PYTHON, "-c", code], network=network)
        received = []
        for listener in (on_file, abstract):
            listener.setblocking(False)
            with contextlib.suppress(BlockingIOError):
                received.append(listener.recv(100))
    finally:
        on_file.close()
        abstract.close()

    assert "REACHED" not in result.text, result.text
    assert received == [], received
    assert "own pair b'own'" in result.text, result.text  # a stream pair still works


@pytest.mark.parametrize("home_value", ["relative/home", "/", ""])
def test_a_home_value_that_names_no_home_still_hides_the_accounts_home(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, home_value: str
) -> None:
    # $HOME relative, `/` or empty named nothing to empty, and the credential names were
    # looked for under it: the account's real home (~/.ssh, every token file) was all there.
    import pwd

    account = tmp_path / "account"
    (account / ".ssh").mkdir(parents=True)
    (account / ".ssh" / "id_ed25519").write_text(f"{CANARY} key\n")
    (account / ".kaggle").mkdir()
    (account / ".kaggle" / "kaggle.json").write_text(f"{CANARY} token\n")
    real = pwd.getpwuid(os.getuid())
    entry = pwd.struct_passwd((*real[:5], str(account), *real[6:]))
    monkeypatch.setattr(pwd, "getpwuid", lambda uid: entry)
    monkeypatch.setenv("HOME", home_value)
    tool = make_tool(tmp_path)
    paths = [str(account / ".ssh" / "id_ed25519"), str(account / ".kaggle" / "kaggle.json")]

    lines, result = run(tool, argv=["/bin/cat", *paths])

    assert CANARY not in result.text, (home_value, result.text)
    assert f"home: {account} hidden (an empty one in its place: writable, thrown away after)" in (
        lines
    )
