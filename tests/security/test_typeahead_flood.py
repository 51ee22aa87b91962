"""Attack: a huge paste typed ahead. What the person types while the model answers is echoed
as the chat's own notices (`✎ typing:` when a question set it aside, `⏎ queued:` once Enter
queued it, `› ...` when it is sent): a 200 KB clipboard (a log, a minified file, or a hostile
page's hidden payload) printed whole in each of them floods the scroll-back three times over
and buries what the chat said before it. Each notice shows the start of the text and a count
of what it does not show; the text itself is kept whole and sent exactly as pasted. The real
`agent` chat in a pseudo-terminal, a real MCP server, the scripted model as a process."""

from __future__ import annotations

import io
import re
import time
from pathlib import Path

import pexpect

from tests.pty_chat import scripted_chat

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"
PASTE = "\n".join(f"pasted line {n:05d} of a long log, with words to fill it" for n in range(4000))
# What any one notice may print of it: a glimpse, well under a screen.
GLIMPSE_LIMIT = 600


def notice_length(drawn: str, start: str, end: str) -> int:
    """The characters between the notice's `start` and its closing `end` (drawn once)."""
    found = re.search(re.escape(start) + "(.*?)" + re.escape(end), drawn, re.S)
    assert found is not None, (start, drawn[-2000:])
    return len(found.group(1))


def test_a_huge_paste_typed_ahead_is_shown_as_a_glimpse_and_sent_whole(
    tmp_path: Path, trusted_fixture_server: None, chat_env: dict[str, str]
) -> None:
    call = {"id": "c1", "name": "mcp__fx__echo", "arguments": {"text": "x"}}
    turns = [
        {"tool_calls": [call], "delay_before": 4},
        {"text": "Not run.", "delay_before": 3},
        {"text": "Got the paste."},
    ]
    env = chat_env | {"AGENT_QUESTION_QUIET_SECONDS": "0.5"}
    with scripted_chat(tmp_path, turns, env) as (chat, fake):
        log = io.StringIO()
        chat.logfile_read = log
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("run it\r")
        time.sleep(0.5)  # the turn's reader has the terminal (with bracketed paste on)
        chat.send(f"{PASTE_START}{PASTE}{PASTE_END}")  # typed ahead, no Enter yet
        chat.expect("Approve\\?", timeout=60)
        chat.send("n")
        chat.expect("set aside while the question was open", timeout=60)
        chat.send("\r")  # while the model still answers: queued, sent when the turn ends
        chat.expect("sent when this turn ends", timeout=60)
        chat.expect("Not run.", timeout=60)
        chat.expect("Got the paste.", timeout=60)
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    drawn = log.getvalue()
    # Each notice is a glimpse with a count, not the paste.
    assert notice_length(drawn, "✎ typing: ", "(set aside") < GLIMPSE_LIMIT
    assert notice_length(drawn, "⏎ queued: ", "(sent when") < GLIMPSE_LIMIT
    assert notice_length(drawn, "Not run.", "Got the paste.") < GLIMPSE_LIMIT  # the `›` line
    assert "pasted line 00000" in drawn
    assert re.search(r"not shown: [0-9,]+ more characters", drawn), "no count of the rest"
    assert len(drawn) < len(PASTE), "the paste reached the screen whole"
    # The text was kept whole and sent exactly as pasted.
    assert requests[2]["body"]["messages"][-1] == {"role": "user", "content": PASTE}
