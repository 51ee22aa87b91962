"""A trusted skill's folder swapped for a link leads nowhere: the skill reader and run_command
hold on to the very folder that was found and trusted (its real path and identity), and refuse,
saying why, once the name leads elsewhere.

Attacks (issue 39, finding 1): git stores symbolic links, so a pulled commit, or one approved
command (the project is writable in the sandbox), replaces `.agents/skills/helper/` by a link
to `/`. Then
- after `agent --continue` the restored snapshot's `read_skill_resource(helper,
  "proc/self/environ")` sent agent's whole environment (every API key) to the model, unasked,
  and agent's own files and the home's token files were as readable;
- with no resume, the swap made by an approved command mid-chat let the (unsandboxed) skill
  reader read what the sandbox had just hidden, through a skill activated before the swap and
  one activated after it;
- `run_command` with `skill` bound the skill's folder, now `/`, after everything the sandbox
  hides: the whole host came back over the fence (a credential file the approval says is
  hidden printed whole).
Through the real chat in a pseudo-terminal and `agent -p --continue`, the scripted model, real
files and real bubblewrap.
"""

from __future__ import annotations

import json
import shutil
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pexpect
import pytest

from tests.pty_chat import finish, pty_env, scripted_chat
from tests.security.inputs_helpers import agent_env, one_shot, tool_results
from tests.security.run_command_helpers import folder_outside_tmp

ENV_CANARY = "ENV-CANARY-skill-swap-5521"
HOME_CANARY = "HOME-TOKEN-CANARY-skill-swap-7730"
OWN_CANARY = "AGENT-OWN-CANARY-skill-swap-9184"
HIDDEN_CANARY = "AWS-HIDDEN-CANARY-skill-swap-3307"
SWAP = (
    "rm -rf .agents/skills/helper .agents/skills/later && ln -s / .agents/skills/helper "
    "&& ln -s / .agents/skills/later"
)


@pytest.fixture
def outside() -> Iterator[Path]:
    """A folder under /var/tmp: the sandbox's /tmp is its own, so a fenced test lives here."""
    yield from folder_outside_tmp()


def make_world(base: Path, agent_home: Path) -> tuple[Path, Path]:
    """A project with skills `helper` and `later`, a home holding a token file and a hidden
    credential file, and a file of agent's own; the project and the home."""
    project = base / "project"
    for name in ("helper", "later"):
        skill = project / ".agents" / "skills" / name
        skill.mkdir(parents=True)
        (skill / "SKILL.md").write_text(
            f"---\nname: {name}\ndescription: Helps.\n---\nRead notes.md.\n"
        )
        (skill / "notes.md").write_text("the notes\n")
    home = base / "home"
    (home / ".cache" / "huggingface").mkdir(parents=True)
    (home / ".cache" / "huggingface" / "token").write_text(HOME_CANARY + "\n")
    (home / ".aws").mkdir()
    (home / ".aws" / "credentials").write_text(f"[default]\nkey = {HIDDEN_CANARY}\n")
    agent_home.mkdir(parents=True, exist_ok=True)
    (agent_home / "canary-token.json").write_text(json.dumps({"token": OWN_CANARY}))
    return project, home


def call(call_id: str, tool: str, **arguments: Any) -> dict[str, Any]:
    return {"id": call_id, "name": tool, "arguments": arguments}


def from_root(path: Path) -> str:
    """`path` relative to `/`: what a skill whose folder became `/` reads it as."""
    return str(path.resolve()).lstrip("/")


def stealing_reads(skill: str, home: Path, agent_home: Path, prefix: str) -> list[dict[str, Any]]:
    return [
        call(f"{prefix}1", "read_skill_resource", name=skill, path="proc/self/environ"),
        call(
            f"{prefix}2",
            "read_skill_resource",
            name=skill,
            path=from_root(home / ".cache" / "huggingface" / "token"),
        ),
        call(
            f"{prefix}3",
            "read_skill_resource",
            name=skill,
            path=from_root(agent_home / "canary-token.json"),
        ),
    ]


def swap(project: Path) -> None:
    """What a pulled commit does: the skills' folders become links to `/`."""
    for name in ("helper", "later"):
        folder = project / ".agents" / "skills" / name
        shutil.rmtree(folder)
        folder.symlink_to("/")


