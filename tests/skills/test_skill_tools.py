"""activate_skill and read_skill_resource, as the model calls them."""

from __future__ import annotations

import os
from dataclasses import replace
from pathlib import Path

import pytest

from agent.messages import ToolResult
from agent.skills.activation import ActiveSkills, SkillSnapshot, snapshot_of
from agent.skills.tools import SkillSession
from agent.tools.pinned_folder import pin_folder
from tests.skills.skills_helpers import make_skill

pytestmark = pytest.mark.anyio


def tools_of(session: SkillSession) -> dict[str, object]:
    return {tool.spec.name: tool for tool in session.tools()}


async def test_no_skills_means_no_skill_tools(tmp_path: Path) -> None:
    session = SkillSession([])
    assert session.tools() == [] and session.prompt_sections() == ""


async def test_activation_says_the_skill_is_active_and_lists_its_files_without_the_body(
    tmp_path: Path,
) -> None:
    skill = make_skill(tmp_path, "mcp-config", body="Write the document.\n")
    (skill.directory / "reference.md").write_text("ref")
    (skill.directory / "templates").mkdir()
    (skill.directory / "templates" / "stdio.json").write_text("{}")
    session = SkillSession([skill])
    activate = tools_of(session)["activate_skill"]
    assert activate.spec.parameters["properties"]["name"]["enum"] == ["mcp-config"]  # type: ignore[attr-defined]

    first = await activate.run({"name": "mcp-config"})  # type: ignore[attr-defined]
    again = await activate.run({"name": "mcp-config"})  # type: ignore[attr-defined]

    assert first == ToolResult(
        "Skill 'mcp-config' is now active: its instructions are in your system prompt "
        "(Active skills); follow them.\n\n"
        "Files in this skill (read one with read_skill_resource when the instructions need it):\n"
        "- reference.md\n- templates/stdio.json\n\n"
        "To run a script of this skill as its instructions say, call run_command with "
        "skill='mcp-config': the command then runs in the skill's folder."
    )
    assert again == ToolResult(
        "Skill 'mcp-config' is already active; its instructions are in your system prompt."
    )
    assert [s.name for s in session.active.snapshots] == ["mcp-config"]
    assert session.prompt_sections().endswith(
        f'Active skills (follow their instructions):\n\n<skill name="mcp-config" '
        f'directory="{skill.directory}">\nWrite the document.\n</skill>'
    )


async def test_a_skill_hidden_from_the_model_is_not_offered_but_the_person_can_activate_it(
    tmp_path: Path,
) -> None:
    hidden = make_skill(tmp_path, "deploy", hidden_from_model=True)
    shown = make_skill(tmp_path, "notes")
    session = SkillSession([hidden, shown])
    assert "deploy" not in session.prompt_sections()
    enum = tools_of(session)["activate_skill"].spec.parameters["properties"]["name"]["enum"]  # type: ignore[attr-defined]
    assert enum == ["notes"]
    snapshot, new = session.activate("deploy", by_person=True)
    assert (snapshot.name, new) == ("deploy", True)
    assert "read_skill_resource" in tools_of(session)


async def test_every_bad_resource_read_is_a_clear_tool_error(tmp_path: Path) -> None:
    skill = make_skill(tmp_path / "skills", "guide")
    (skill.directory / "ok.md").write_text("fine")
    (skill.directory / "sub").mkdir()
    (skill.directory / "big.txt").write_bytes(b"x" * (256 * 1024 + 1))
    (skill.directory / "latin1.txt").write_bytes(b"caf\xe9")
    (tmp_path / "secret.txt").write_text("outside")
    os.symlink(tmp_path / "secret.txt", skill.directory / "link.txt")
    read = tools_of(SkillSession([skill]))["read_skill_resource"]

    async def result(path: str) -> ToolResult:
        return await read.run({"name": "guide", "path": path})  # type: ignore[attr-defined,no-any-return]

    assert await result("ok.md") == ToolResult("fine")
    assert await result(str(tmp_path / "secret.txt")) == ToolResult(
        f"{str(tmp_path / 'secret.txt')!r}: give a path relative to the skill, not an absolute one",
        is_error=True,
    )
    assert await result("../../secret.txt") == ToolResult(
        "'../../secret.txt' is outside the skill 'guide'", is_error=True
    )
    assert await result("link.txt") == ToolResult(
        "'link.txt' is, or lies under, a link (or a file where a folder should be); a skill's "
        "files are read only as they lie in its folder, never through a link",
        is_error=True,
    )
    assert await result("sub") == ToolResult(
        "'sub' is a directory; name a file inside it", is_error=True
    )
    assert await result("nope.md") == ToolResult(
        "'nope.md' does not exist in the skill 'guide'", is_error=True
    )
    assert await result("big.txt") == ToolResult(
        f"'big.txt' is {256 * 1024 + 1} bytes; files over {256 * 1024} bytes are not read",
        is_error=True,
    )
    assert await result("latin1.txt") == ToolResult("'latin1.txt' is not UTF-8 text", is_error=True)


def test_snapshots_round_trip_through_json_unchanged(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "one", body="Body with ünïcode.\n")
    active = ActiveSkills()
    snapshot, _ = active.activate(skill)
    assert SkillSnapshot.from_json(snapshot.to_json()) == snapshot
    assert ActiveSkills([snapshot]).prompt_section() == active.prompt_section()


async def test_a_snapshot_saved_before_folders_were_pinned_is_vouched_for_by_the_skill_found_now(
    tmp_path: Path,
) -> None:
    skill = make_skill(tmp_path, "guide")
    (skill.directory / "notes.md").write_text("the notes")
    found = replace(skill, folder=pin_folder(skill.directory))
    saved = snapshot_of(found).to_json()
    del saved["folder"]  # as an older agent wrote it
    old = SkillSnapshot.from_json(saved)
    assert old.folder is None

    # The skill this chat found at the same SKILL.md vouches for the folder.
    session = SkillSession([found])
    session.active = ActiveSkills([session.vouched(old)])
    read = tools_of(session)["read_skill_resource"]
    assert await read.run({"name": "guide", "path": "notes.md"}) == ToolResult("the notes")  # type: ignore[attr-defined]

    # Nothing found there: nothing vouches, nothing is read, until the person activates it.
    alone = SkillSession([])
    alone.active = ActiveSkills([alone.vouched(old)])
    read = tools_of(alone)["read_skill_resource"]
    refused = await read.run({"name": "guide", "path": "notes.md"})  # type: ignore[attr-defined]
    assert refused.is_error and "did not record which folder it is" in refused.text
    alone.skills = [found]
    assert alone.activate("guide", by_person=True)[0].folder == found.folder
    assert await read.run({"name": "guide", "path": "notes.md"}) == ToolResult("the notes")  # type: ignore[attr-defined]
