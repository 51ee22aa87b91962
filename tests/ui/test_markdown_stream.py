"""Answers as Markdown: rendered block by block as they stream, the same as rendered whole,
and nothing the model writes can reach the terminal as an escape sequence."""

from __future__ import annotations

import io
import random
import time

import pytest

from agent.chat.events import TextDelta, TurnEnded
from agent.text import sanitize
from agent.ui.markdown import MarkdownStream, make_console, render_markdown
from agent.ui.render import EventRenderer
from tests.ui.ui_helpers import TerminalText

ANSWER = (
    "# Plan\n\n"
    "Some *emphasis* and **bold** text\nwrapping onto a second line, with `code`.\n\n"
    "- first item\n- second item\n\n  more of the second\n- third\n\n"
    "```python\ndef hello():\n    return 'hi'\n```\n"
    "Right after the fence.\n\n"
    "1. one\n2. two\n\n"
    "> a quote\n\n"
    "---\n"
    "## After the rule\n\n"
    "| name | value |\n|------|-------|\n| a    | 1     |\n\n"
    "    indented code\n\n"
    "A [link](https://example.com/x) to end."
)

INJECTED = (
    "Title \x1b]0;pwned\x07 here\n\n"
    "Clear \x1b[2J screen, \x1b[31mred\x1b[0m, a one-byte CSI \x9b2J, "
    "a paste end \x1b[201~ and an OSC 8 link \x1b]8;;https://evil.example\x1b\\click\x1b]8;;\x1b\\.\n\n"
    "```\n\x1b[1;1H\x1b[Kcursor games\n```\n"
)
RAW_SEQUENCES = ["\x1b]0;pwned", "\x1b[2J", "\x9b", "\x07", "\x1b[201~", "\x1b]8;;", "\x1b[1;1H"]


def streamed(text: str, sizes: list[int], *, color: bool) -> tuple[list[str], str]:
    """Feed `text` in chunks of the given sizes (cycled); every piece of output, then the flush."""
    stream = MarkdownStream(make_console(color=color, width=80), follow_width=False)
    outputs, position, index = [], 0, 0
    while position < len(text):
        size = sizes[index % len(sizes)]
        outputs.append(stream.feed(text[position : position + size]))
        position, index = position + size, index + 1
    return outputs, stream.flush()


@pytest.mark.parametrize("color", [True, False])
@pytest.mark.parametrize("sizes", [[1], [3, 7, 2], [50], [10_000]])
def test_streamed_chunk_by_chunk_it_renders_exactly_what_the_whole_answer_renders(
    color: bool, sizes: list[int]
) -> None:
    outputs, rest = streamed(ANSWER, sizes, color=color)
    whole = render_markdown(make_console(color=color, width=80), ANSWER)
    assert "".join(outputs) + rest == whole


def test_random_chunkings_of_many_documents_all_match_the_whole_rendering() -> None:
    documents = [
        ANSWER,
        INJECTED,
        "para\n---\nnext\n\n***\n\n## h2\ntext right after\n- a list interrupts\n- two\n",
        "~~~~js\nlet a = 1;\n~~~\nstill code\n~~~~\n\n> q1\nlazy\n\n> q2\n",
        "1) a\n2) b\n\n3) c\n\n---\n---\n\n# x #\n\n<div>html</div>\n\nend\n\n\n",
        "```\nnever closed\n",
    ]
    rng = random.Random(7)  # noqa: S311  (chunk sizes, not secrets)
    for document in documents:
        whole = render_markdown(make_console(color=True, width=60), sanitize(document))
        for _ in range(20):
            sizes = [rng.randint(1, 15) for _ in range(10)]
            stream = MarkdownStream(make_console(color=True, width=60), follow_width=False)
            out, position, index = [], 0, 0
            while position < len(document):
                size = sizes[index % len(sizes)]
                out.append(stream.feed(document[position : position + size]))
                position, index = position + size, index + 1
            assert "".join(out) + stream.flush() == whole, (document, sizes)


def test_a_long_paragraph_and_list_streamed_by_line_take_linear_time_and_render_the_same() -> None:
    # Each line of an open block used to parse the whole block again: a model's 2,000-line
    # paragraph held the chat for 25 s (8,000 lines: some 7 minutes).
    document = (
        "".join(f"line {n} of one long paragraph\n" for n in range(2000))
        + "\n"
        + "".join(f"- item {n}\n" for n in range(2000))
        + "\n# After\n\nThe end.\n"
    )
    started = time.process_time()
    stream = MarkdownStream(make_console(color=True, width=80), follow_width=False)
    out = [stream.feed(line) for line in document.splitlines(keepends=True)]
    rendered = "".join(out) + stream.flush()
    spent = time.process_time() - started

    assert rendered == render_markdown(make_console(color=True, width=80), document)
    assert spent < 6, f"{spent:.1f} s of CPU to stream {len(document):,} characters"


