"""README.md and docs/ stay true: their commands, flags and settings keys exist, every page is
linked from the README, links lead somewhere, and the README stays short."""

from __future__ import annotations

from pathlib import Path

import pytest

from agent.settings import load_settings
from tests.docs_check import (
    DOCS,
    README,
    Snippet,
    broken_links,
    documented_command_problems,
    links,
    pages,
    settings_keys,
    slash_problems,
    snippets,
    unknown_settings,
)

# The two set-up commands: .ci/run runs them (its comment says so) and people paste them.
SET_UP = (
    "python3 -m venv .venv && .venv/bin/pip install -e '.[dev]'\n"
    ".venv/bin/ruff check . && .venv/bin/mypy && .venv/bin/pytest\n"
)


def every_snippet() -> list[Snippet]:
    return [snippet for page in pages() for snippet in snippets(page)]


def page_snippets(text: str) -> list[Snippet]:
    """The snippets of a page with this text (for the checks' own tests)."""
    return list(snippets(README, text))


def test_every_documented_agent_command_exists_with_its_flags() -> None:
    assert documented_command_problems(iter(every_snippet())) == []


@pytest.mark.parametrize(
    ("text", "problem"),
    [
        ("Add one with `agent mcp install time -- uvx mcp-server-time`.", "no command 'install'"),
        ("```sh\nagent mcp disable --every    # every server\n```", "no flag --every"),
        ("Run `agent --no-servers -p hi`.", "no flag --no-servers"),
        ("`agent sessions list --format json`", "no flag --format"),
        ("`agent -p hi --output-format xml`", "takes text|json|stream-json, not 'xml'"),
        ("`agent sessions export ID --format md|xml`", "takes md|json, not 'xml'"),
        ("```sh\n$ cat x.json | agent mcp imports -\n```", "no command 'imports'"),
        ("`agent chat`", "'chat' is neither a flag nor a flag's value"),
    ],
)
def test_a_command_cli_would_not_take_is_found(text: str, problem: str) -> None:
    found = documented_command_problems(iter(page_snippets(text)))
    assert len(found) == 1 and problem in found[0], found


def test_synopses_and_transcripts_are_read_as_commands_cli_takes() -> None:
    text = (
        "```sh\nagent mcp remove NAME [NAME...]\n"
        "agent sessions export ID --format md|json [-o FILE]   # comment: `agent nothing`\n"
        'git diff | agent -p "write a commit message" --output-format json | jq -r .text\n```\n'
        "The `agent mcp` commands (`agent mcp --help`); `agent --resume`; `echo hi | agent`.\n"
        '```json\n{"agent": "agent mcp add"}\n```\n'
    )
    assert documented_command_problems(iter(page_snippets(text))) == []


def test_every_chat_command_named_exists() -> None:
    assert slash_problems(iter(every_snippet())) == []


def test_a_chat_command_that_does_not_exist_is_found() -> None:
    text = (
        "`/undo 2`, `/mcp defer NAME on\\|off`, `/tmp`, `/mcp__git__review` and the made-up "
        "`/rewind 3`, `/mcp enable\\|purge NAME`."
    )
    found = [line.split(": ", 1)[1] for line in slash_problems(iter(page_snippets(text)))]
    assert found == [
        "`/rewind 3`: the chat has no /rewind",
        "`/mcp enable\\|purge NAME`: /mcp has no purge",
    ]


def test_every_settings_key_named_is_a_key_of_the_settings_model() -> None:
    assert unknown_settings(iter(every_snippet()), settings_keys()) == []


def test_a_settings_key_that_is_not_real_is_found() -> None:
    text = (
        "Set `mcp.startup_timeout` (the real one: `mcp.startup_timeout_seconds`), `modle:`, "
        "`commands.max_seconds` and `model_limit.context_window_tokens`; not settings: "
        "`settings.yaml`, `commands.py`, `javascript:`."
    )
    found = unknown_settings(iter(page_snippets(text)), settings_keys())
    assert [line.split(": ", 1)[1] for line in found] == [
        "`mcp.startup_timeout` is no settings key",
        "`modle:` is no settings key",
        "`commands.max_seconds` is no settings key",
        "`model_limit.context_window_tokens` is no settings key",
    ]


def test_the_configuration_reference_names_every_settings_key() -> None:
    reference = DOCS / "configuration.md"
    named = {snippet.text for snippet in snippets(reference) if snippet.language is None}
    sections = {key.split(".")[0] for key in settings_keys() if "." in key}
    missing = {key for key in settings_keys() if key not in sections} - named
    assert missing == set(), f"docs/configuration.md does not name {sorted(missing)}"


@pytest.mark.parametrize("page", pages(), ids=lambda page: page.name)
def test_each_yaml_example_is_a_settings_file_that_loads(page: Path, tmp_path: Path) -> None:
    blocks = [snippet for snippet in snippets(page) if snippet.language == "yaml"]
    texts: dict[int, list[str]] = {}
    for snippet in blocks:  # a block's lines are consecutive: group them by where it starts
        start = next((s for s in texts if s + len(texts[s]) == snippet.line), snippet.line)
        texts.setdefault(start, []).append(snippet.text)
    for start, lines in texts.items():
        settings = tmp_path / f"{start}.yaml"
        settings.write_text("\n".join(lines) + "\n", encoding="utf-8")
        load_settings(settings)  # SettingsError names the key and the problem


def test_every_docs_page_is_linked_from_the_readme() -> None:
    linked = {(README.parent / target.partition("#")[0]).resolve() for _, target in links(README)}
    unlinked = [page.name for page in sorted(DOCS.glob("*.md")) if page.resolve() not in linked]
    assert unlinked == []


@pytest.mark.parametrize("page", sorted(DOCS.glob("*.md")), ids=lambda page: page.name)
def test_each_page_starts_with_what_a_person_wants_to_do(page: Path) -> None:
    title, blank, first, *_ = page.read_text(encoding="utf-8").splitlines()
    assert title.startswith("# ") and blank == ""
    assert first.startswith("What you want to do: ")


def test_the_console_picture_is_shown_and_its_script_writes_it() -> None:
    console = (DOCS / "console.md").read_text(encoding="utf-8")
    assert "](console.png)" in console
    assert 'OUTPUT = REPO / "docs" / "console.png"' in (DOCS / "make_screenshot.py").read_text()


@pytest.mark.parametrize("page", pages(), ids=lambda page: page.name)
def test_links_lead_to_files_and_headings_that_exist(page: Path) -> None:
    assert broken_links(page) == []


def test_a_link_to_a_missing_page_or_heading_is_found(tmp_path: Path) -> None:
    (tmp_path / "other.md").write_text("# Other page\n\n## Its part\n", encoding="utf-8")
    page = tmp_path / "page.md"
    page.write_text(
        "# Page\n[a](nowhere.md) [b](other.md#no-such-part) [c](#page) [d](other.md#its-part)\n"
        "![e](gone.png) [f](https://x.example/nowhere.md)\n",
        encoding="utf-8",
    )
    assert [problem.split(": ", 1)[1] for problem in broken_links(page)] == [
        "nowhere.md: no such file",
        "other.md#no-such-part: no heading #no-such-part in other.md",
        "gone.png: no such file",
    ]


def test_the_readme_is_short_and_gives_the_set_up_commands_exactly() -> None:
    text = README.read_text(encoding="utf-8")
    assert len(text.splitlines()) <= 150
    assert f"```sh\n{SET_UP}```" in text
