"""The approval dialog as a person meets it: the real `agent` chat in a pty, the scripted model
as a process and the annotated MCP server (its tools declare destructive, open-world and
read-only hints). The captured output is what the terminal received."""

from __future__ import annotations

import re
from pathlib import Path

import pexpect

from tests.pty_chat import pty_env, scripted_chat
from tests.ui.dialogs.approval_helpers import (
    FETCH_PAGE,
    LOOKUP,
    SAVE_NOTE,
    save_trusted_annotated_server,
)

PROGRAM = "def greet(name):\n    return f'hello {name}'\n\n\nprint(greet('world'))\n"
SQL = "SELECT name\n  FROM users\n WHERE id = 7;"


def _colour_before(drawn: str, words: str) -> set[str]:
    """The SGR codes in force where `words` is drawn (prompt_toolkit resets, then sets)."""
    match = re.search(r"\x1b\[([0-9;]*)m" + re.escape(words), drawn)
    return set(match.group(1).split(";")) if match else set()


def test_multi_line_arguments_show_as_their_lines_under_one_line_naming_server_and_tool(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    save_trusted_annotated_server(agent_home, env)
    arguments = {"path": "notes/greet.py", "content": PROGRAM}
    turns = [
        {"tool_calls": [{"id": "c1", "name": SAVE_NOTE, "arguments": arguments}]},
        {"text": "Saved it."},
    ]
    with scripted_chat(tmp_path, turns, env) as (chat, fake):
        chat.expect("MCP server an ready")
        chat.expect("›")
        chat.send("save the program\r")
        chat.expect("Allow this tool call\\?")
        chat.expect("Approve\\?")
        drawn = chat.before
        chat.send("y")
        chat.expect("Saved it.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()

    assert "an · save_note" in drawn  # who is called: one line
    assert "server's tool" not in drawn and "server: an" not in drawn
    assert "(call 1 of" not in drawn  # one call in the answer: no count
    assert 'path: "notes/greet.py"' in drawn
    for row in (
        "content:",
        "1 │ def greet(name):",
        "2 │     return f'hello {name}'",
        "5 │ print(greet('world'))",
    ):
        assert row in drawn
    assert "\\n" not in drawn  # not one escaped JSON string
    assert "may delete or overwrite things (the server says so)" in drawn
    assert "hints are the server's own claims" in drawn
    assert (
        requests[1]["body"]["messages"][-1]["content"]
        == f"saved notes/greet.py ({len(PROGRAM)} characters)"
    )


def test_a_long_argument_wraps_between_words_at_the_terminals_width(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    save_trusted_annotated_server(agent_home, env)
    words = " ".join(f"word{index:02}" for index in range(30))  # 209 columns of words
    arguments = {"path": "notes/long.txt", "content": f"{words}\n{SQL}"}
    turns = [
        {"tool_calls": [{"id": "c1", "name": SAVE_NOTE, "arguments": arguments}]},
        {"text": "Saved it."},
    ]
    with scripted_chat(tmp_path, turns, env, dimensions=(40, 70)) as (chat, _fake):
        chat.expect("MCP server an ready")
        chat.expect("›")
        chat.send("save it\r")
        chat.expect("Approve\\?")
        drawn = chat.before
        chat.send("n")
        chat.expect("Saved it.")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)

    rows = [
        row.strip() for row in re.split(r"\r?\n|\r", re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", drawn))
    ]
    gutter = [row for row in rows if "│" in row or "┆" in row]
    first = next(row for row in gutter if row.startswith("1 │"))
    assert len(first) < 70 and first.endswith("word07"), gutter  # broken between words
    assert any(row.startswith("┆ word") for row in gutter), gutter  # goes on, no line number
    assert "2 │ SELECT name" in rows and "4 │  WHERE id = 7;" in rows
    assert all(re.fullmatch(r"(\d │|┆)( .*)?", row) for row in gutter), gutter


def test_hints_read_calm_or_stand_out_and_esc_stops_the_turn_after_n_went_on(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path, colours=True)
    env.pop("NO_COLOR", None)
    save_trusted_annotated_server(agent_home, env)
    calls = [
        {"id": "c1", "name": LOOKUP, "arguments": {"key": "alpha"}},
        {"id": "c2", "name": FETCH_PAGE, "arguments": {"url": "https://example.com/x"}},
        {"id": "c3", "name": SAVE_NOTE, "arguments": {"path": "n.md", "content": "x"}},
    ]
    turns = [{"tool_calls": calls}, {"text": "Understood, stopping."}]
    with scripted_chat(tmp_path, turns, env) as (chat, fake):
        chat.expect("MCP server an ready")
        chat.expect("›")
        chat.send("do three things\r")
        chat.expect("Approve call 1 of 3")
        drawn = chat.before  # the three calls, in one dialog
        chat.send("n")  # declines this one; the next call is asked about
        chat.expect("Approve call 2 of 3")
        chat.send("\x1b")  # Esc: declines this one and the rest, and stops the turn
        chat.expect("Turn stopped")
        chat.expect("›")
        chat.send("why did you stop?\r")
        chat.expect("Understood, stopping.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()

    lookup = drawn[: drawn.index("call 2 of 3")]
    assert "only reads, changes nothing (the server says so)" in lookup
    assert "⚠" not in lookup  # read-only looks calm
    assert "31" not in _colour_before(drawn, "only reads") and "33" not in _colour_before(
        drawn, "only reads"
    )
    warning = "⚠ reaches outside this machine"
    assert warning in drawn and "33" in _colour_before(drawn, warning)  # yellow
    # The model got no further round: its second request is the person's next message.
    assert len(requests) == 2
    messages = requests[1]["body"]["messages"]
    results = {m["tool_call_id"]: m["content"] for m in messages if m["role"] == "tool"}
    assert results == {
        "c1": "Error: The person declined this tool call.",
        "c2": "Error: The person declined this tool call and stopped the turn.",
        "c3": "Error: The person declined this tool call and stopped the turn.",
    }
    assert messages[-1] == {"role": "user", "content": "why did you stop?"}


def test_ctrl_c_at_an_approval_stops_the_turn_and_the_chat_goes_on(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    save_trusted_annotated_server(agent_home, env)
    calls = [
        {"id": "c1", "name": SAVE_NOTE, "arguments": {"path": "a.md", "content": "a"}},
        {"id": "c2", "name": SAVE_NOTE, "arguments": {"path": "b.md", "content": "b"}},
    ]
    turns = [{"tool_calls": calls}, {"text": "Fine."}]
    with scripted_chat(tmp_path, turns, env) as (chat, fake):
        chat.expect("MCP server an ready")
        chat.expect("›")
        chat.send("save two notes\r")
        chat.expect("Approve call 1 of 2")
        chat.send("\x03")
        chat.expect("Turn stopped")
        chat.expect("›")
        chat.send("ok\r")
        chat.expect("Fine.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        chat.close()
        requests = fake.requests()

    assert chat.exitstatus == 0  # Ctrl-C at the question stopped the turn, not the chat
    assert len(requests) == 2
    tool_results = [m for m in requests[1]["body"]["messages"] if m["role"] == "tool"]
    assert [m["tool_call_id"] for m in tool_results] == ["c1", "c2"]
    assert all("stopped the turn" in m["content"] for m in tool_results)


def test_a_long_multi_line_argument_is_paged_by_its_lines_and_esc_on_a_page_stops_the_turn(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path)
    save_trusted_annotated_server(agent_home, env)
    content = "".join(f"INSERT INTO t VALUES ({n});\n" for n in range(1, 121))  # noqa: S608 (shown, never run)
    arguments = {"path": "load.sql", "content": content}
    turns = [
        {"tool_calls": [{"id": "c1", "name": SAVE_NOTE, "arguments": arguments}]},
        {"text": "Fine."},
    ]
    with scripted_chat(tmp_path, turns, env) as (chat, fake):
        chat.expect("MCP server an ready")
        chat.expect("›")
        chat.send("load it\r")
        chat.expect("space shows more, n declines, Esc stops the turn --")
        first_page = chat.before
        chat.send(" ")
        # The second page's own pager line (the first is drawn again as its dialog ends).
        chat.expect(r"-- lines (?!1-)\d+-\d+ of \d+: space shows more, n declines, Esc stops")
        second_page = chat.before
        chat.send("\x1b")
        chat.expect("Turn stopped")
        chat.expect("›")
        chat.send("ok\r")
        chat.expect("Fine.")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()

    assert "  1 │ INSERT INTO t VALUES (1);" in first_page
    assert "120 │" not in first_page and "Approve?" not in first_page + second_page
    assert re.search(r"\d\d │ INSERT INTO t VALUES \(\d+\);", second_page)
    assert len(requests) == 2  # no round after the stop: the next request is "ok"
    tool = [m for m in requests[1]["body"]["messages"] if m["role"] == "tool"]
    assert tool[0]["content"] == "Error: The person declined this tool call and stopped the turn."
