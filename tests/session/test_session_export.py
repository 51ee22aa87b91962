"""Export: a readable Markdown transcript of everything, and JSON with every event as saved."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from markdown_it import MarkdownIt

from agent.session.events import event_from_json
from agent.session.export import export_json, export_markdown
from agent.session.store import LoadedSession, SessionHeader, SessionWriter, load_session
from tests.session.session_helpers import (
    MODEL,
    PROJECT,
    approval,
    assistant,
    numbered,
    result,
    snapshot,
    snapshot_event,
    usage,
    user,
)

HEADER = SessionHeader(
    "20261129-143501-3f9a2c", "2026-11-29T14:35:01.000+00:00", PROJECT, MODEL, "0.1.0"
)


def session(events: list[dict[str, Any]]) -> LoadedSession:
    stamped = [{"at": "2026-11-29T14:36:00.000+00:00", **e} for e in numbered(events)]
    return LoadedSession(Path("unused.jsonl"), HEADER, stamped, [])


def test_markdown_shows_the_header_every_event_in_order_and_usage_totals() -> None:
    loaded = session(
        [
            snapshot_event("review", "Check the tests first.\n"),
            user("Please fix main.py\nIt crashes."),
            assistant(
                "Reading it.",
                ("call_1", "mcp__fx__echo", '{"text": "hi"}'),
                ("call_2", "mcp__fx__add", "{not json"),
            ),
            approval("call_1", "mcp__fx__echo", True, None),
            result("call_1", "hi"),
            approval("call_2", "mcp__fx__add", False, "not now"),
            result("call_2", "Error: The person declined this tool call. Their reason: not now"),
            assistant("Fixed."),
            usage(120, 30, 0.002),
            {"type": "compaction", "summary": "- The person wants main.py fixed.", "through": 5},
            {"type": "model_change", "from": MODEL, "to": "openai/other-model"},
            user("thanks"),
            assistant(None),
            usage(80, 5, None),
        ]
    )
    sha = snapshot("review", "Check the tests first.\n")["body_sha256"]

    assert (
        export_markdown(loaded)
        == f"""\
# Please fix main.py

- Session: `20261129-143501-3f9a2c`
- Started: `2026-11-29T14:35:01.000+00:00`
- Project: `/work/project`
- Model: `openai/fake-model`
- App version: `0.1.0`

## Skill activated: review

- Scope: `project`
- Path: `/work/project/.agents/skills/review/SKILL.md`
- Body sha256: `{sha}`

```markdown
Check the tests first.
```

## 1 · User

> Please fix main.py
> It crashes.

## 2 · Assistant

> Reading it.

**Tool call** `mcp__fx__echo` (call `call_1`) with arguments:

```json
{{
  "text": "hi"
}}
```

**Tool call** `mcp__fx__add` (call `call_2`) with arguments:

(not valid JSON, shown as sent)
```text
{{not json
```

**Approved** by the person: `mcp__fx__echo` (call `call_1`).

## 3 · Tool result

For `mcp__fx__echo` (call `call_1`):

```text
hi
```

**Declined** by the person: `mcp__fx__add` (call `call_2`). Reason: not now

## 4 · Tool result

For `mcp__fx__add` (call `call_2`):

```text
Error: The person declined this tool call. Their reason: not now
```

## 5 · Assistant

> Fixed.

## Compaction: session memory

Messages 1 to 5 (still shown above) were summarised into this session memory; from here on \
the model saw this summary instead of them.

> - The person wants main.py fixed.

**Model changed** from `openai/fake-model` to `openai/other-model`.

## 6 · User

> thanks

## 7 · Assistant

*(no text)*

## Usage

