"""Lines of ours that show someone's text: fitted, or a glimpse with a count of the rest."""

from __future__ import annotations

from agent.ui.fit import GLIMPSE_CHARACTERS, glimpse


def test_a_glimpse_is_the_whole_text_when_short_and_its_start_with_a_count_when_long() -> None:
    assert glimpse("two\nlines\x1b[2J") == "two\\nlines\\x1b[2J"
    long = "x" * GLIMPSE_CHARACTERS + "\n" + "y" * 1_000_000
    shown = glimpse(long)
    assert shown == "x" * GLIMPSE_CHARACTERS + "… (not shown: 1,000,001 more characters, 2 lines)"
