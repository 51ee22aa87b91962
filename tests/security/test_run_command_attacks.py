"""run_command attacked from outside its author's view: what still gets through the fence.

A hostile model answer (or a prompt injected into a file the model read) asks for a command
that looks harmless, with the network off; these tests check what that command can reach.
"""

from __future__ import annotations

import contextlib
import shutil
import socket
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.run_command_helpers import (
    PYTHON,
    folder_outside_tmp,
    make_tool,
    refused,
    run,
)


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    yield from folder_outside_tmp()


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    home = tmp_path / "home"
    home.mkdir()
    monkeypatch.setenv("HOME", str(home))
    return home


def test_a_unix_socket_of_a_local_service_outside_the_project_is_unreachable(
    tmp_path: Path,
) -> None:
    # A local service listening on a unix socket somewhere the fence does not know about (a
    # database, an editor's or another agent's control socket, a user's ssh-agent in ~/.ssh/...
    # moved elsewhere): with the network off, a command must not be able to talk to it. (Found
    # by the review; closed by a seccomp filter refusing socket(AF_UNIX), seccomp_filter.py.)
    service = tmp_path / "service"
    service.mkdir()
    path = service / "control.sock"
    listener = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listener.bind(str(path))
    listener.listen(1)
    listener.settimeout(20)
    accepted: list[object] = []

    def accept() -> None:
        # Nobody comes now, with the network or without: the close at the end ends the wait.
        with contextlib.suppress(OSError):
            accepted.append(listener.accept())

    thread = threading.Thread(target=accept, daemon=True)
    thread.start()
    tool = make_tool(tmp_path)
    code = (
        "import socket\n"
        "s = socket.socket(socket.AF_UNIX)\n"
        "try:\n"
        f"    s.connect({str(path)!r}); s.sendall(b'rm -rf ~'); print('IN')\n"
        "except OSError as error:\n"
        "    print('refused', error.strerror)\n"
    )
    try:
        lines, result = run(tool, argv=[PYTHON, "-c", code])
        assert "network: off (unix sockets too)" in lines
        assert "IN" not in result.text, result.text
        assert "Permission denied" in result.text  # socket(AF_UNIX): the seccomp filter said no
        assert accepted == []

        # With the network asked for (and approved) too (issue 39: the filter runs in both
        # modes; tests/security/test_sandbox_network_sockets.py).
        lines, result = run(tool, argv=[PYTHON, "-c", code], network=True)
        assert "IN" not in result.text, result.text
        assert "Permission denied" in result.text
        assert accepted == []
    finally:
        listener.close()
        for pair in accepted:
            pair[0].close()  # type: ignore[index]


def test_a_relative_path_entry_cannot_swap_the_program_the_approval_named(
    tmp_path: Path,
) -> None:
    # The person's PATH holds "." (some do). The approval looks the program up from the agent's
    # own folder and names /usr/bin/ls; bwrap would look it up again from the command's folder,
    # where a hostile repository left its own `ls`.
    tool = make_tool(tmp_path, environ={"PATH": ".:/usr/bin:/bin", "HOME": str(Path.home())})
    sub = tmp_path / "project" / "sub"
    sub.mkdir()
    planted = sub / "ls"
    planted.write_text("#!/bin/sh\necho PWNED\n")
    planted.chmod(0o755)
    ls = shutil.which("ls", path="/usr/bin:/bin")

    lines, result = run(tool, argv=["ls"], cwd="sub")

    assert f"program: {ls}" in lines, lines
    assert "PWNED" not in result.text, result.text
    assert result.text.startswith("exit code 0"), result.text


@pytest.mark.parametrize("timeout", ["nan", "abc", float("inf"), -1, [5]])
def test_a_timeout_that_is_no_time_is_refused_before_asking(
    tmp_path: Path, timeout: object
) -> None:
    # A hostile answer's timeout_seconds: NaN made the run raise after the program had started
    # (the approval read "timeout: nan s"); a word raised out of the preview.
    tool = make_tool(tmp_path)

    said = refused(tool, argv=["true"], timeout_seconds=timeout)

    assert "timeout_seconds" in said


def test_without_the_network_a_programs_own_pipes_and_sockets_still_work(tmp_path: Path) -> None:
    # The filter refuses new unix sockets only: socketpair() (multiprocessing's pipes), and
    # sockets of other families (which the network namespace leaves nowhere to go) still work.
    tool = make_tool(tmp_path)
    code = (
        "import multiprocessing, socket\n"
        "a, b = socket.socketpair()\n"
        "a.sendall(b'pair'); print(b.recv(4).decode())\n"
        "socket.socket(socket.AF_INET).close(); print('inet made')\n"
        "with multiprocessing.get_context('fork').Pool(2) as pool:\n"
        "    print(sum(pool.map(abs, [-1, -2])))\n"
    )
    _, result = run(tool, argv=[PYTHON, "-c", code])

    assert result.text == "exit code 0\nstdout:\npair\ninet made\n3", result.text
