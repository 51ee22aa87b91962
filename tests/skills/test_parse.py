"""Reading one SKILL.md: the spec's rules, lenient where the meaning is clear."""

from __future__ import annotations

import hashlib
import unicodedata
from pathlib import Path

import pytest

from agent.skills.model import Diagnostic, Skill, SkippedSkill
from agent.skills.parse import parse_skill_file


def write_skill(root: Path, directory: str, content: str | bytes) -> Path:
    path = root / directory / "SKILL.md"
    path.parent.mkdir(parents=True, exist_ok=True)
    data = content.encode("utf-8") if isinstance(content, str) else content
    path.write_bytes(data)
    return path


def sha256(path: Path) -> str:
    return hashlib.sha256(path.read_bytes()).hexdigest()


def warning(message: str) -> Diagnostic:
    return Diagnostic("warning", message)


def error(message: str) -> Diagnostic:
    return Diagnostic("error", message)


NO_FRONTMATTER = error(
    "has no frontmatter: the file must start with a line ---, then name: and description:, "
    "then a line ---"
)


# --- a valid skill -------------------------------------------------------------------------


def test_a_valid_skill_loads_with_its_fields_body_and_the_hash_of_its_bytes(
    tmp_path: Path,
) -> None:
    path = write_skill(
        tmp_path,
        "pdf-processing",
        "---\n"
        "name: pdf-processing\n"
        "description: Extract PDF text, fill forms. Use when handling PDFs.\n"
        "license: Apache-2.0\n"
        "compatibility: Requires poppler-utils\n"
        "metadata:\n"
        "  author: example-org\n"
        '  version: "1.0"\n'
        "allowed-tools: Read Bash(pdftotext:*)\n"
        "---\n"
        "\n"
        "# PDF processing\n"
        "\n"
        "Run `pdftotext` first.\n",
    )

    assert parse_skill_file(path, "user") == Skill(
        name="pdf-processing",
        description="Extract PDF text, fill forms. Use when handling PDFs.",
        scope="user",
        path=path,
        body="# PDF processing\n\nRun `pdftotext` first.",
        content_sha256=sha256(path),
        frontmatter={
            "name": "pdf-processing",
            "description": "Extract PDF text, fill forms. Use when handling PDFs.",
            "license": "Apache-2.0",
            "compatibility": "Requires poppler-utils",
            "metadata": {"author": "example-org", "version": "1.0"},
            "allowed-tools": "Read Bash(pdftotext:*)",
        },
    )


def test_values_keep_their_text_and_disable_model_invocation_is_read_as_a_flag(
    tmp_path: Path,
) -> None:
    path = write_skill(
        tmp_path,
        "notes",
        "---\n"
        "name: notes\n"
        "description: Takes notes.\n"
        "metadata:\n"
        "  version: 1.10\n"
        "  enabled: yes\n"
        "  released: 2025-01-31\n"
        "  build: 007\n"
        "  empty: ~\n"
        "disable-model-invocation: true\n"
        "---\n"
        "Write them down.\n",
    )

    assert parse_skill_file(path, "project") == Skill(
        name="notes",
        description="Takes notes.",
        scope="project",
        path=path,
        body="Write them down.",
        content_sha256=sha256(path),
        frontmatter={
            "name": "notes",
            "description": "Takes notes.",
            "metadata": {
                "version": "1.10",
                "enabled": "yes",
                "released": "2025-01-31",
                "build": "007",
                "empty": None,
            },
            "disable-model-invocation": "true",
        },
        disable_model_invocation=True,
        diagnostics=(warning("metadata.empty must be text, not empty"),),
    )


@pytest.mark.parametrize(
    ("value", "expected"),
    [("true", True), ("True", True), ("yes", True), ("false", False), ("off", False)],
)
def test_disable_model_invocation_accepts_the_usual_spellings_of_yes_and_no(
    tmp_path: Path, value: str, expected: bool
) -> None:
    path = write_skill(
        tmp_path, "x", f"---\nname: x\ndescription: d\ndisable-model-invocation: {value}\n---\nb"
    )

    skill = parse_skill_file(path, "user")

    assert isinstance(skill, Skill)
    assert (skill.disable_model_invocation, skill.diagnostics) == (expected, ())