def test_finished_blocks_are_printed_while_the_answer_is_still_streaming() -> None:
    stream = MarkdownStream(make_console(color=False, width=60), follow_width=False)

    first = stream.feed("# Plan\n\nFirst paragraph.\n")
    second = stream.feed("\nSecond para")
    third = stream.feed("graph.\n\n- item")

    assert "Plan" in first + second  # the heading is done once the paragraph begins
    assert "First paragraph." in second  # done once a blank line and a new block follow
    assert "Second" not in first + second
    assert "Second paragraph." in third
    assert "item" not in third and stream.pending
    assert stream.flush().strip() == "• item"


def test_an_open_code_fence_is_printed_only_once_it_is_closed() -> None:
    stream = MarkdownStream(make_console(color=False, width=60), follow_width=False)

    before = stream.feed("Intro.\n\n```python\nx = 1\n")
    during = [stream.feed(f"y{n} = {n}\n") for n in range(50)]
    closed = stream.feed("```\n")

    assert "Intro." in before and "x = 1" not in before
    assert during == [""] * 50
    assert "x = 1" in closed and "y49 = 49" in closed
    assert not stream.pending


def test_a_fence_closed_by_a_longer_fence_or_tildes_counts_and_a_shorter_one_does_not() -> None:
    stream = MarkdownStream(make_console(color=False, width=60), follow_width=False)
    assert stream.feed("````\ncode\n```\n") == ""  # three backticks do not close four
    assert "code" in stream.feed("`````\n")
    assert stream.feed("~~~\ntilde\n") == ""
    assert "tilde" in stream.feed("~~~~\n")


@pytest.mark.parametrize("color", [True, False])
def test_escape_sequences_from_the_model_never_reach_the_output(color: bool) -> None:
    outputs, rest = streamed(INJECTED, [4], color=color)
    output = "".join(outputs) + rest

    for sequence in RAW_SEQUENCES:
        assert sequence not in output
    assert "\\x1b]0;pwned\\x07" in output  # shown, harmlessly, as text
    assert "\\x9b2J" in output
    if color:
        assert "\x1b[" in output  # our own styling is still there


def test_crlf_line_ends_count_as_line_ends_even_split_across_chunks() -> None:
    stream = MarkdownStream(make_console(color=False, width=60), follow_width=False)
    output = stream.feed("- one\r") + stream.feed("\n- two\r\n\r\nA lone \r stays visible.\r")
    output += stream.flush()
    assert output.splitlines() == ["", " • one", " • two", "", "A lone \\x0d stays visible.\\x0d"]


def test_rich_markup_and_emoji_codes_in_model_text_stay_literal() -> None:
    stream = MarkdownStream(make_console(color=False, width=60), follow_width=False)
    output = stream.feed("[bold red]not markup[/] :smile: [link=https://x]y[/link]\n") + (
        stream.flush()
    )
    assert output.strip() == "[bold red]not markup[/] :smile: [link=https://x]y[/link]"


def test_without_color_the_rendering_has_no_escape_sequence_at_all() -> None:
    outputs, rest = streamed(ANSWER, [5], color=False)
    output = "".join(outputs) + rest
    assert "\x1b" not in output
    assert "• first item" in output
    assert "def hello():" in output
    assert "A link (https://example.com/x) to end." in output


def rendered_on_a_terminal(chunks: list[str]) -> str:
    out = TerminalText()
    renderer = EventRenderer(out, spinner=False)
    for chunk in chunks:
        renderer.render(TextDelta(chunk))
    renderer.render(TurnEnded("answered"))
    return out.getvalue()


def test_no_color_in_the_environment_turns_every_escape_sequence_off(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    chunks = ["# Title\n\n**bold** and ", "`code`\n\n```py\nx = 1\n```\n"]
    monkeypatch.delenv("NO_COLOR", raising=False)
    colored = rendered_on_a_terminal(chunks)
    monkeypatch.setenv("NO_COLOR", "")  # any value, even empty, means no color
    plain = rendered_on_a_terminal(chunks)

    assert "\x1b[" in colored
    assert "\x1b" not in plain
    assert "Title" in plain and "bold and code" in plain and "x = 1" in plain


def test_off_a_terminal_the_text_is_written_as_it_arrives_sanitized_and_unrendered() -> None:
    out = io.StringIO()
    renderer = EventRenderer(out)
    renderer.render(TextDelta("# Title\n\n**bold** \x1b[2J"))
    assert out.getvalue() == "# Title\n\n**bold** \\x1b[2J"
    renderer.finish()
    assert out.getvalue().endswith("\\x1b[2J\n")
    assert renderer.spinner is None
