"""Approval of tool calls: the policy, the Approver protocol, and the fail-closed default.

Every MCP tool call asks, every time; there is no "always". Whatever goes wrong while asking
(no terminal, an exception in the dialog) is a denial.
"""

from __future__ import annotations

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


class Approver(Protocol):
    """Asks the person about one tool call."""

    async def decide(self, request: ApprovalRequest) -> Decision: ...


# The reason kept with a yes without the network (the session, `agent -p`'s JSON).
WITHOUT_NETWORK = "only without the network, which the call asked for"
NO_PERSON_REASON = "nobody is at a terminal to approve it (stdin is not a terminal)"


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
        return Decision(False, f"the approval dialog failed ({type(error).__name__})")