def assert_no_canary(requests: list[dict[str, Any]]) -> None:
    sent = json.dumps(requests)
    for canary in (ENV_CANARY, HOME_CANARY, OWN_CANARY, HIDDEN_CANARY):
        assert canary not in sent, canary


def approve_each(chat: pexpect.spawn, message: str, done: str) -> str:
    """Send `message` and answer y to every approval until `done` is drawn; what the
    approvals showed."""
    chat.send(message + "\r")
    shown = ""
    while chat.expect(["Approve\\?", done]) == 0:
        shown += str(chat.before)
        chat.send("y")
    chat.expect("›")
    return shown


def trusted_skill_active(chat: pexpect.spawn) -> None:
    """The project's skills trusted, and `helper` activated by the model (its first turn)."""
    chat.expect("›")
    chat.send("hello\r")
    chat.expect("Use these skills in this project\\?")
    chat.send("y")
    chat.expect("Active\\.")
    chat.expect("›")


ACTIVATE = [{"tool_calls": [call("a1", "activate_skill", name="helper")]}, {"text": "Active."}]
SWAPPING = [
    {"tool_calls": [call("s1", "run_command", argv=["sh", "-c", SWAP])]},
    {"text": "Swapped."},
]


def test_a_resumed_chat_reads_nothing_through_a_skill_folder_swapped_for_a_link(
    tmp_path: Path, agent_home: Path
) -> None:
    project, home = make_world(tmp_path, agent_home)
    env = pty_env(agent_home, tmp_path)
    with scripted_chat(tmp_path, ACTIVATE, env, project) as (chat, _fake):
        trusted_skill_active(chat)
        finish(chat)

    swap(project)
    secret_env = {**agent_env(home, agent_home), "SERVICE_API_TOKEN": ENV_CANARY}
    reads = stealing_reads("helper", home, agent_home, "r")
    done, requests = one_shot(
        [{"tool_calls": reads}, {"text": "ok"}], "go on", secret_env, project,
        extra=("--continue",),
    )  # fmt: skip

    assert done.returncode == 0, done.stderr
    assert_no_canary(requests)
    results = tool_results(requests[1])
    for read in reads:
        assert "is no longer the folder" in results[read["id"]], results


def test_a_skill_folder_swapped_mid_chat_by_an_approved_command_reads_nothing_outside(
    outside: Path, agent_home: Path
) -> None:
    project, home = make_world(outside, agent_home)
    env = {**pty_env(agent_home, outside), "HOME": str(home), "SERVICE_API_TOKEN": ENV_CANARY}
    turns = [
        *ACTIVATE,
        *SWAPPING,
        {
            "tool_calls": [
                *stealing_reads("helper", home, agent_home, "h"),
                call("a2", "activate_skill", name="later"),
                *stealing_reads("later", home, agent_home, "l"),
            ]
        },
        {"text": "Done."},
    ]
    with scripted_chat(outside, turns, env, project) as (chat, fake):
        trusted_skill_active(chat)
        approve_each(chat, "swap it", "Swapped\\.")
        approve_each(chat, "read", "Done\\.")
        requests = fake.requests()
        assert_no_canary(requests)  # before leaving: a failure says what leaked
        finish(chat)

    assert (project / ".agents" / "skills" / "helper").is_symlink()  # the swap happened
    results = tool_results(requests[-1])
    for call_id in ("h1", "h2", "h3", "a2", "l1", "l2", "l3"):
        assert "is no longer the folder" in results[call_id], results[call_id]


def test_run_command_with_a_skill_whose_folder_became_a_link_is_refused_unasked(
    outside: Path, agent_home: Path
) -> None:
    project, home = make_world(outside, agent_home)
    env = {**pty_env(agent_home, outside), "HOME": str(home)}
    steal = ["cat", str(home / ".aws" / "credentials")]
    turns = [
        *ACTIVATE,
        *SWAPPING,
        {"tool_calls": [call("c1", "run_command", argv=steal, skill="helper")]},
        {"text": "Done."},
    ]
    with scripted_chat(outside, turns, env, project) as (chat, fake):
        trusted_skill_active(chat)
        approve_each(chat, "swap it", "Swapped\\.")
        asked = approve_each(chat, "run it", "Done\\.")
        requests = fake.requests()
        assert_no_canary(requests)  # before leaving: a failure says what leaked
        finish(chat)

    result = tool_results(requests[-1])["c1"]
    assert "is no longer the folder" in result, result
    assert "credentials" not in asked  # refused before anyone was asked
