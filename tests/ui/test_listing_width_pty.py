"""`/skills` and `/tools` as a person meets them on a narrow terminal: one line each, cut at
the terminal's width with an ellipsis at a word's end, the first line of each description,
sanitised (the real `agent` in a pseudo-terminal 60 columns wide)."""

from __future__ import annotations

import re
from pathlib import Path

import pexpect

from tests.pty_chat import scripted_chat

COLUMNS = 60


def drawn_lines(screen: str) -> list[str]:
    """The lines the chat printed, without colour codes."""
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen)
    text = re.sub(r".\x08", "", text)  # a character then backspace: nothing on the screen
    return [line for line in text.replace("\r", "").split("\n") if line.strip()]


def write_skill(home: Path, name: str, description: str) -> None:
    folder = home / ".agents" / "skills" / name
    folder.mkdir(parents=True)
    (folder / "SKILL.md").write_text(f"---\nname: {name}\ndescription: {description}\n---\nBody.\n")


def test_skills_and_tools_are_one_line_each_cut_at_the_width_with_their_descriptions(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    home = tmp_path / "home"
    long = "Turns spreadsheets into charts with careful labelling of every axis"
    write_skill(home, "charts", f"|\n  {long}\n  SECOND-LINE-NOT-SHOWN")
    write_skill(home, "tiny", '"Short \\e[31mred\\e[0m one"')  # YAML's escape for ESC
    with scripted_chat(tmp_path, [], chat_env, dimensions=(40, COLUMNS)) as (chat, _fake):
        chat.expect("›")
        chat.send("/skills\r")
        chat.expect("tiny")
        listed = chat.before + chat.after
        chat.expect("›")
        skills = drawn_lines(listed + chat.before)
        chat.send("/tools\r")
        chat.expect("built-in:")
        chat.expect("›")
        tools = drawn_lines(chat.after + chat.before)
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)

    charts = next(line for line in skills if "charts (user)" in line)
    assert charts.endswith("…") and len(charts) <= COLUMNS - 1
    cut = charts[: -len("…")]
    assert (cut + " ") in f"  charts (user): {long} "  # at a word's end, not mid-word
    assert not any("SECOND-LINE" in line for line in skills)
    tiny = next(line for line in skills if "tiny (user)" in line)
    assert tiny == "  tiny (user): Short \\x1b[31mred\\x1b[0m one"
    read_file = next(line for line in tools if line.startswith("  read_file (no approval)"))
    assert read_file.endswith("…") and len(read_file) <= COLUMNS - 1
    assert all(len(line) <= COLUMNS - 1 for line in tools if not line.startswith("›"))
