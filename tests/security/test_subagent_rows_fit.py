"""A hostile model answer starting more subagents at once than the terminal has rows (issue
41): the spinner draws one row per running subagent below its own line and moves the cursor
back up over them. Rows past the screen's bottom scroll it, the move up stops at its top, and
every frame (ten a second) pushed a screenful of rows into the scrollback, over what the
chat had shown. The rows fit the screen, the rest counted on one."""

from __future__ import annotations

import re
from pathlib import Path

from agent.chat.subagents import MAX_RUNNING
from tests.pty_chat import finish, scripted_chat
from tests.security.test_subagent_lines_at_a_question import release
from tests.ui.test_subagents_pty import delegate

ROWS, COLUMNS = 8, 100  # fewer rows than subagents may run at once
MANY = MAX_RUNNING


def test_more_subagents_than_the_terminal_has_rows_never_scroll_it(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    names = [f"SUB-{number:02d}:" for number in range(MANY)]
    turns = [
        {"when": "PARENT", "tool_calls": [
            delegate(f"d{number}", "explore", f"{name} look") for number, name in enumerate(names)
        ]},
        *({"when": name, "wait_for": "RELEASE", "text": f"{name} done"} for name in names),
        {"when": "RELEASE", "text": "released"},
        {"when": "PARENT", "text": "All ended."},
    ]  # fmt: skip
    with scripted_chat(tmp_path, turns, chat_env, dimensions=(ROWS, COLUMNS)) as (chat, fake):
        chat.expect("›")
        chat.send("PARENT: go\r")
        chat.expect(f"explore #{MANY} started")
        chat.expect("Running delegate")  # a frame with the rows
        chat.expect("Running delegate")
        drawn = chat.before
        release(fake.base_url, "RELEASE")
        chat.expect("All ended.")
        chat.expect("›")
        finish(chat)
    moves_up = [int(n) for n in re.findall(r"\x1b\[(\d+)A", drawn)]
    assert moves_up, "no frame with rows was drawn"
    # The spinner's line and its rows fit in the screen, with the line above it kept.
    assert max(moves_up) <= ROWS - 2
