"""One question of the chat on screen at a time, whoever asks: an approval, a server's form or
web page. Subagents run at once, so one's approved MCP call may bring a form from its server
while another asks about a call; two dialogs at once are drawn over each other, and a key
meant for one lands on the other. Each question holds this turn while it is on screen (a form
across all its fields), and the next waits for it.

One chat runs per process, so the turn is the process's; the lock binds to no event loop.
"""

from __future__ import annotations

import anyio

QUESTION_TURN = anyio.Lock()
