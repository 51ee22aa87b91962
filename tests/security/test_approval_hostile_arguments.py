"""Attack: a model (or a prompt injection steering it) writes tool arguments that try to drive
the terminal while the approval dialog shows them as lines: escape sequences that clear the
screen or set the title, a carriage return that draws a harmless line over a dangerous one,
bidi controls that reverse what is read, and argument names that break lines to forge rows
of the dialog. Multi-line text is shown as its lines, and every one of those characters stays
a visible escape. The real `agent` chat in a pty with colours on (its own SGR codes pass,
nobody else's), the scripted model as a process, the annotated server."""

from __future__ import annotations

from pathlib import Path

import pexpect

from tests.pty_chat import pty_env, scripted_chat
from tests.ui.dialogs.approval_helpers import SAVE_NOTE, save_trusted_annotated_server

CONTENT = (
    "harmless first line\n"
    "rm -rf ~/important\recho all good      \n"  # the CR would draw `echo` over `rm -rf`
    "\x1b[2J\x1b[H\x1b]0;pwned\x07cleared?\n"  # clear screen, home, window title
    "\u202etxt.exe\n"  # reads as `exe.txt`
    "\x1b[31mnot our red\x1b[0m\n"
)
FORGED_NAME = "note\n  ✓ approved\n  arguments: none"


def test_hostile_argument_text_is_shown_as_lines_with_every_control_visible(
    tmp_path: Path, agent_home: Path
) -> None:
    env = pty_env(agent_home, tmp_path, colours=True)
    env.pop("NO_COLOR", None)
    save_trusted_annotated_server(agent_home, env)
    arguments = {"path": "a\u202etxt.sh", "content": CONTENT, FORGED_NAME: "x"}
    turns = [
        {"tool_calls": [{"id": "c1", "name": SAVE_NOTE, "arguments": arguments}]},
        {"text": "Declined, fine."},
    ]
    with scripted_chat(tmp_path, turns, env) as (chat, fake):
        chat.expect("MCP server an ready")
        chat.expect("›")
        chat.send("save it\r")
        chat.expect("Allow this tool call\\?")
        chat.expect("Approve\\?")
        drawn = chat.before
        chat.send("n")
        chat.expect("Declined, fine.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()

    # Shown as lines, each control a visible escape on its own line of the text.
    assert "1 │ harmless first line" in drawn
    assert "2 │ rm -rf ~/important\\x0decho all good" in drawn
    assert "3 │ \\x1b[2J\\x1b[H\\x1b]0;pwned\\x07cleared?" in drawn
    assert "4 │ \\u202etxt.exe" in drawn
    assert "5 │ \\x1b[31mnot our red\\x1b[0m" in drawn
    assert 'path: "a\\u202etxt.sh"' in drawn
    # A name with line breaks is one quoted row: it draws no `✓ approved` of its own.
    assert '"note\\n  ✓ approved\\n  arguments: none": "x"' in drawn
    # None of it reached the terminal raw.
    for raw in ("\x1b[2J", "\x1b]0;", "\x07", "\u202e", "\x1b[31mnot our red"):
        assert raw not in drawn, repr(raw)
    assert "important\recho" not in drawn
    # The declined call never ran: its result is the decline.
    assert requests[1]["body"]["messages"][-1]["content"] == (
        "Error: The person declined this tool call."
    )
