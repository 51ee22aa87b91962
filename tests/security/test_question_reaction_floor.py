"""A key read a moment after a question was drawn was pressed before the person could see it.

A question that appears with the keyboard quiet is armed at once (fresh_keys.Arming): the
first key read after the drawing may answer it, even 1 ms later. Over a link with latency
(ssh, a remote terminal), the drawing reaches the person's screen half a round trip after it
was sent, and a key they pressed before it appeared arrives half a round trip after they
pressed it: after the drawing, with the keyboard quiet before it. A slow typist whose next
letter, after a pause of a third of a second, is `y` (the first letter of "yes", "you"...)
and who then pauses again approves a tool call they never saw. The same holds for a question
drawn again after the hint (the hide/show flip): the key right after the redraw answers it.

The real `agent` in a pseudo-terminal, the scripted model as a process, a real MCP server:
the test presses `y` as soon as the question is on its screen, as such a key would arrive."""

from __future__ import annotations

import time
from pathlib import Path

from tests.pty_chat import scripted_chat
from tests.security.test_dialog_typeahead import ECHO

DECLINED = "Error: The person declined this tool call."


def test_a_y_read_the_moment_an_approval_is_drawn_does_not_approve_it(
    tmp_path: Path,
    trusted_fixture_server: None,
    chat_env: dict[str, str],
) -> None:
    turns = [
        {"tool_calls": [{"id": "c1", "name": ECHO, "arguments": {"text": "unseen"}}]},
        {"text": "Done."},
    ]
    chat_env.pop("AGENT_QUESTION_REACTION_SECONDS", None)  # the floor a person gets
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        chat.expect("MCP server fx ready")
        chat.expect("›")
        chat.send("run it\r")
        chat.expect("Approve\\?")
        chat.send("y")  # in flight as the question was drawn; nothing follows it
        seen = chat.expect([r"\(a question is open:", "approved"], timeout=60)
        assert seen == 0, "a y read the moment the question was drawn approved the call"
        chat.expect("Approve\\?")
        time.sleep(1)  # a person who read the question: a key well past the floor answers
        chat.send("n")
        chat.expect("Done.")
        chat.send("\x15/exit\r")
        requests = fake.requests()
    assert requests[1]["body"]["messages"][-1]["content"] == DECLINED
