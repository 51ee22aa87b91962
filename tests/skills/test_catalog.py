"""The catalog fits its budget by shortening descriptions, then leaving skills out, visibly."""

from __future__ import annotations

from pathlib import Path

from agent.skills.catalog import CATALOG_INSTRUCTION, build_catalog
from tests.skills.skills_helpers import make_skill


def test_no_skills_means_no_catalog(tmp_path: Path) -> None:
    assert build_catalog([], 10_000).text == ""


def test_the_catalog_lists_name_description_and_location_with_xml_escaping(tmp_path: Path) -> None:
    skill = make_skill(tmp_path, "pdf-tools", description="Fill <forms> & merge PDFs")
    catalog = build_catalog([skill], 10_000)
    assert catalog.text == "\n".join(
        [
            CATALOG_INSTRUCTION,
            "<available_skills>",
            "<skill><name>pdf-tools</name><description>Fill &lt;forms&gt; &amp; merge PDFs"
            f"</description><location>{skill.path}</location></skill>",
            "</available_skills>",
        ]
    )
    assert catalog.notes == ()


def test_over_budget_descriptions_are_shortened_first(tmp_path: Path) -> None:
    skills = [make_skill(tmp_path, f"s{i}", description="word " * 200) for i in range(3)]
    full = build_catalog(skills, 1_000_000)
    catalog = build_catalog(skills, len(full.text) // 3)
    assert len(catalog.text) <= len(full.text) // 3
    assert all(f"<name>s{i}</name>" in catalog.text for i in range(3))
    assert catalog.notes[0].startswith("skill descriptions shortened to ")


def test_then_skills_are_left_out_with_a_note_nearest_scopes_kept(tmp_path: Path) -> None:
    project = make_skill(tmp_path, "proj-skill", scope="project")
    bundled = [make_skill(tmp_path, f"bundled-{i}", scope="bundled") for i in range(20)]
    catalog = build_catalog([*bundled, project], 900)
    assert len(catalog.text) <= 900
    assert "<name>proj-skill</name>" in catalog.text
    [note] = catalog.notes
    assert "skills left out of the catalog to fit it: " in note
    assert "more skills are not listed for lack of space: " in catalog.text
