"""The plan the model presents (present_plan), rendered, and the person's choice: y carries it
out (plan mode ends; every change still asks), c keeps planning with a comment for the model,
Esc or Ctrl-C stop the turn.

The plan is the model's Markdown, sanitized and rendered as the chat renders answers
(agent.ui.markdown), and paged like any long question: the choice counts only once the
plan's end has been on screen, and only keys pressed after the question appeared answer it
(agent.ui.dialogs.fresh_keys).
"""

from __future__ import annotations

from prompt_toolkit.shortcuts import PromptSession

from agent.chat.plan_review import PlanVerdict
from agent.text import sanitize
from agent.ui.dialogs.call_rows import STOP
from agent.ui.dialogs.frame import ask_with_pages, terminal_size
from agent.ui.dialogs.fresh_keys import ask_line
from agent.ui.style import color_enabled, painted

QUESTION = "The plan: [y] carry it out  [c] keep planning, with a comment  [Esc] stop the turn "
EARLY = "y counts once the whole plan has been shown: space shows more"
COMMENT = "Comment for the model (what to change or look at): "
_SAID = {"y": "✓ carry out the plan", "c": "… keep planning", STOP: "✗ stop the turn"}


def plan_rows(plan: str, width: int, colour: bool) -> list[str]:
    """The plan as the dialog shows it: a heading, then the Markdown rendered to `width`."""
    from agent.ui.markdown import make_console, render_markdown

    console = make_console(color=colour, width=max(width - 1, 20))
    rendered = render_markdown(console, sanitize(plan)).rstrip("\n")
    heading = painted("The model's plan (plan mode: nothing was changed):", "bold", colour=colour)
    return [heading, "", *(rendered.split("\n") if rendered else ["(the plan is empty)"])]


class ChatPlanReviewer:
    """The chat's PlanReviewer: the plan, then one key."""

    async def review(self, plan: str) -> PlanVerdict:
        rows = plan_rows(plan, terminal_size().columns, color_enabled())
        choice = await ask_with_pages(
            ["", *rows],
            QUESTION,
            {"y": "y", "c": "c"},
            cancel=STOP,
            cancel_words=", Esc stops the turn",
            early=EARLY,
            pager_no=("c", "n keeps planning"),
            answered=lambda result: _SAID.get(result, ""),
        )
        if choice == "y":
            return PlanVerdict("carry_out")
        if choice == "c":
            try:
                comment = await ask_line(PromptSession[str](), COMMENT)
            except (KeyboardInterrupt, EOFError):
                return PlanVerdict("stop")
            return PlanVerdict("keep_planning", comment)
        return PlanVerdict("stop")
