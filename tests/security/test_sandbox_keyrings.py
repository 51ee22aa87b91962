"""The kernel's keyrings and a sandboxed command (issue 39, finding 3).

bubblewrap gives a command new namespaces, but keyrings are not one of them: the session
keyring is inherited, so an approved `python3 -m unittest` read a token kept there (Kerberos
`KEYRING:` caches, tools that keep tokens in `@s` or `@u`) and could add keys that processes
outside then saw. The sandbox's seccomp filter refuses add_key, request_key and keyctl, with
the network and without it.

The test process joins a session keyring of its own first (KEYCTL_JOIN_SESSION_KEYRING): a
key is then put where only it and its children look, and nothing of the machine's shared
session keyring is touched. The fenced programs call the kernel through ctypes, as a hostile
test would; keyutils' `keyctl` need not be installed.
"""

from __future__ import annotations

import ctypes
import errno
import os
import platform
import uuid
from collections.abc import Iterator
from pathlib import Path

import pytest

from tests.security.run_command_helpers import PYTHON, fake_home, folder_outside_tmp, make_tool, run

# machine -> (add_key, request_key, keyctl): <asm/unistd_64.h>, <asm-generic/unistd.h>
_CALLS = {"x86_64": (248, 249, 250), "aarch64": (217, 218, 219)}
_JOIN_SESSION_KEYRING, _SEARCH, _READ = 1, 10, 11  # <linux/keyctl.h>
_SESSION_KEYRING, _USER_KEYRING = -3, -4


@pytest.fixture
def tmp_path() -> Iterator[Path]:
    yield from folder_outside_tmp()


@pytest.fixture(autouse=True)
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    return fake_home(tmp_path, monkeypatch)


class Keyrings:
    """The kernel's key calls, for this process (and so the commands it starts)."""

    def __init__(self) -> None:
        calls = _CALLS.get(platform.machine())
        if calls is None:
            pytest.skip(f"the key calls' numbers are not known for {platform.machine()}")
        self.add_key, self.request_key, self.keyctl = calls
        self.libc = ctypes.CDLL(None, use_errno=True)
        self.libc.syscall.restype = ctypes.c_long

    def _call(self, *arguments: object) -> int:
        result = int(self.libc.syscall(*arguments))
        if result < 0:
            code = ctypes.get_errno()
            raise OSError(code, os.strerror(code))
        return result

    def join_new_session(self) -> None:
        """A session keyring of this process's own (an anonymous one), inherited by the
        commands it starts from this thread, as a login's is."""
        self._call(self.keyctl, _JOIN_SESSION_KEYRING, None)

    def add(self, description: str, payload: bytes, keyring: int) -> int:
        return self._call(
            self.add_key, b"user", description.encode(), payload, len(payload), keyring
        )

    def find(self, description: str, keyring: int) -> int | None:
        try:
            return self._call(
                self.keyctl, _SEARCH, ctypes.c_long(keyring), b"user", description.encode(), 0
            )
        except OSError as error:
            if error.errno in (errno.ENOKEY, errno.ENOENT):
                return None
            raise

    def forget(self, key: int) -> None:
        self._call(self.keyctl, 21, ctypes.c_long(key))  # KEYCTL_INVALIDATE


@pytest.fixture
def keyrings() -> Keyrings:
    keys = Keyrings()
    try:
        keys.join_new_session()
    except OSError as error:  # keyrings refused here (a container's own filter): no attack
        pytest.skip(f"this machine gives no keyrings to a process: {error.strerror}")
    return keys


# What a hostile command does, for the numbers of this machine: find the token in the
# inherited session keyring (and the user's), read it; add keys of its own to both.
_FENCED = """
import ctypes, os, sys
add_key, request_key, keyctl = {calls}
libc = ctypes.CDLL(None, use_errno=True)
libc.syscall.restype = ctypes.c_long
def said(name, result):
    print(name, "ok" if result >= 0 else os.strerror(ctypes.get_errno()))
    return result
for ring in (-3, -4):
    key = said("search", libc.syscall(keyctl, 10, ctypes.c_long(ring), b"user", {token!r}, 0))
    if key >= 0:
        buffer = ctypes.create_string_buffer(256)
        size = libc.syscall(keyctl, 11, ctypes.c_long(key), buffer, 256)
        print("READ", buffer.raw[:max(size, 0)].decode())
said("request_key", libc.syscall(request_key, b"user", {token!r}, None, 0))
said("read by number", libc.syscall(keyctl, 11, ctypes.c_long({serial}), None, 0))
said("add_key @s", libc.syscall(add_key, b"user", {planted!r}, b"x", 1, -3))
said("add_key @u", libc.syscall(add_key, b"user", {planted!r}, b"x", 1, -4))
"""


@pytest.mark.parametrize("network", [False, True])
def test_a_command_neither_reads_the_session_keyring_nor_adds_keys_others_see(
    tmp_path: Path, keyrings: Keyrings, network: bool
) -> None:
    token = f"agent-test-token-{uuid.uuid4().hex}"
    planted = f"agent-test-planted-{uuid.uuid4().hex}"
    secret = f"SECRET-{uuid.uuid4().hex}"
    serial = keyrings.add(token, secret.encode(), _SESSION_KEYRING)
    code = _FENCED.format(
        calls=(keyrings.add_key, keyrings.request_key, keyrings.keyctl),
        token=token.encode(),
        planted=planted.encode(),
        serial=serial,
    )
    tool = make_tool(tmp_path)
    try:
        _, result = run(tool, argv=[PYTHON, "-c", code], network=network)

        assert secret not in result.text, result.text
        assert "READ" not in result.text and " ok" not in result.text, result.text
        # Refused as Flatpak's filter (and Docker's default profile) refuses them: EPERM.
        assert "search Operation not permitted" in result.text, result.text
        assert "add_key @s Operation not permitted" in result.text, result.text
        for ring in (_SESSION_KEYRING, _USER_KEYRING):
            found = keyrings.find(planted, ring)
            assert found is None, f"a key the command added is seen outside, in {ring}"
    finally:
        keyrings.forget(serial)
        for ring in (_SESSION_KEYRING, _USER_KEYRING):
            leaked = keyrings.find(planted, ring)
            if leaked is not None:  # before the fix: do not leave it in the user's keyring
                keyrings.forget(leaked)