def test_an_unclear_disable_model_invocation_is_read_as_false_with_a_warning(
    tmp_path: Path,
) -> None:
    path = write_skill(
        tmp_path, "x", "---\nname: x\ndescription: d\ndisable-model-invocation: maybe\n---\nb"
    )

    skill = parse_skill_file(path, "user")

    assert isinstance(skill, Skill)
    assert (skill.disable_model_invocation, skill.diagnostics) == (
        False,
        (warning("disable-model-invocation must be true or false, not 'maybe'; read as false"),),
    )


# --- names ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "name", ["a", "pdf", "pdf-processing", "v2-tools", "x" * 64, "über-tool", "日本語", "données"]
)
def test_names_within_the_spec_load_without_diagnostics(tmp_path: Path, name: str) -> None:
    path = write_skill(tmp_path, name, f"---\nname: {name}\ndescription: Does it.\n---\nBody.")

    skill = parse_skill_file(path, "user")

    assert isinstance(skill, Skill)
    assert (skill.name, skill.diagnostics) == (name, ())


@pytest.mark.parametrize(
    ("name", "problem"),
    [
        ("PDF-Processing", "the name may hold only lowercase letters, digits and hyphens"),
        ("Ünicode", "the name may hold only lowercase letters, digits and hyphens"),
        ("pdf_tool", "the name may hold only lowercase letters, digits and hyphens"),
        ("-pdf", "the name must not start or end with a hyphen"),
        ("pdf-", "the name must not start or end with a hyphen"),
        ("pdf--merge", "the name must not contain two hyphens in a row"),
        ("x" * 65, "the name is longer than 64 characters"),
    ],
)
def test_a_name_breaking_the_character_rules_loads_with_a_warning(
    tmp_path: Path, name: str, problem: str
) -> None:
    path = write_skill(tmp_path, name, f"---\nname: {name}\ndescription: Does it.\n---\nBody.")

    assert parse_skill_file(path, "user") == Skill(
        name=name,
        description="Does it.",
        scope="user",
        path=path,
        body="Body.",
        content_sha256=sha256(path),
        frontmatter={"name": name, "description": "Does it."},
        diagnostics=(warning(f"name {name!r}: {problem}; loaded anyway"),),
    )


def test_a_name_differing_from_its_directory_loads_under_the_declared_name_with_a_warning(
    tmp_path: Path,
) -> None:
    path = write_skill(tmp_path, "pdf-tools", "---\nname: pdf\ndescription: Does it.\n---\nBody.")

    skill = parse_skill_file(path, "project")

    assert isinstance(skill, Skill)
    assert (skill.name, skill.diagnostics) == (
        "pdf",
        (
            warning(
                "name 'pdf' differs from its directory 'pdf-tools'; loaded as 'pdf': "
                "rename one so they match"
            ),
        ),
    )


def test_names_are_nfkc_normalised_before_any_rule_or_directory_comparison(
    tmp_path: Path,
) -> None:
    # Full-width letters in the file; the directory name decomposed, as macOS stores names.
    path = write_skill(
        tmp_path,
        unicodedata.normalize("NFD", "café-ｎｏｔｅｓ"),
        "---\nname: caf\u00e9-ｎｏｔｅｓ\ndescription: Does it.\n---\nBody.",
    )

    skill = parse_skill_file(path, "user")

    assert isinstance(skill, Skill)
    assert (skill.name, skill.diagnostics) == ("café-notes", ())


def test_a_missing_name_falls_back_to_the_directory_name_with_a_warning(tmp_path: Path) -> None:
    path = write_skill(tmp_path, "release-notes", "---\ndescription: Writes notes.\n---\nBody.")

    skill = parse_skill_file(path, "user")

    assert isinstance(skill, Skill)
    assert (skill.name, skill.diagnostics) == (
        "release-notes",
        (
            warning(
                "name is missing; using the directory name 'release-notes': add name: release-notes"
            ),
        ),
    )


# --- description and compatibility -------------------------------------------------------


