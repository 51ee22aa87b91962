"""The seccomp filter every sandboxed command runs under: no new unix sockets, no io_uring,
no kernel keyrings; with the network and without it.

Unix sockets. A network namespace of its own cuts a command off from TCP, UDP and abstract
unix sockets, but not from unix sockets that are files: a read-only mount does not stop
connect(), so a service listening on a socket file anywhere the command can see (a database,
an editor's or another agent's control socket) would answer it. With the network on, the
command shares the host's network namespace, and with it every abstract socket of the host
(`@/tmp/.X11-unix/X0`, the X display; a session bus from dbus-launch), whose files the sandbox
hides to no effect. So socket(AF_UNIX, ...) fails with EACCES in both modes: neither kind is
reached. socketpair() stays allowed for stream and seqpacket pairs (connected to each other for
good, reaching nothing outside), so pipes between a program's own processes (Python's
multiprocessing, asyncio) still work; a datagram pair is refused like socket(): it can sendto()
any address and be connected anew, so it reached every datagram socket socket() could.
io_uring, which can make a socket without the socket() call, is refused too. Anthropic's
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
_SECOND_ARGUMENT = 24  # args[1]'s low word
_AND = 0x54  # BPF_ALU | BPF_AND | BPF_K
_SOCKET_TYPE_MASK = 0xF  # <linux/net.h> SOCK_TYPE_MASK
# One instruction: code, then where to go if true and if false (a label, or how many to skip).
_Instruction = tuple[int, int | str, int | str, int]


@dataclass(frozen=True)
class _Machine:
    """One architecture's AUDIT_ARCH_* and its syscall numbers (<asm/unistd_64.h> for
    x86_64, <asm-generic/unistd.h> for aarch64)."""

    arch: int
    socket: int
    socketpair: int
    keyring_calls: tuple[int, int, int]  # add_key, request_key, keyctl
    io_uring_setup: int = 425  # the same number on both


_MACHINES = {
    "x86_64": _Machine(0xC000003E, 41, 53, (248, 249, 250)),
    "aarch64": _Machine(0xC00000B7, 198, 199, (217, 218, 219)),
}


def command_filter(machine: str | None = None) -> bytes | None:
    """The filter for this machine (or `machine`), None where it is not known."""
    known = _MACHINES.get(machine or platform.machine())
    if known is None:
        return None
    add_key, request_key, keyctl = known.keyring_calls
    program: list[_Instruction | str] = [
        (_LOAD_WORD, 0, 0, _ARCH),
        (_JUMP_EQUAL, 0, "kill", known.arch),  # native: go on; else kill
        (_LOAD_WORD, 0, 0, _NUMBER),
        (_JUMP_AT_LEAST, "refuse", 0, _X32_SYSCALL_BIT),  # x32's numbering: refuse
        (_JUMP_EQUAL, "refuse", 0, known.io_uring_setup),  # io_uring can make sockets itself
        (_JUMP_EQUAL, "keyring", 0, add_key),  # the keyrings: refuse as Flatpak does
        (_JUMP_EQUAL, "keyring", 0, request_key),
        (_JUMP_EQUAL, "keyring", 0, keyctl),
        (_JUMP_EQUAL, 0, "pair", known.socket),  # socket(): look at its family
        (_LOAD_WORD, 0, 0, _FIRST_ARGUMENT),
        (_JUMP_EQUAL, "refuse", "allow", socket.AF_UNIX),
        "pair",
        # socketpair(): a datagram pair can still sendto() any address and be connect()ed
        # anew (SOCK_RAW is made a datagram one), so only stream and seqpacket pairs, which
        # stay connected to each other, are made.
        (_JUMP_EQUAL, 0, "allow", known.socketpair),
        (_LOAD_WORD, 0, 0, _SECOND_ARGUMENT),
        (_AND, 0, 0, _SOCKET_TYPE_MASK),  # without SOCK_NONBLOCK and SOCK_CLOEXEC
        (_JUMP_EQUAL, "allow", 0, socket.SOCK_STREAM),
        (_JUMP_EQUAL, "allow", "refuse", socket.SOCK_SEQPACKET),
        "allow",
        (_RETURN, 0, 0, _ALLOW),
        "refuse",
        (_RETURN, 0, 0, _REFUSE | errno.EACCES),  # a unix socket, io_uring, x32
        "keyring",
        (_RETURN, 0, 0, _REFUSE | errno.EPERM),  # a keyring call
        "kill",
        (_RETURN, 0, 0, _KILL_PROCESS),
    ]
    return _assembled(program)


def _assembled(program: list[_Instruction | str]) -> bytes:
    """The instructions in bytes, each jump to a label made the count of instructions it
    skips (BPF jumps only forward)."""
    places: dict[str, int] = {}
    instructions: list[_Instruction] = []
    for entry in program:
        if isinstance(entry, str):
            places[entry] = len(instructions)  # a label: the next instruction's place
        else:
            instructions.append(entry)
    code = b""
    for index, (operation, true, false, k) in enumerate(instructions):
        jumps = [places[to] - index - 1 if isinstance(to, str) else to for to in (true, false)]
        code += struct.pack("=HBBI", operation, *jumps, k)
    return code
