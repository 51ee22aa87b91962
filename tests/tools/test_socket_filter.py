"""The seccomp filter's shape; what it does is tested by running real programs in the sandbox
(tests/security/test_run_command_attacks.py)."""

from __future__ import annotations

import struct

from agent.tools.socket_filter import unix_socket_filter


def test_the_filter_is_known_for_x86_64_and_aarch64_only() -> None:
    for machine, socket_call in (("x86_64", 41), ("aarch64", 198)):
        program = unix_socket_filter(machine)
        assert program is not None and len(program) % 8 == 0
        instructions = [
            struct.unpack("=HBBI", program[i : i + 8]) for i in range(0, len(program), 8)
        ]
        assert (0x15, 0, 2, socket_call) in instructions  # socket() is where it looks
        # every jump lands inside the program
        for index, (code, true, false, _) in enumerate(instructions):
            if code & 0x07 == 0x05:
                assert index + 1 + max(true, false) < len(instructions)
    assert unix_socket_filter("riscv64") is None
