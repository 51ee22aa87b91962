"""`agent skills trust` and the chat's question mean the same by an answer (issue 26): it
decides what the question lists. A no to a new or changed instruction file never takes back
an unchanged file's earlier yes; with nothing new, the command decides everything again."""

from __future__ import annotations

from pathlib import Path

import pexpect

from agent.skills.instruction_files import find_instruction_files
from agent.skills.trust import SkillTrustStore
from tests.pty_chat import pty_env, spawn_agent


def project_with_root_rules(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "sub").mkdir()
    (project / "AGENTS.md").write_text("ROOT-RULE: indent with tabs\n")
    return project


def answer_skills_trust(env: dict[str, str], folder: Path, answer: str) -> str:
    """`agent skills trust` in `folder`, answered; everything it printed."""
    child = spawn_agent(["skills", "trust"], env, folder, dimensions=(40, 200))
    child.expect_exact("[y/N] ")
    asked = str(child.before)
    child.sendline(answer)
    child.expect(pexpect.EOF)
    child.close()
    return (asked + str(child.before)).replace("\r\n", "\n")


def trusted_files(project: Path, folder: Path) -> tuple[str, ...]:
    found = find_instruction_files(project, folder).project
    return SkillTrustStore().state(project, (), found).trusted_files


def test_a_no_to_a_new_file_keeps_the_unchanged_files_yes_as_the_chat_does(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    project = project_with_root_rules(tmp_path)
    answer_skills_trust(env, project, "y")
    (project / "sub" / "CLAUDE.md").write_text("SUB-RULE: answer briefly\n")

    shown = answer_skills_trust(env, project / "sub", "n")

    assert "new: ./sub/CLAUDE.md" in shown
    assert "already trusted: ./AGENTS.md" in shown
    assert "./AGENTS.md: instruction file" not in shown  # not asked about again
    assert "(./AGENTS.md stay trusted)" in shown
    assert trusted_files(project, project / "sub") == ("./AGENTS.md",)


def test_with_nothing_new_the_command_decides_everything_again(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    project = project_with_root_rules(tmp_path)
    answer_skills_trust(env, project, "y")

    shown = answer_skills_trust(env, project, "n")  # the way to take a yes back

    assert "./AGENTS.md: instruction file" in shown
    assert trusted_files(project, project) == ()
    answer_skills_trust(env, project, "y")  # and a no
    assert trusted_files(project, project) == ("./AGENTS.md",)