def test_a_description_of_1024_characters_is_fine_and_1025_loads_with_a_warning(
    tmp_path: Path,
) -> None:
    at_limit = write_skill(tmp_path, "a", f"---\nname: a\ndescription: {'d' * 1024}\n---\nBody.")
    over = write_skill(tmp_path, "b", f"---\nname: b\ndescription: {'d' * 1025}\n---\nBody.")

    first, second = parse_skill_file(at_limit, "user"), parse_skill_file(over, "user")

    assert isinstance(first, Skill)
    assert isinstance(second, Skill)
    assert (first.diagnostics, second.description, second.diagnostics) == (
        (),
        "d" * 1025,
        (
            warning(
                "description is 1,025 characters, over the spec's 1024; other clients may "
                "reject it: shorten it"
            ),
        ),
    )


@pytest.mark.parametrize(
    ("frontmatter", "message"),
    [
        (
            "name: x",
            "description is missing: say what the skill does and when to use it",
        ),
        (
            "name: x\ndescription:",
            "description is empty: say what the skill does and when to use it",
        ),
        (
            "name: x\ndescription: '   '",
            "description is empty: say what the skill does and when to use it",
        ),
        (
            "name: x\ndescription: [a, b]",
            "description must be text, not a list: say what the skill does and when to use it",
        ),
    ],
)
def test_a_skill_without_a_usable_description_is_skipped(
    tmp_path: Path, frontmatter: str, message: str
) -> None:
    path = write_skill(tmp_path, "x", f"---\n{frontmatter}\n---\nBody.")

    assert parse_skill_file(path, "project") == SkippedSkill(path, "project", (error(message),))


def test_compatibility_up_to_500_characters_is_fine_and_longer_loads_with_a_warning(
    tmp_path: Path,
) -> None:
    at_limit = write_skill(
        tmp_path, "a", f"---\nname: a\ndescription: d\ncompatibility: {'c' * 500}\n---\nBody."
    )
    over = write_skill(
        tmp_path, "b", f"---\nname: b\ndescription: d\ncompatibility: {'c' * 501}\n---\nBody."
    )

    first, second = parse_skill_file(at_limit, "user"), parse_skill_file(over, "user")

    assert isinstance(first, Skill)
    assert isinstance(second, Skill)
    assert (first.diagnostics, second.diagnostics) == (
        (),
        (warning("compatibility is 501 characters, over the spec's 500: shorten it"),),
    )


# --- the file's shape ----------------------------------------------------------------------


def test_a_byte_order_mark_and_crlf_line_endings_read_like_a_plain_file(tmp_path: Path) -> None:
    plain = write_skill(tmp_path / "plain", "x", "---\nname: x\ndescription: d\n---\nOne\nTwo\n")
    windows = write_skill(
        tmp_path / "windows",
        "x",
        "\ufeff---\r\nname: x\r\ndescription: d\r\n---\r\nOne\r\nTwo\r\n".encode(),
    )

    first, second = parse_skill_file(plain, "user"), parse_skill_file(windows, "user")

    assert isinstance(first, Skill)
    assert isinstance(second, Skill)
    assert second == Skill(
        name="x",
        description="d",
        scope="user",
        path=windows,
        body="One\nTwo",
        content_sha256=sha256(windows),
        frontmatter={"name": "x", "description": "d"},
    )
    assert (second.name, second.body, second.frontmatter) == (
        first.name,
        first.body,
        first.frontmatter,
    )


def test_a_dash_line_in_the_body_or_inside_a_value_is_not_a_delimiter(tmp_path: Path) -> None:
    path = write_skill(
        tmp_path,
        "x",
        "---\n"
        "name: x\n"
        "description: |\n"
        "  Before\n"
        "  ---\n"
        "  after --- the rule.\n"
        "---\n"
        "Intro\n"
        "\n"
        "---\n"
        "\n"
        "Below the rule.\n",
    )

    skill = parse_skill_file(path, "user")

    assert isinstance(skill, Skill)
    assert (skill.description, skill.body, skill.diagnostics) == (
        "Before\n---\nafter --- the rule.",
        "Intro\n\n---\n\nBelow the rule.",
        (),
    )


@pytest.mark.parametrize(
    "content",
    ["", "name: x\ndescription: d\n", "\n---\nname: x\ndescription: d\n---\n", "# Title\n"],
)
def test_a_file_without_frontmatter_at_its_top_is_skipped(tmp_path: Path, content: str) -> None:
    path = write_skill(tmp_path, "x", content)

    assert parse_skill_file(path, "user") == SkippedSkill(path, "user", (NO_FRONTMATTER,))


