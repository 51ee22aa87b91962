"""Approval of tool calls: the policy, the Approver protocol, and the fail-closed default.

Every MCP tool call asks, every time; there is no "always". Whatever goes wrong while asking
(no terminal, an exception in the dialog) is a denial.

The calls of one model answer that need approval are asked about together (`ask_batch`): a
front end that can show them in one dialog implements `BatchApprover`; any other Approver is
asked about each in turn, before any of them runs. A yes covers the one call it answers.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from agent.messages import ToolCall
from agent.tools.base import ToolSpec


@dataclass(frozen=True)
class ApprovalRequest:
    """What the person sees: the model-facing name, server and tool, hints, full arguments."""

    call: ToolCall
    spec: ToolSpec
    arguments: dict[str, Any]
    # What the tool says it will do (agent.tools.base.PreviewedTool), shown instead of the
    # raw arguments; empty for tools that have nothing better to show than their arguments.
    preview: tuple[str, ...] = ()
    # Where the call is among the tool calls of the model's answer: `call 2 of 3`.
    number: int = 1
    of: int = 1
    # The call asks for the network and could run without it (agent.tools.base.
    # NetworkChoiceTool): the person may say "yes, without network".
    network_choice: bool = False
    # Something the person must know about this question itself (its preview failed, so
    # the raw arguments show; an earlier call of the answer changed what it will do).
    note: str | None = None
    # Who asks, when it is not the chat's own model: a subagent (`explore #2`), shown first
    # in the dialog's title. A subagent never approves; its calls ask the person like these.
    asker: str | None = None


@dataclass(frozen=True)
class Decision:
    """The person's answer; a denial may carry a reason for the model."""

    approved: bool
    reason: str | None = None
    # Declined, and the person wants the whole turn stopped (Esc or Ctrl-C at the question):
    # the answer's other calls are not asked about, and the model gets no further round.
    stop_turn: bool = False
    # Approved, but only without the network the call asked for (network_choice requests).
    without_network: bool = False
    # Stopped with Ctrl-C rather than Esc: at a subagent's question it stops every subagent
    # and the turn, as Ctrl-C does while no question is open (the chat's own questions stop
    # the turn either way).
    interrupt: bool = False


class Approver(Protocol):
    """Asks the person about one tool call."""

    async def decide(self, request: ApprovalRequest) -> Decision: ...


@dataclass(frozen=True)
class Unasked:
    """A call of the answer that is not asked about, shown with the asked ones so the person
    sees the whole answer: `why` (refused before asking, or needs no approval)."""

    call: ToolCall
    number: int
    why: str


@dataclass(frozen=True)
class ApprovalBatch:
    """The calls of one model answer that wait for the person, in the model's order, and the
    answer's other calls."""

    requests: tuple[ApprovalRequest, ...]
    others: tuple[Unasked, ...] = ()


class BatchApprover(Approver, Protocol):
    """Asks the person about several calls of one answer in one dialog: one decision per
    request, in order; a yes to all covers exactly the requests of this batch."""

    async def decide_batch(self, batch: ApprovalBatch) -> Sequence[Decision]: ...


# The reason kept with a yes without the network (the session, `agent -p`'s JSON).
WITHOUT_NETWORK = "only without the network, which the call asked for"
NO_PERSON_REASON = "nobody is at a terminal to approve it (stdin is not a terminal)"
# A call not asked about because the person stopped the turn at an earlier question.
NOT_ASKED_STOPPED = Decision(False, "the turn was stopped at an earlier call", stop_turn=True)


class DenyAll:
    """Used when no person can answer: every call that needs approval is denied."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        return Decision(False, NO_PERSON_REASON)


def needs_approval(spec: ToolSpec) -> bool:
    """MCP tools always ask; others ask when they say so."""
    return spec.server is not None or spec.requires_approval


async def ask(approver: Approver, request: ApprovalRequest) -> Decision:
    """Ask, failing closed: an error while asking is a denial."""
    try:
        return await approver.decide(request)
    except Exception as error:  # the dialog broke; never run the tool
        return _failed(error)


async def ask_batch(approver: Approver, batch: ApprovalBatch) -> list[Decision]:
    """One decision per request of `batch`, in order, failing closed: a dialog that breaks,
    or answers for more or fewer calls than it was shown, denies them all. One request, or an
    approver that asks one call at a time, is asked about each in turn; after a stop the rest
    are not asked."""
    requests = batch.requests
    decide_batch = getattr(approver, "decide_batch", None)
    if len(requests) < 2 or not callable(decide_batch):
        decisions: list[Decision] = []
        for request in requests:
            stopped = bool(decisions) and decisions[-1].stop_turn
            decisions.append(NOT_ASKED_STOPPED if stopped else await ask(approver, request))
        return decisions
    try:
        answered = list(await decide_batch(batch))
    except Exception as error:  # the dialog broke; run none of them
        return [_failed(error)] * len(requests)
    if len(answered) != len(requests) or not all(isinstance(d, Decision) for d in answered):
        return [
            Decision(False, "the approval dialog failed (answers do not match the calls)")
        ] * len(requests)
    return answered


def _failed(error: Exception) -> Decision:
    return Decision(False, f"the approval dialog failed ({type(error).__name__})")
