"""Attack: a model (a hostile endpoint, or one steered by injected text) calls a tool whose
name is 200,000 characters long. No such tool exists, so nothing runs, but the call's title
line (`⏺ NAME (no such tool)`) printed the name whole, in the chat and on `agent -p`'s
stderr: a flood that buries what came before. The title cuts the name; the model is told the
tool does not exist. The real `agent` (a pty for the chat), the scripted model as a process."""

from __future__ import annotations

import io
from pathlib import Path

import pexpect

from tests.pty_chat import FakeModelProcess, oneshot_without_terminal, scripted_chat

NAME = "read_" + "x" * 200_000


def test_a_tool_name_of_200000_characters_is_a_short_title_in_the_chat_and_in_agent_p(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    call = {"id": "c1", "name": NAME, "arguments": {}}
    turns = [{"tool_calls": [call]}, {"text": "No such tool, then."}]
    with scripted_chat(tmp_path, turns, chat_env) as (chat, fake):
        log = io.StringIO()
        chat.logfile_read = log
        chat.expect("›")
        chat.send("go\r")
        chat.expect("No such tool, then.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    drawn = log.getvalue()
    assert "read_xxx" in drawn and "no such tool" in drawn
    assert len(drawn) < 20_000, len(drawn)
    assert requests[1]["body"]["messages"][-1]["role"] == "tool"

    (tmp_path / "oneshot").mkdir()
    oneshot_model = FakeModelProcess(tmp_path / "oneshot", turns)
    try:
        done = oneshot_without_terminal(oneshot_model.base_url, "go", chat_env, tmp_path)
    finally:
        oneshot_model.stop()
    assert "read_xxx" in done.stderr
    assert len(done.stderr) < 5_000, len(done.stderr)