def test_unclosed_frontmatter_is_skipped(tmp_path: Path) -> None:
    path = write_skill(tmp_path, "x", "---\nname: x\ndescription: d\n\n# Body\n")

    assert parse_skill_file(path, "user") == SkippedSkill(
        path,
        "user",
        (
            error(
                "the frontmatter opened on line 1 is never closed: "
                "add a line --- after its last field"
            ),
        ),
    )


@pytest.mark.parametrize(
    ("frontmatter", "what"),
    [
        ("- name: x\n- description: d", "a list, not fields"),
        ("just a sentence", "'just a sentence', not fields"),
        ("", "empty"),
        ("# only a comment", "empty"),
    ],
)
def test_frontmatter_that_is_not_a_mapping_is_skipped(
    tmp_path: Path, frontmatter: str, what: str
) -> None:
    path = write_skill(tmp_path, "x", f"---\n{frontmatter}\n---\nBody.")

    assert parse_skill_file(path, "user") == SkippedSkill(
        path,
        "user",
        (error(f"the frontmatter is {what}: write fields such as name: and description:"),),
    )


def test_yaml_that_cannot_be_read_is_skipped_naming_the_line(tmp_path: Path) -> None:
    path = write_skill(tmp_path, "x", "---\nname: x\ndescription: [unclosed\n---\nBody.")

    result = parse_skill_file(path, "user")

    assert result == SkippedSkill(
        path,
        "user",
        (error("the frontmatter is not valid YAML (line 4: did not find expected ',' or ']')"),),
    )


def test_an_unquoted_colon_in_a_value_is_read_as_quoted_with_a_warning(tmp_path: Path) -> None:
    path = write_skill(
        tmp_path,
        "pdf",
        "---\n"
        "name: pdf\n"
        "description: Use when: the user asks about PDFs\n"
        "metadata:\n"
        "  note: see: the manual\n"
        "---\n"
        "Body.",
    )

    assert parse_skill_file(path, "user") == Skill(
        name="pdf",
        description="Use when: the user asks about PDFs",
        scope="user",
        path=path,
        body="Body.",
        content_sha256=sha256(path),
        frontmatter={
            "name": "pdf",
            "description": "Use when: the user asks about PDFs",
            "metadata": {"note": "see: the manual"},
        },
        diagnostics=(
            warning(
                "the frontmatter is not valid YAML (line 3: mapping values are not allowed in "
                'this context): description, note hold ": " unquoted; read as if quoted: put '
                "the value in double quotes"
            ),
        ),
    )


def test_the_colon_retry_leaves_block_values_alone(tmp_path: Path) -> None:
    path = write_skill(
        tmp_path,
        "pdf",
        "---\nname: pdf\ndescription: Use when: asked\nlicense: |\n  Terms: see: LICENSE\n---\nB",
    )

    skill = parse_skill_file(path, "user")

    assert isinstance(skill, Skill)
    assert skill.frontmatter == {
        "name": "pdf",
        "description": "Use when: asked",
        "license": "Terms: see: LICENSE\n",
    }


def test_a_file_that_is_not_utf8_is_skipped(tmp_path: Path) -> None:
    path = write_skill(tmp_path, "x", b"---\nname: x\ndescription: caf\xe9\n---\nBody.")

    assert parse_skill_file(path, "user") == SkippedSkill(
        path,
        "user",
        (error("is not UTF-8 text (byte 0xe9 on line 3); save it as UTF-8"),),
    )


def test_a_path_that_cannot_be_read_as_a_file_is_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "x" / "SKILL.md"
    folder.mkdir(parents=True)

    assert parse_skill_file(folder, "user") == SkippedSkill(
        folder, "user", (error("is a folder; a skill's instructions are in SKILL.md"),)
    )
    assert parse_skill_file(tmp_path / "y" / "SKILL.md", "user") == SkippedSkill(
        tmp_path / "y" / "SKILL.md",
        "user",
        (error("no such file; a skill is a folder holding a SKILL.md"),),
    )


# --- optional fields -----------------------------------------------------------------------


