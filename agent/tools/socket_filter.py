"""A seccomp filter for sandboxed commands without the network: no new unix sockets.

A network namespace of its own cuts a command off from TCP, UDP and abstract unix sockets,
but not from unix sockets that are files: a read-only mount does not stop connect(), so a
service listening on a socket file anywhere the command can see (a database, an editor's or
another agent's control socket) would answer it. The sandbox hides the known socket folders;
this filter closes the rest: socket(AF_UNIX, ...) fails with EACCES. socketpair() stays
allowed (it makes a connected pair inside the process, reaching nothing outside), so pipes
between a program's own processes (Python's multiprocessing) still work. io_uring, which can
make a socket without the socket() call, is refused too. Anthropic's sandbox
runtime blocks unix sockets the same way.

The filter is classic BPF, as bwrap's --seccomp reads it (seccomp_export_bpf's format): an
array of struct sock_filter {u16 code; u8 jt; u8 jf; u32 k}, native byte order. A syscall of
another architecture (a 32-bit program on a 64-bit kernel, x32) could name socket by another
number, so the process is killed instead (32-bit programs do not run fenced without the
network). Only x86_64 and aarch64 are known; elsewhere there is no filter, and the sandbox
says so.
"""

from __future__ import annotations

import errno
import platform
import socket
import struct

# <linux/filter.h>, <linux/seccomp.h>, <linux/audit.h>
_LOAD_WORD = 0x20  # BPF_LD | BPF_W | BPF_ABS
_JUMP_EQUAL = 0x15  # BPF_JMP | BPF_JEQ | BPF_K
_JUMP_AT_LEAST = 0x35  # BPF_JMP | BPF_JGE | BPF_K
_RETURN = 0x06  # BPF_RET | BPF_K
_ALLOW = 0x7FFF0000
_KILL_PROCESS = 0x80000000
_REFUSE = 0x00050000 | errno.EACCES  # SECCOMP_RET_ERRNO
_X32_SYSCALL_BIT = 0x40000000
# struct seccomp_data: int nr; u32 arch; u64 instruction_pointer; u64 args[6]
_NUMBER, _ARCH, _FIRST_ARGUMENT = 0, 4, 16  # args[0]'s low word (little-endian machines)
# machine -> (AUDIT_ARCH_*, the socket syscall's number)
_MACHINES = {"x86_64": (0xC000003E, 41), "aarch64": (0xC00000B7, 198)}
_IO_URING_SETUP = 425  # the same number on both


def unix_socket_filter(machine: str | None = None) -> bytes | None:
    """The filter for this machine (or `machine`), None where it is not known."""
    known = _MACHINES.get(machine or platform.machine())
    if known is None:
        return None
    arch, socket_call = known
    program = [
        (_LOAD_WORD, 0, 0, _ARCH),
        (_JUMP_EQUAL, 1, 0, arch),  # native: go on; else kill
        (_RETURN, 0, 0, _KILL_PROCESS),
        (_LOAD_WORD, 0, 0, _NUMBER),
        (_JUMP_AT_LEAST, 5, 0, _X32_SYSCALL_BIT),  # x32's numbering: refuse
        (_JUMP_EQUAL, 4, 0, _IO_URING_SETUP),  # io_uring can make sockets itself: refuse
        (_JUMP_EQUAL, 0, 2, socket_call),  # socket(): look at its family; else allow
        (_LOAD_WORD, 0, 0, _FIRST_ARGUMENT),
        (_JUMP_EQUAL, 1, 0, socket.AF_UNIX),  # AF_UNIX: refuse; else allow
        (_RETURN, 0, 0, _ALLOW),
        (_RETURN, 0, 0, _REFUSE),
    ]
    return b"".join(struct.pack("=HBBI", *instruction) for instruction in program)
