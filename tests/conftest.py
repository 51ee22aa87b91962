"""Every test gets its own config and data home, so nothing touches the real ones (and parallel
workers never share one); async tests run on asyncio, the backend the app uses."""

from __future__ import annotations

import compileall
import os
import resource
import signal
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parent.parent

# A test presses a question's key the moment the question is on its pty, sooner than any
# person could: the reaction floor (agent.ui.dialogs.fresh_keys.reaction_seconds) would take
# it for typing. Every `agent` the suite starts inherits this; the tests of the floor itself
# remove it (tests/security/test_question_reaction_floor.py).
os.environ["AGENT_QUESTION_REACTION_SECONDS"] = "0"


def pytest_sessionstart(session: pytest.Session) -> None:
    """Compile agent/ and tests/ to bytecode once, before any test starts a process.

    Where PYTHONDONTWRITEBYTECODE is set (CI's environment and this machine's), no process
    writes bytecode, so every `agent`, fixture server and worker the suite starts (thousands)
    would compile our modules from source again: about 0.25 s of CPU for a chat's imports. The
    variable stops only writing; written bytecode is read. Done by the controller alone.
    """
    # Started in the background of a shell script (`pytest &`), this process ignores SIGINT,
    # and so would every program it starts: a ^C typed into a chat's pty would do nothing.
    if signal.getsignal(signal.SIGINT) is signal.SIG_IGN:
        signal.signal(signal.SIGINT, signal.default_int_handler)
    if not hasattr(session.config, "workerinput"):
        for folder in ("agent", "tests"):
            compileall.compile_dir(REPO / folder, quiet=1)  # one process: no pool to fail


def pytest_xdist_auto_num_workers(config: pytest.Config) -> int:
    """`-n auto`: two workers more than the cores this process may run on.

    Most tests wait on the programs they start (an `agent` child importing litellm, a server's
    handshake, a pty's answer), so one worker per core leaves the cores idle much of the time;
    two more keep them busy without queueing every process a test starts behind another's.
    Tests whose feature is speed bound the CPU they use, not the wall clock (tests/cost_meters.py),
    so the extra workers cannot make them miss."""
    return len(os.sched_getaffinity(0)) + 2


# Limits every program a test starts inherits from this process; a hard limit, once lowered,
# cannot be raised again.
_INHERITED_LIMITS = (resource.RLIMIT_AS, resource.RLIMIT_DATA, resource.RLIMIT_NOFILE)


@pytest.fixture(autouse=True)
def limits_left_as_found() -> Iterator[None]:
    """A test that lowers a resource limit of the test process itself fails, by name.

    An address-space limit left behind by a code path meant for a child process (the
    search_files worker sets one) made every later Chromium and Node in the same worker fail
    to reserve memory, so browser and conformance tests failed far from the cause."""
    before = [resource.getrlimit(limit) for limit in _INHERITED_LIMITS]
    yield
    after = [resource.getrlimit(limit) for limit in _INHERITED_LIMITS]
    assert after == before, f"this test changed the test process's resource limits: {after}"


@pytest.fixture(autouse=True)
def agent_home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """AGENT_HOME for this test (and every process it starts); created on first write."""
    home = tmp_path / "agent-home"
    monkeypatch.setenv("AGENT_HOME", str(home))
    return home


@pytest.fixture(autouse=True)
def terminal_size_from_the_pty(monkeypatch: pytest.MonkeyPatch) -> None:
    """No COLUMNS or LINES in the environment: a chat under pexpect sizes itself from its pty.

    pytest-xdist's workers have COLUMNS=80 and LINES=24 in their environment, and
    shutil.get_terminal_size() prefers those to the pty's 40x120 (the dialogs then page at 24
    rows); a person's shell may export them too."""
    monkeypatch.delenv("COLUMNS", raising=False)
    monkeypatch.delenv("LINES", raising=False)


@pytest.fixture
def anyio_backend() -> str:
    """@pytest.mark.anyio tests run on asyncio only (prompt_toolkit and the mcp SDK need it)."""
    return "asyncio"


@pytest.fixture
def chat_env(agent_home: Path, tmp_path: Path) -> dict[str, str]:
    """The environment of a chat in a pty (tests/pty_chat.py): its own homes, no colours."""
    from tests.pty_chat import pty_env  # pexpect, only for the tests that spawn a chat

    return pty_env(agent_home, tmp_path)


@pytest.fixture
def trusted_fixture_server(agent_home: Path, chat_env: dict[str, str]) -> None:
    """A trusted, enabled tools_server named fx with only `echo` selected, trusted for the
    environment the tests start agent with."""
    from tests.fixtures.mcp_fixtures import save_trusted_echo_server

    save_trusted_echo_server(agent_home, chat_env)
