"""The tool approval dialog: one key decides. y approves once; n declines and the turn goes
on; r declines with a reason for the model; Esc or Ctrl-C decline and stop the whole turn.
A call that asks for the network and could run without it (run_command, fenced) has o too:
yes once, offline. There is no "always" for MCP tools: every call asks.

What is asked about reads at a glance (agent.ui.dialogs.call_rows). Several calls of one
model answer are asked about in one dialog (agent.ui.dialogs.call_batch).
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import replace

from agent.chat.approval import ApprovalBatch, ApprovalRequest, Decision
from agent.ui.dialogs.call_batch import ask_about_calls, decision_for
from agent.ui.dialogs.call_rows import STOP, describe_request
from agent.ui.dialogs.frame import ask_with_pages, terminal_size
from agent.ui.dialogs.fresh_keys import took_ctrl_c
from agent.ui.dialogs.one_question import QUESTION_TURN
from agent.ui.style import color_enabled

QUESTION = (
    "Approve? [y] yes once  [n] no  [r] no, with a reason for the model  "
    "[Esc] no, and stop the turn "
)
# A call that asks for the network and can run without it (run_command, fenced).
NETWORK_QUESTION = (
    "Approve? [y] yes once, with network  [o] yes once, offline (no network)  [n] no  "
    "[r] no, with a reason for the model  [Esc] no, and stop the turn "
)
# Said when an answer key is pressed before the end of a long call was on screen.
EARLY = "y counts once the whole call has been shown: space shows more"


class ChatApprover:
    """Asks in the terminal the dialog runs on. `colour`: None follows stdout (the chat); the
    one-shot approver says whether /dev/tty gets colours."""

    def __init__(self, colour: bool | None = None) -> None:
        self.colour = colour

    def _colour(self) -> bool:
        return color_enabled() if self.colour is None else self.colour

    async def decide(self, request: ApprovalRequest) -> Decision:
        async with QUESTION_TURN:  # never over a form of another subagent's call
            decision = await self._decide(request)
        return replace(decision, interrupt=True) if took_ctrl_c() else decision

    async def _decide(self, request: ApprovalRequest) -> Decision:
        rows = describe_request(request, terminal_size().columns, self._colour())
        keys = {"y": "y", "n": "n", "r": "r"}
        question = QUESTION
        if request.network_choice:
            keys["o"] = "o"
            question = NETWORK_QUESTION
        choice = await ask_with_pages(
            ["", *rows],
            question,
            keys,
            cancel=STOP,
            cancel_words=", Esc stops the turn",
            early=EARLY,
        )
        return await decision_for(choice)

    async def decide_batch(self, batch: ApprovalBatch) -> Sequence[Decision]:
        """The calls of one answer in one dialog, a question for each (or `a`: yes to all)."""
        async with QUESTION_TURN:
            decisions = await ask_about_calls(batch, self._colour())
        if took_ctrl_c():
            return [replace(d, interrupt=True) if d.stop_turn else d for d in decisions]
        return decisions
