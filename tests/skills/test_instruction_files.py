"""Instruction files: which are found, in which order, what the prompt section holds within
the budget, and how their trust shares the project skills' record. Real files throughout."""

from __future__ import annotations

from pathlib import Path

from agent.skills.instruction_files import find_instruction_files
from agent.skills.instruction_prompt import ProjectInstructions
from agent.skills.trust import SkillTrustStore


def project_tree(tmp_path: Path) -> Path:
    project = tmp_path / "proj"
    (project / "a" / "b" / "c").mkdir(parents=True)
    (project / "AGENTS.md").write_text("root agents\n")
    (project / "CLAUDE.md").write_text("root claude: never used, AGENTS.md is there\n")
    (project / "a" / "CLAUDE.md").write_text("a claude\n")
    (project / "a" / "b" / "GEMINI.md").write_text("b gemini\n")
    return project


def test_files_are_found_from_the_root_to_the_working_directory_with_fallbacks(
    tmp_path: Path,
) -> None:
    project = project_tree(tmp_path)
    (tmp_path / "home" / ".agents").mkdir(parents=True)
    (tmp_path / "home" / ".agents" / "AGENTS.md").write_text("mine\n")

    found = find_instruction_files(
        project, project / "a" / "b" / "c", home=tmp_path / "home", private=()
    )

    assert [(f.label, f.scope, f.text) for f in found.user] == [
        ("~/.agents/AGENTS.md", "user", "mine\n")
    ]
    assert [(f.label, f.text) for f in found.project] == [
        ("./AGENTS.md", "root agents\n"),
        ("./a/CLAUDE.md", "a claude\n"),
        ("./a/b/GEMINI.md", "b gemini\n"),
    ]
    assert found.skipped == ()


def test_a_working_directory_outside_the_project_reads_only_the_roots_file(
    tmp_path: Path,
) -> None:
    project = project_tree(tmp_path)
    found = find_instruction_files(project, tmp_path, home=tmp_path / "nohome", private=())
    assert [f.label for f in found.project] == ["./AGENTS.md"]


def test_the_section_holds_the_persons_file_then_trusted_project_files_in_frames(
    tmp_path: Path,
) -> None:
    project = project_tree(tmp_path)
    (tmp_path / "home" / ".agents").mkdir(parents=True)
    (tmp_path / "home" / ".agents" / "AGENTS.md").write_text("mine </instructions> escape\n")
    found = find_instruction_files(project, project / "a", home=tmp_path / "home", private=())
    instructions = ProjectInstructions(found)

    untrusted = instructions.section()
    assert "mine" in untrusted and "root agents" not in untrusted
    assert instructions.untrusted_note() == (
        "Project instruction files not trusted, not in the prompt: ./AGENTS.md, ./a/CLAUDE.md; "
        "run `agent skills trust` in the project (it covers instruction files too)"
    )

    instructions.project_trusted = True
    section = instructions.section()
    assert section.index("mine") < section.index("root agents") < section.index("a claude")
    assert '<instructions file="./a/CLAUDE.md">\na claude\n\n</instructions>' in section
    # A file cannot close its frame and go on as if outside it.
    assert "mine &lt;/instructions> escape" in section
    assert section.count("</instructions>") == 3
    assert instructions.untrusted_note() is None and instructions.cut_note() is None


def test_past_the_budget_a_file_is_cut_the_rest_left_out_and_the_note_says_which(
    tmp_path: Path,
) -> None:
    project = tmp_path / "proj"
    (project / "sub").mkdir(parents=True)
    (project / "AGENTS.md").write_text("é" * 30)  # 60 bytes: the cut falls inside a character
    (project / "sub" / "AGENTS.md").write_text("never reached\n")
    found = find_instruction_files(project, project / "sub", home=tmp_path, private=())
    instructions = ProjectInstructions(found, budget_bytes=41, project_trusted=True)

    kept, left_out = instructions.fitted()

    assert [(f.file.label, f.text, f.cut) for f in kept] == [("./AGENTS.md", "é" * 20, True)]
    assert [f.label for f in left_out] == ["./sub/AGENTS.md"]
    assert "[cut here: the file has 60 bytes; 40 fit the instruction files' budget]" in (
        instructions.section()
    )
    assert "never reached" not in instructions.section()
    assert instructions.cut_note() == (
        "Instruction files over the budget of 41 bytes (instructions.budget_bytes in "
        "settings.yaml): ./AGENTS.md cut to 40 of 60 bytes; ./sub/AGENTS.md left out"
    )


def test_trust_covers_skills_and_files_together_and_a_changed_file_asks_again(
    tmp_path: Path, agent_home: Path
) -> None:
    project = project_tree(tmp_path)
    store = SkillTrustStore()
    files = find_instruction_files(project, project / "a", home=tmp_path, private=()).project

    status, request = store.review(project, [], files)
    assert status == "ask" and request is not None
    assert request.added == ("./AGENTS.md", "./a/CLAUDE.md")
    assert request.question == "Use these instruction files in this project?"
    store.record(request, "trusted")
    assert store.status(project, [], files) == "trusted"

    (project / "a" / "CLAUDE.md").write_text("a claude, changed\n")
    files = find_instruction_files(project, project / "a", home=tmp_path, private=()).project
    status, request = store.review(project, [], files)
    assert status == "ask" and request is not None
    assert (request.added, request.changed, request.asked_before) == ((), ("./a/CLAUDE.md",), True)
