"""Requests the direct client (agent/model/openai_compatible.py) cannot send: an API key with a
line break (a key file read with its newline, or a header smuggled in after it) or a letter
HTTP headers cannot carry, an address whose port does not exist. Each is a clear error with
nothing sent, as through litellm; before, `agent -p` printed a traceback, or blamed the
server ("nothing answers") and tried again."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from tests.fake_openai import FakeOpenAI
from tests.pty_chat import AGENT, pty_env


def agent_p(api_base: str, env: dict[str, str], cwd: Path) -> subprocess.CompletedProcess[bytes]:
    return subprocess.run(
        [AGENT, "--model", "openai/m", "--api-base", api_base, "-p", "hi"],
        capture_output=True,
        env=env,
        cwd=cwd,
        timeout=60,
        start_new_session=True,
    )


@pytest.mark.parametrize(
    "key",
    ["sk-local-0123456789\n", "sk-local-0123456789\r\nX-Forwarded-For: 10.0.0.1", "sk-é-012345"],
)
def test_a_key_headers_cannot_carry_is_refused_naming_its_variable_and_nothing_is_sent(
    key: str, tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path) | {"OPENAI_API_KEY": key}
    with FakeOpenAI([{"text": "never"}]) as fake:
        done = agent_p(fake.base_url, env, tmp_path)
        assert fake.requests == []

    assert done.returncode == 1
    assert done.stderr.startswith(b"error: OPENAI_API_KEY holds a line break or a character")
    assert b"Traceback" not in done.stderr and b"0123456789" not in done.stderr


def test_an_address_with_a_port_that_cannot_exist_is_one_clear_error(
    tmp_path: Path, agent_home: Path
) -> None:
    done = agent_p("http://127.0.0.1:99999/v1", pty_env(agent_home, tmp_path), tmp_path)

    assert done.returncode == 1
    assert b"Traceback" not in done.stderr
    assert done.stderr.startswith(b"error: the request to openai/m failed: ")
    assert b"port must be 0-65535" in done.stderr
