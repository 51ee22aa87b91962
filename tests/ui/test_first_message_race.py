"""A message sent the instant the chat's prompt appears races the MCP side and litellm, which
are still importing in background threads: the turn must never touch a module another thread
is half-way through importing (it once crashed with "partially initialized module
'agent.mcp.toolset' has no attribute 'progress_sink'", in about one quick start of twenty)."""

from __future__ import annotations

import importlib.machinery
import os
import signal
import sys
import types
from pathlib import Path

import pexpect
import pytest

from tests.pty_chat import finish, pty_env, scripted_chat

HELD_IMPORT = Path(__file__).resolve().parent.parent / "fixtures" / "held_import"
ANSWER = "Answered at once."


def held_env(agent_home: Path, tmp_path: Path, module: str) -> tuple[dict[str, str], Path]:
    """A chat's environment in which `module`'s import, in whichever thread runs it, stops
    half-way until the returned file exists (tests/fixtures/held_import)."""
    env = pty_env(agent_home, tmp_path)
    release = tmp_path / "release-import"
    paths = [str(HELD_IMPORT), *filter(None, [env.get("PYTHONPATH")])]
    env.update(
        PYTHONPATH=os.pathsep.join(paths),
        AGENT_TEST_HELD_IMPORT=module,
        AGENT_TEST_RELEASE=str(release),
    )
    return env, release


def expect_answer(chat: pexpect.spawn) -> None:
    """The scripted answer comes, not a crash (whose whole text the failure shows)."""
    if chat.expect_exact([ANSWER, "Traceback", "Error", pexpect.EOF]) != 0:
        chat.expect(pexpect.EOF)
        pytest.fail(f"the chat crashed instead of answering:\n{chat.before}")


@pytest.mark.parametrize("module", ["agent.mcp.toolset", "agent.mcp.runtime"])
def test_a_message_sent_while_the_mcp_side_is_half_imported_is_answered(
    tmp_path: Path, agent_home: Path, module: str
) -> None:
    env, release = held_env(agent_home, tmp_path, module)
    with scripted_chat(tmp_path, [{"text": ANSWER}], env) as (chat, fake):
        chat.expect("›")
        chat.expect_exact(f"[held import of {module}]")
        chat.send("hello\r")
        expect_answer(chat)
        release.touch()  # the import ends; the chat goes on as usual
        chat.expect("›")
        finish(chat)
        assert len(fake.requests()) == 1


@pytest.mark.parametrize("start", range(3))
def test_a_message_sent_the_instant_the_prompt_appears_is_answered(
    tmp_path: Path, agent_home: Path, start: int
) -> None:
    with scripted_chat(tmp_path, [{"text": ANSWER}], pty_env(agent_home, tmp_path)) as (
        chat,
        fake,
    ):
        chat.expect("›")
        chat.send("hello\r")
        expect_answer(chat)
        chat.expect("›")
        finish(chat)
        assert len(fake.requests()) == 1


def half_imported(name: str) -> types.ModuleType:
    """A module as another thread's import leaves it in sys.modules: there, not yet run."""
    module = types.ModuleType(name)
    spec = importlib.machinery.ModuleSpec(name, loader=None)
    spec._initializing = True  # type: ignore[attr-defined]  # what the import system sets
    module.__spec__ = spec
    return module


def test_a_turns_progress_sink_is_set_while_the_toolset_is_half_imported(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agent.mcp.progress import progress_sink
    from agent.ui.spinner import mcp_progress

    monkeypatch.setitem(sys.modules, "agent.mcp.toolset", half_imported("agent.mcp.toolset"))
    seen: list[tuple[float, float | None, str | None]] = []

    with mcp_progress(lambda done, total, message: seen.append((done, total, message))):
        sink = progress_sink.get()
        assert sink is not None
        sink(1, 2, "half")

    assert seen == [(1, 2, "half")]
    assert progress_sink.get() is None


def test_a_signal_while_the_process_groups_are_half_imported_still_ends_the_agent(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from agent.cli import Ended, _end_by_signal

    name = "agent.processes.groups"
    monkeypatch.setitem(sys.modules, name, half_imported(name))

    with pytest.raises(Ended):
        _end_by_signal(signal.SIGTERM, None)
