"""`agent sessions delete ID⏎y⏎` pasted into a shell: the y was typed before the question was
shown, so it must not delete the session; a y typed once the question is on screen does."""

from __future__ import annotations

import os

import pexpect

from tests.commands.test_cli_sessions import ONE, Sessions, chat, sessions  # noqa: F401
from tests.pty_chat import AGENT, TIMEOUT

PROMPT = "shell$ "


def test_a_y_pasted_with_the_delete_command_does_not_delete_but_a_fresh_y_does(
    sessions: Sessions,  # noqa: F811
) -> None:
    path = sessions.write(ONE, chat("hello there", "hi"))
    # A shell reading the terminal line by line, as a person's would: the command and the y
    # after it arrive in one write, so the y waits in the terminal while the agent starts.
    shell = pexpect.spawn(
        "/bin/sh", cwd=str(sessions.project), env={**os.environ, "PS1": PROMPT, "TZ": "UTC"},
        encoding="utf-8", timeout=TIMEOUT,
    )  # fmt: skip
    shell.expect_exact(PROMPT)
    question = f"Delete session {ONE}? [y/N] "
    shell.send(f"{AGENT} sessions delete {ONE}\ry\r")
    shell.expect_exact(question)
    shell.send("n\r")
    shell.expect_exact("Nothing deleted.")
    shell.expect_exact(PROMPT)
    assert path.exists()
    shell.send(f"{AGENT} sessions delete {ONE}\r")
    shell.expect_exact(question)
    shell.send("y\r")
    shell.expect_exact(f"Deleted session {ONE}.")
    shell.expect_exact(PROMPT)
    shell.send("exit\r")
    shell.expect(pexpect.EOF)
    assert not path.exists()