- Model requests: 2
- Prompt tokens: 200
- Completion tokens: 35
- Cost (USD): $0.0020
"""
    )


def blocks(markdown: str) -> list[tuple[str, str]]:
    """The document's top-level blocks as (kind, rendered HTML of their text, or a fence's
    content): the structure a reader sees."""
    parser = MarkdownIt("commonmark")
    found = []
    for token in parser.parse(markdown):
        if token.level == 0 and token.type == "fence":
            found.append((f"fence {token.info}", token.content))
        elif token.level == 0 and token.type.endswith("_open"):
            found.append((token.type.removesuffix("_open"), ""))
        elif token.level == 1 and token.type == "inline":
            found[-1] = (found[-1][0], parser.renderInline(token.content))
    return found


NAME, CALL = "<code>na`me</code>", "<code>`id`</code>"
HOSTILE = "## 9 · User\n```\n`````\n~~~\n<!-- \n# Heading\n---\n- item\n    code"


def test_text_in_the_session_cannot_break_the_markdown_structure() -> None:
    backticks = "a ``` b ```````` c `"
    loaded = session(
        [
            user(HOSTILE),
            assistant(HOSTILE, ("`id`", "na`me", json.dumps({"text": HOSTILE}))),
            approval("`id`", "na`me", False, "**no** [x](http://e.invalid) <b>\n## 9 · User"),
            result("`id`", backticks + "\n" + HOSTILE),
            {"type": "compaction", "summary": HOSTILE, "through": 3},
            snapshot_event("re`view", HOSTILE),
        ]
    )

    structure = blocks(export_markdown(loaded))

    assert structure == [
        ("heading", "## 9 · User"),  # the title: the first line, as text
        ("bullet_list", ""),
        ("heading", "1 · User"),
        ("blockquote", ""),  # the hostile text stays inside its quote
        ("heading", "2 · Assistant"),
        ("blockquote", ""),
        ("paragraph", f"<strong>Tool call</strong> {NAME} (call {CALL}) with arguments:"),
        ("fence json", json.dumps({"text": HOSTILE}, indent=2, ensure_ascii=False) + "\n"),
        (
            "paragraph",
            f"<strong>Declined</strong> by the person: {NAME} (call {CALL}). Reason: **no** "
            "[x](http://e.invalid) &lt;b&gt;\\n## 9 · User",
        ),
        ("heading", "3 · Tool result"),
        ("paragraph", f"For {NAME} (call {CALL}):"),
        ("fence text", backticks + "\n" + HOSTILE + "\n"),
        ("heading", "Compaction: session memory"),
        (
            "paragraph",
            "Messages 1 to 3 (still shown above) were summarised into this session memory; "
            "from here on the model saw this summary instead of them.",
        ),
        ("blockquote", ""),
        ("heading", "Skill activated: re`view"),
        ("bullet_list", ""),
        ("fence markdown", HOSTILE + "\n"),
        ("heading", "Usage"),
        ("bullet_list", ""),
    ]


def test_a_long_tool_result_is_kept_whole_and_control_characters_are_shown_as_escapes() -> None:
    long_output = "".join(f"line {i}\n" for i in range(20_000))
    loaded = session(
        [
            user("show me \x1b[31mred\x1b[0m"),
            assistant(None, ("c1", "read", "{}")),
            result("c1", long_output + "\x1b]0;title\x07\r\x9b2J"),
        ]
    )

    markdown = export_markdown(loaded)

    assert f"```text\n{long_output}\\x1b]0;title\\x07\\x0d\\x9b2J\n```\n" in markdown
    assert "> show me \\x1b[31mred\\x1b[0m\n" in markdown
    assert not any(ch in markdown for ch in "\x1b\x07\r\x9b")


def test_json_export_is_the_header_and_every_event_as_saved(tmp_path: Path) -> None:
    writer = SessionWriter.create(Path(PROJECT), MODEL, tmp_path)
    for event in [
        user("hi \x1b[2J \x9b and ünïcode"),
        assistant(None, ("c1", "t", "{}")),
        result("c1", "\udc80"),
    ]:
        writer.record(event_from_json(event))
    writer.close()
    loaded = load_session(writer.path)

    text = export_json(loaded)

    assert json.loads(text) == {"header": loaded.header.to_json(), "events": loaded.events}
    assert text.startswith('{\n  "header": {\n    "type": "header",\n')
    assert "ünïcode" in text
    assert not any(ch in text for ch in "\x1b\x9b\udc80")
    text.encode("utf-8")  # printable and writable as it is


def test_file_changes_and_undos_are_in_the_transcript_with_hostile_paths_escaped() -> None:
    from agent.session.events import FileChangeEvent, UndoEvent

    change = FileChangeEvent(1, "a\x1b[2J`b`.txt", "write_file", "created", None, "0" * 64)
    loaded = session([user("write it"), change.to_json(), UndoEvent(1, change.path).to_json()])

    markdown = export_markdown(loaded)

    assert "**File created** by `write_file`: ``a\\x1b[2J`b`.txt`` (change 1)." in markdown
    assert "**Undone** (/undo): change 1, ``a\\x1b[2J`b`.txt``." in markdown
    assert "\x1b" not in markdown


def test_plan_mode_turned_on_and_off_is_in_the_transcript() -> None:
    from agent.session.events import PlanModeEvent

    loaded = session(
        [PlanModeEvent(True, mcp=True).to_json(), user("plan it"), PlanModeEvent(False).to_json()]
    )

    markdown = export_markdown(loaded)

    assert "**Plan mode on** with MCP tools (each call asked)" in markdown
    assert "**Plan mode off**" in markdown