def test_allowed_tools_given_as_a_list_loads_with_a_warning(tmp_path: Path) -> None:
    path = write_skill(
        tmp_path,
        "x",
        "---\nname: x\ndescription: d\nallowed-tools:\n  - Read\n  - Bash(git:*)\n---\nBody.",
    )

    skill = parse_skill_file(path, "user")

    assert isinstance(skill, Skill)
    assert (skill.frontmatter["allowed-tools"], skill.diagnostics) == (
        ["Read", "Bash(git:*)"],
        (
            warning(
                "allowed-tools is a list; the portable form is one space-separated line: "
                "allowed-tools: Read Bash(git:*)"
            ),
        ),
    )


def test_unknown_fields_and_repeated_keys_load_with_warnings(tmp_path: Path) -> None:
    path = write_skill(
        tmp_path,
        "x",
        "---\nname: x\ndescription: first\nallowed_tools: Read\ntags: [a]\n"
        "description: second\n---\nBody.",
    )

    skill = parse_skill_file(path, "user")

    assert isinstance(skill, Skill)
    spec_fields = "name, description, license, compatibility, metadata, allowed-tools"
    assert (skill.description, skill.diagnostics) == (
        "second",
        (
            warning("'description' appears twice; the last one is used"),
            warning(
                f"unknown field 'allowed_tools' (did you mean allowed-tools?); ignored. "
                f"The spec's fields: {spec_fields}"
            ),
            warning(f"unknown field 'tags'; ignored. The spec's fields: {spec_fields}"),
        ),
    )


def test_fields_of_the_wrong_type_load_with_warnings(tmp_path: Path) -> None:
    path = write_skill(
        tmp_path,
        "x",
        "---\nname: x\ndescription: d\nlicense: [MIT]\ncompatibility: ''\n"
        "metadata:\n  nested: {a: b}\n---\nBody.",
    )

    skill = parse_skill_file(path, "user")

    assert isinstance(skill, Skill)
    assert skill.diagnostics == (
        warning("license must be text, not a list; ignored"),
        warning("compatibility is empty: leave it out, or say what the skill needs"),
        warning("metadata.nested must be text, not a map"),
    )


def test_an_empty_body_loads_with_a_warning(tmp_path: Path) -> None:
    path = write_skill(tmp_path, "x", "---\nname: x\ndescription: d\n---\n\n")

    skill = parse_skill_file(path, "user")

    assert isinstance(skill, Skill)
    assert (skill.body, skill.diagnostics) == (
        "",
        (
            warning(
                "the body is empty: after the frontmatter, write the instructions the model "
                "follows when the skill is activated"
            ),
        ),
    )


def test_aliases_that_would_expand_a_small_file_enormously_are_skipped(tmp_path: Path) -> None:
    lines = ["a0: &a0 [x, x, x, x, x, x, x, x, x, x]"]
    lines += [f"a{i}: &a{i} [{', '.join([f'*a{i - 1}'] * 10)}]" for i in range(1, 9)]
    metadata = "".join(f"  {line}\n" for line in lines)
    path = write_skill(tmp_path, "x", f"---\nname: x\ndescription: d\nmetadata:\n{metadata}---\nB")

    assert parse_skill_file(path, "user") == SkippedSkill(
        path,
        "user",
        (error("the frontmatter is not valid YAML (more than 10000 values (aliases included))"),),
    )


def test_a_recursive_alias_is_skipped(tmp_path: Path) -> None:
    path = write_skill(
        tmp_path, "x", "---\nname: x\ndescription: d\nmetadata:\n  self: &s [1, *s]\n---\nB"
    )

    assert parse_skill_file(path, "user") == SkippedSkill(
        path, "user", (error("the frontmatter is not valid YAML (nested too deeply)"),)
    )


def test_an_alias_is_read_as_a_copy_of_its_anchor(tmp_path: Path) -> None:
    path = write_skill(
        tmp_path, "x", "---\nname: &n x\ndescription: d\nmetadata:\n  id: *n\n---\nB"
    )

    skill = parse_skill_file(path, "user")

    assert isinstance(skill, Skill)
    assert skill.frontmatter == {"name": "x", "description": "d", "metadata": {"id": "x"}}


def test_a_key_that_is_not_text_is_skipped(tmp_path: Path) -> None:
    path = write_skill(tmp_path, "x", "---\nname: x\ndescription: d\n? [a]\n: b\n---\nB")

    assert parse_skill_file(path, "user") == SkippedSkill(
        path,
        "user",
        (
            error(
                "the frontmatter is not valid YAML (line 4: a key must be text, not a list or map)"
            ),
        ),
    )
