"""Several tool calls of one model answer, asked about in one dialog: every call is shown
(paged when they do not fit one screen; nothing is cut), then one question per call in the
model's order: y yes once, n no, r no with a reason for the model, o (a call that asks for
the network and can run without it) yes offline, a yes to this call and every later call of
this dialog, Esc no to this call and the rest, and stop the turn.

It stays exact:
- No answer counts before every call of the dialog has been on screen: the pager takes only
  n (no to all) and Esc before its last page, and a y or an a there says why it did nothing.
- Each question is a dialog of its own (agent.ui.dialogs.fresh_keys): only a key pressed
  after it appeared answers it, so keys typed before the dialog, or a bounced `yy`, answer at
  most the question they were typed at, never the next call's.
- `a` covers the calls listed here and nothing else: the next answer's calls ask again.
- The answer's calls that are not asked about (refused before anyone is asked, or needing
  no approval) are listed in their places, so the person sees the whole answer.
"""

from __future__ import annotations

from collections.abc import Callable

from prompt_toolkit.shortcuts import PromptSession

from agent.chat.approval import WITHOUT_NETWORK, ApprovalBatch, ApprovalRequest, Decision
from agent.text import sanitize_line
from agent.ui.dialogs.call_rows import STOP, call_rows, who
from agent.ui.dialogs.frame import ask_with_pages, single_key, terminal_size, wrap
from agent.ui.dialogs.fresh_keys import ask_line
from agent.ui.style import painted
from agent.ui.tool_calls import cut, short_name

# Said when y or a is pressed on a page before the last one.
EARLY = "y and a count once every call has been shown: space shows more"
ALL_NO = "no to all"  # n on a page before the last
WHY_CHARS = 300  # why a call is not asked about, on its line
_SAID = {
    "y": "✓ yes",
    "o": "✓ yes, offline",
    "n": "✗ no",
    "r": "✗ no, with a reason",
    STOP: "✗ no, and the turn stops",
}


def batch_rows(batch: ApprovalBatch, width: int = 80, colour: bool = False) -> list[str]:
    """Every call of the answer in its place: the asked ones whole, as one call's approval
    shows them, the others on a line saying why they are not asked about."""
    of = batch.requests[0].of
    rows = [painted(f"Allow these {len(batch.requests)} tool calls?", "bold", colour=colour)]
    rows.extend(
        wrap(
            painted("One question for each, in order; a says yes to the calls of this dialog "
                    "only.", "dim", colour=colour),
            width,
        )
    )  # fmt: skip
    entries: list[tuple[int, ApprovalRequest | str]] = [(r.number, r) for r in batch.requests]
    for other in batch.others:
        why = cut(sanitize_line(other.why), WHY_CHARS)
        entries.append((other.number, f"{short_name(other.call.name)}: {why}"))
    for number, entry in sorted(entries, key=lambda item: item[0]):
        heading = f"── call {number} of {of}"
        if isinstance(entry, ApprovalRequest):
            rows.append(painted(heading, "bold", colour=colour))
            rows.extend(call_rows(entry, width, colour))
        else:
            rows.extend(wrap(painted(f"{heading}: {entry}", "dim", colour=colour), width))
    return rows


def _question(request: ApprovalRequest, left: int, first: bool) -> tuple[str, dict[str, str]]:
    """The question about one call, and its keys; `left`: this call and the ones after it."""
    keys = {"y": "y", "n": "n", "r": "r"}
    yes = "[y] yes once"
    if request.network_choice:
        keys["o"] = "o"
        yes = "[y] yes once, with network  [o] yes once, offline (no network)"
    everyone = ""
    if left > 1:
        keys["a"] = "a"
        everyone = (
            f"[a] yes to all {left}  " if first else f"[a] yes to this and the rest ({left})  "
        )
    stop = "no to all, and stop the turn" if first else "no to this and the rest, stop the turn"
    return (
        f"Approve call {request.number} of {request.of} ({who(request)})? {yes}  [n] no  "
        f"[r] no, with a reason for the model  {everyone}[Esc] {stop} ",
        keys,
    )


def _answered(request: ApprovalRequest, left: int) -> Callable[[str], str]:
    """What the question's line says once answered, left on the screen."""

    def said(choice: str) -> str:
        words = f"✓ yes to all {left}" if choice == "a" else _SAID.get(choice, "✗ no")
        return f"Call {request.number} of {request.of} ({who(request)}): {words}"

    return said


async def ask_about_calls(batch: ApprovalBatch, colour: bool) -> list[Decision]:
    """One decision per call of `batch`, in order."""
    rows = ["", *batch_rows(batch, terminal_size().columns, colour)]
    requests = batch.requests
    decisions: list[Decision] = []
    for index, request in enumerate(requests):
        left = len(requests) - index
        question, keys = _question(request, left, first=index == 0)
        answered = _answered(request, left)
        if index == 0:  # every call is shown, page by page, before the first question
            choice = await ask_with_pages(
                rows,
                question,
                keys,
                cancel=STOP,
                cancel_words=", Esc stops the turn",
                early=EARLY,
                pager_no=(ALL_NO, "n declines all"),
                answered=answered,
            )
        else:
            choice = await single_key(question, keys, (), STOP, answered=answered)
        if choice in ("a", ALL_NO, STOP):
            decision = Decision(choice == "a", stop_turn=choice == STOP)
            return decisions + [decision] * left
        decisions.append(await decision_for(choice))
    return decisions


async def decision_for(choice: str) -> Decision:
    """The decision a key of an approval stands for; `r` asks for the reason first."""
    if choice == "y":
        return Decision(True)
    if choice == "o":
        return Decision(True, WITHOUT_NETWORK, without_network=True)
    if choice == STOP:
        return Decision(False, stop_turn=True)
    if choice == "r":
        try:
            reason = await ask_line(PromptSession[str](), "Reason for the model: ")
        except (KeyboardInterrupt, EOFError):
            reason = ""
        return Decision(False, reason.strip() or None)
    return Decision(False)
