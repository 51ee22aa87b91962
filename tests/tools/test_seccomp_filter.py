"""The seccomp filter's program, run by a small interpreter of the classic BPF it uses, for
both known machines; what it does to real programs is tested in the real sandbox
(tests/security/test_sandbox_keyrings.py, test_sandbox_network_sockets.py,
test_run_command_attacks.py)."""

from __future__ import annotations

import errno
import socket
import struct

import pytest

from agent.tools.seccomp_filter import command_filter

ALLOW, KILL = 0x7FFF0000, 0x80000000
EACCES, EPERM = 0x00050000 | errno.EACCES, 0x00050000 | errno.EPERM
# machine -> AUDIT_ARCH, socket, add_key, request_key, keyctl, io_uring_setup, read, socketpair
MACHINES = {
    "x86_64": (0xC000003E, 41, 248, 249, 250, 425, 0, 53),
    "aarch64": (0xC00000B7, 198, 217, 218, 219, 425, 63, 199),
}


def verdict(program: bytes, arch: int, number: int, *arguments: int) -> int:
    """What the filter answers for one syscall: the BPF run over struct seccomp_data."""
    six = (*arguments, 0, 0, 0, 0, 0, 0)[:6]
    data = struct.pack("=iIQ6Q", number, arch, 0, *six)
    instructions = [struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)]
    accumulator, index = 0, 0
    while True:
        code, true, false, k = instructions[index]  # an IndexError: a jump out of the program
        if code == 0x20:  # load a word of the data
            accumulator = struct.unpack_from("=I", data, k)[0]
        elif code == 0x06:
            return k
        elif code == 0x54:  # and a constant
            accumulator &= k
        elif code in (0x15, 0x35):  # jump if equal / at least
            taken = accumulator == k if code == 0x15 else accumulator >= k
            index += true if taken else false
        else:
            raise AssertionError(f"an instruction the test does not know: {code:#x}")
        index += 1


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_the_filter_refuses_unix_sockets_io_uring_and_the_keyrings(machine: str) -> None:
    arch, socket_call, add_key, request_key, keyctl, io_uring, read, _ = MACHINES[machine]
    program = command_filter(machine)
    assert program is not None and len(program) % 8 == 0

    assert verdict(program, arch, socket_call, socket.AF_UNIX) == EACCES
    assert verdict(program, arch, io_uring) == EACCES
    for call in (add_key, request_key, keyctl):
        assert verdict(program, arch, call) == EPERM, call
    # what programs need goes through: other socket families, other calls
    for family in (socket.AF_INET, socket.AF_INET6, socket.AF_NETLINK):
        assert verdict(program, arch, socket_call, family) == ALLOW
    assert verdict(program, arch, read) == ALLOW
    assert verdict(program, arch, read, socket.AF_UNIX) == ALLOW  # not socket()
    # x32's numbering on x86_64 is refused; another architecture's calls kill the process
    assert verdict(program, arch, 0x40000000 | socket_call, socket.AF_UNIX) == EACCES
    other = MACHINES["aarch64" if machine == "x86_64" else "x86_64"][0]
    assert verdict(program, other, read) == KILL
    assert verdict(program, 0x40000003, read) == KILL  # i386


def test_the_filter_is_known_for_x86_64_and_aarch64_only() -> None:
    assert command_filter("riscv64") is None


@pytest.mark.parametrize("machine", sorted(MACHINES))
def test_the_filter_makes_stream_pairs_only(machine: str) -> None:
    # A datagram pair can sendto() any address and be connected anew (SOCK_RAW is one too).
    arch, socketpair = MACHINES[machine][0], MACHINES[machine][7]
    program = command_filter(machine)
    assert program is not None
    flags = socket.SOCK_NONBLOCK | socket.SOCK_CLOEXEC
    for kind in (socket.SOCK_STREAM, socket.SOCK_SEQPACKET, socket.SOCK_STREAM | flags):
        assert verdict(program, arch, socketpair, socket.AF_UNIX, kind) == ALLOW, kind
    for kind in (socket.SOCK_DGRAM, socket.SOCK_RAW, socket.SOCK_DGRAM | flags, 0):
        assert verdict(program, arch, socketpair, socket.AF_UNIX, kind) == EACCES, kind
