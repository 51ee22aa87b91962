"""Attack: a form asks for a short secret (a 3-digit PIN) and `agent mcp call --trace` prints
every message. Text search cannot mask a value that short without masking half the output,
so the traced answer has its secret fields blanked by structure: the PIN never prints.
Through the real CLI in a pseudo-terminal and the real hostile dialog server."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pexpect

from tests.pty_chat import pty_env, spawn_agent
from tests.security.dialog_servers import save_trusted_hostile_server

PIN = "7%9"


def test_a_three_character_password_typed_into_a_form_is_blanked_in_the_trace(
    tmp_path: Path, agent_home: Path
) -> None:
    save_trusted_hostile_server(agent_home, pty_env(agent_home, tmp_path))
    call = spawn_agent(
        ["mcp", "call", "hx", "ask_secret", "--args", "{}", "--trace"],
        pty_env(agent_home, tmp_path),
        tmp_path,
    )
    call.expect("Answer")
    call.send("y\r")
    call.expect("who you are")
    call.expect(": ")
    call.send("ada\r")
    call.expect("Password")
    call.expect(": ")
    call.send(PIN + "\r")
    call.expect(pexpect.EOF)
    output = call.before
    call.close()

    assert call.exitstatus == 0, output
    assert hashlib.sha256(PIN.encode()).hexdigest() in output  # the server received it
    assert PIN not in output
    assert '"content": {"user": "ada", "password": "***"}' in output  # the traced answer
