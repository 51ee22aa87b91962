"""The seccomp filter every sandboxed command runs under: no new unix sockets, no io_uring,
no kernel keyrings; with the network and without it.

Unix sockets. A network namespace of its own cuts a command off from TCP, UDP and abstract
unix sockets, but not from unix sockets that are files: a read-only mount does not stop
connect(), so a service listening on a socket file anywhere the command can see (a database,
an editor's or another agent's control socket) would answer it. With the network on, the
command shares the host's network namespace, and with it every abstract socket of the host
(`@/tmp/.X11-unix/X0`, the X display; a session bus from dbus-launch), whose files the sandbox
hides to no effect. So socket(AF_UNIX, ...) fails with EACCES in both modes: neither kind is
reached. socketpair() stays allowed (it makes a connected pair inside the process, reaching
nothing outside), so pipes between a program's own processes (Python's multiprocessing) still
work. io_uring, which can make a socket without the socket() call, is refused too. Anthropic's
sandbox runtime blocks unix sockets the same way.

Keyrings. bubblewrap's namespaces do not include the kernel's keyrings: a command inherits the
session keyring (Kerberos `KEYRING:` caches, tokens tools keep in `@s` or `@u`) and could add
keys processes outside then see. add_key, request_key and keyctl fail with EPERM, as Flatpak's
filter and Docker's default profile refuse them, so programs already meet that answer in
those sandboxes and fall back.

The filter is classic BPF, as bwrap's --seccomp reads it (seccomp_export_bpf's format): an
array of struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}, native byte order. A syscall of
another architecture (a 32-bit program on a 64-bit kernel, x32) could name these calls by
other numbers, so the process is killed instead (32-bit programs do not run fenced). Only
x86_64 and aarch64 are known; elsewhere there is no filter, and the sandbox says so.
"""

from __future__ import annotations

import errno
import platform
import socket
import struct
from dataclasses import dataclass

# <linux/filter.h>, <linux/seccomp.h>, <linux/audit.h>
_LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JUMP_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JUMP_AT_LEAST = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RETURN = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_KILL_PROCESS = 0x80000000
_REFUSE = 0x00050000  # SECCOMP_RET_ERRNO, with the error number in the low 16 bits
_X32_SYSCALL_BIT = 0x40000000
# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_NUMBER, _ARCH, _FIRST_ARGUMENT = 0, 4, 16  # args[0]'s low word (little-endian machines)


@dataclass(frozen=True)
class _Machine:
    """One architecture's AUDIT_ARCH_* and its syscall numbers (<asm/unistd_64.h> for
    x86_64, <asm-generic/unistd.h> for aarch64)."""

    arch: int
    socket: int
    keyring_calls: tuple[int, int, int]  # add_key, request_key, keyctl
    io_uring_setup: int = 425  # the same number on both


_MACHINES = {
    "x86_64": _Machine(0xC000003E, 41, (248, 249, 250)),
    "aarch64": _Machine(0xC00000B7, 198, (217, 218, 219)),
}


def command_filter(machine: str | None = None) -> bytes | None:
    """The filter for this machine (or `machine`), None where it is not known."""
    known = _MACHINES.get(machine or platform.machine())
    if known is None:
        return None
    add_key, request_key, keyctl = known.keyring_calls
    program = [
        (_LOAD_WORD, 0, 0, _ARCH),
        (_JUMP_EQUAL, 1, 0, known.arch),  # native: go on; else kill
        (_RETURN, 0, 0, _KILL_PROCESS),
        (_LOAD_WORD, 0, 0, _NUMBER),
        (_JUMP_AT_LEAST, 8, 0, _X32_SYSCALL_BIT),  # x32's numbering: refuse
        (_JUMP_EQUAL, 7, 0, known.io_uring_setup),  # io_uring can make sockets itself
        (_JUMP_EQUAL, 7, 0, add_key),  # the keyrings: refuse as Flatpak does
        (_JUMP_EQUAL, 6, 0, request_key),
        (_JUMP_EQUAL, 5, 0, keyctl),
        (_JUMP_EQUAL, 0, 2, known.socket),  # socket(): look at its family; else allow
        (_LOAD_WORD, 0, 0, _FIRST_ARGUMENT),
        (_JUMP_EQUAL, 1, 0, socket.AF_UNIX),  # AF_UNIX: refuse; else allow
        (_RETURN, 0, 0, _ALLOW),
        (_RETURN, 0, 0, _REFUSE | errno.EACCES),  # a unix socket, io_uring, x32
        (_RETURN, 0, 0, _REFUSE | errno.EPERM),  # a keyring call
    ]
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)
