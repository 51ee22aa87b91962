"""How a subagent's calls reach the person: through the chat's own approver, one question at a
time, each naming who asks (`explore #2 · mcp__db__query`).

A subagent never approves anything: it has no approver of its own, only this way to the
person's. Several subagents run at once, so their questions queue on one lock: a dialog is
never drawn over another, and no subagent's question can take an answer meant for another's.
"""

from __future__ import annotations

import os
import signal
from collections.abc import Sequence
from dataclasses import dataclass, replace

import anyio

from agent.chat.approval import ApprovalBatch, ApprovalRequest, Approver, Decision, ask, ask_batch


@dataclass(frozen=True)
class AskingAs:
    """The person's approver, asked on behalf of the subagent `label`."""

    person: Approver
    label: str
    turn: anyio.Lock  # shared by every subagent of the chat: one question at a time

    async def decide(self, request: ApprovalRequest) -> Decision:
        async with self.turn:
            decision = await ask(self.person, replace(request, asker=self.label))
        return _interrupting([decision])[0]

    async def decide_batch(self, batch: ApprovalBatch) -> Sequence[Decision]:
        named = tuple(replace(request, asker=self.label) for request in batch.requests)
        async with self.turn:
            return _interrupting(await ask_batch(self.person, replace(batch, requests=named)))


def _interrupting(decisions: list[Decision]) -> list[Decision]:
    """Ctrl-C at a subagent's question is Ctrl-C: the turn and every subagent stop, as when
    the person presses it while no question is open (the front end's SIGINT handler cancels
    the turn). Esc stops only the subagent that asked."""
    if any(decision.interrupt for decision in decisions):
        os.kill(os.getpid(), signal.SIGINT)
    return decisions
