"""A dialog's rows are counted exactly as prompt_toolkit draws them, so its window (sized from
that count) never cuts off its last lines."""

from __future__ import annotations

from prompt_toolkit.formatted_text import ANSI
from prompt_toolkit.layout.containers import Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.layout.mouse_handlers import MouseHandlers
from prompt_toolkit.layout.screen import Screen, WritePosition

from agent.ui.dialogs.frame import screen_rows


def drawn_rows(rows: list[str], width: int) -> list[str]:
    """The rows prompt_toolkit fills when it draws `rows` in a wrapping window `width` wide
    (the dialog's own kind of window, with room to spare below)."""
    height = 4 * len(rows) + 4
    window = Window(FormattedTextControl(ANSI("\n".join(rows))), wrap_lines=True)
    screen = Screen()
    window.write_to_screen(
        screen, MouseHandlers(), WritePosition(0, 0, width, height), "", False, None
    )
    drawn = [
        "".join(screen.data_buffer[y][x].char for x in range(width)).rstrip() for y in range(height)
    ]
    while drawn and not drawn[-1]:
        drawn.pop()
    return drawn


def test_tabs_and_control_characters_take_the_columns_prompt_toolkit_draws_them_in() -> None:
    lines = [
        "  | Please confirm" + "\t" * 120,  # each tab is drawn as ^I: two columns, not zero
        "\x7f\x85" * 30 + "日本" * 10,  # ^? and <85> beside wide characters
        "\x1b[1m" + "\xa0x" * 40 + "\x1b[0m",  # our colour codes take no columns
        "If you answer, MCP server fx will receive: password.",
    ]
    for width in (40, 80, 120):
        rows = screen_rows(lines, width)
        drawn = drawn_rows(rows, width)
        assert len(drawn) == len(rows), width
        assert drawn[-1] == rows[-1]  # the last line is drawn, on the last row counted


def test_a_row_of_tabs_wraps_where_its_drawn_width_reaches_the_edge() -> None:
    assert screen_rows(["ab" + "\t" * 12], 20) == ["ab" + "\t" * 8, "    " + "\t" * 4]
