"""A skill folder nested deeper than Python's recursion limit is walked to a depth cap, never
into a RecursionError: the trust question says the folder is over the cap, and listing,
chatting and activating work.

Attack: a project ships `.agents/skills/x/a/a/a/...` 1,100 folders deep. os.walk recursed once
per level, so fingerprinting the skill (at the start of a chat, `agent skills list`,
`agent -p`) and listing its files on activation raised RecursionError: the chat crashed with a
traceback before anyone was asked.
"""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pexpect
import pytest

from agent.skills.folder_walk import MAX_DEPTH
from tests.pty_chat import pty_env, scripted_chat
from tests.security.inputs_helpers import agent_env, one_shot, run_agent, tool_results

LEVELS = 1100  # past the default recursion limit of 1000
SKILL = "---\nname: deep\ndescription: Goes deep.\n---\nSee notes.md.\n"


@pytest.fixture
def project(tmp_path: Path) -> Iterator[Path]:
    """A project whose skill `deep` holds notes.md and a folder LEVELS deep with a file at the
    bottom; removed bottom-up afterwards (shutil.rmtree recurses per level too)."""
    root = tmp_path / "project"
    skill = root / ".agents" / "skills" / "deep"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    (skill / "notes.md").write_text("notes\n")
    chain = [skill.joinpath(*["a"] * level) for level in range(1, LEVELS + 1)]
    for folder in chain:
        folder.mkdir()
    (chain[-1] / "bottom.md").write_text("at the bottom\n")
    yield root
    (chain[-1] / "bottom.md").unlink()
    for folder in reversed(chain):
        os.rmdir(folder)


def test_a_skill_folder_deeper_than_the_recursion_limit_is_asked_about_as_over_the_cap(
    tmp_path: Path, agent_home: Path, project: Path
) -> None:
    turns = [{"text": "Fine."}]
    with scripted_chat(tmp_path, turns, pty_env(agent_home, tmp_path), project) as (chat, _fake):
        chat.expect("›")
        chat.send("hello\r")
        chat.expect("Use these skills in this project\\?")
        drawn = str(chat.before)
        chat.send("y")
        chat.expect("Fine.")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
    assert "Traceback" not in drawn
    assert f"more than 1000 files, 32 MiB or {MAX_DEPTH} folder levels" in drawn

    env = agent_env(tmp_path / "home", agent_home)
    listed = run_agent(["skills", "list"], env, project)
    assert (listed.returncode, listed.stderr) == (0, "")
    row = next(line for line in listed.stdout.splitlines() if line.startswith("deep "))
    assert row.split()[1:3] == ["project", "ok"]  # trusted as it was shown: over the cap

    activate = {"id": "c1", "name": "activate_skill", "arguments": {"name": "deep"}}
    done, requests = one_shot([{"tool_calls": [activate]}, {"text": "ok"}], "go", env, project)
    assert done.returncode == 0 and "Traceback" not in done.stderr, done.stderr
    listing = tool_results(requests[1])["c1"].split("Files in this skill")[1].split("\n\n")[0]
    nested = "/".join(["a"] * MAX_DEPTH)
    assert listing.splitlines()[1:] == ["- notes.md"]
    assert nested not in listing and "bottom.md" not in listing


def test_a_project_with_a_too_deep_skill_folder_stays_untrusted_without_a_person(
    tmp_path: Path, agent_home: Path, project: Path
) -> None:
    env = agent_env(tmp_path / "home", agent_home)

    trust = run_agent(["skills", "trust"], env, project)
    listed = run_agent(["skills", "list"], env, project)

    assert (trust.returncode, trust.stderr) == (
        1,
        "agent: there is no terminal to ask; run `agent skills trust` in a terminal\n",
    )
    assert (listed.returncode, listed.stderr) == (0, "")
    row = next(line for line in listed.stdout.splitlines() if line.startswith("deep "))
    assert row.split()[1:3] == ["project", "untrusted"]
