"""The tool approval dialog: one key decides. y approves once; n, Esc or Ctrl-C deny; r denies
with a reason for the model. There is no "always" for MCP tools: every call asks."""

from __future__ import annotations

import shutil
import sys
from collections.abc import Callable

from prompt_toolkit.application import Application
from prompt_toolkit.formatted_text import FormattedText
from prompt_toolkit.key_binding import KeyBindings, KeyPressEvent
from prompt_toolkit.layout import Layout
from prompt_toolkit.layout.containers import Window
from prompt_toolkit.layout.controls import FormattedTextControl
from prompt_toolkit.shortcuts import PromptSession

from agent.approval import ApprovalRequest, Decision
from agent.text import sanitize
from agent.ui.render import pretty_arguments
from agent.ui.style import styled

_HINTS = ("read_only_hint", "destructive_hint", "idempotent_hint", "open_world_hint")
_HINT_WORDS = {
    "read_only_hint": ("read-only", "may change things"),
    "destructive_hint": ("destructive", "not destructive"),
    "idempotent_hint": ("idempotent", "not idempotent"),
    "open_world_hint": ("reaches the outside world", "closed world"),
}


def describe_request(request: ApprovalRequest) -> list[str]:
    """The lines shown above the question: names, hints and the complete arguments."""
    spec = request.spec
    lines = [styled("Allow this tool call?", "bold")]
    lines.append(f"  tool:   {sanitize(spec.name)}")
    if spec.server is not None:
        lines.append(f"  server: {sanitize(spec.server)}")
        lines.append(f"  server's tool: {sanitize(spec.original_name or '')}")
    hints = _annotation_words(spec.annotations or {})
    if hints:
        lines.append(f"  server says: {', '.join(hints)}  (hints from the server, not guarantees)")
    lines.append("  arguments:")
    lines.extend(
        "    " + line for line in sanitize(pretty_arguments(request.arguments)).splitlines()
    )
    return lines


def _annotation_words(annotations: dict[str, object]) -> list[str]:
    words = []
    for key in _HINTS:
        camel = "".join(part.title() if i else part for i, part in enumerate(key.split("_")))
        value = annotations.get(key, annotations.get(camel))
        if isinstance(value, bool):
            words.append(_HINT_WORDS[key][0 if value else 1])
    return words


async def _single_key(question: str, keys: dict[str, str]) -> str:
    """Wait for one of `keys`; Esc and Ctrl-C answer "n"."""
    bindings = KeyBindings()

    def answer(result: str) -> Callable[[KeyPressEvent], None]:
        def handler(event: KeyPressEvent) -> None:
            event.app.exit(result=result)

        return handler

    for key, result in keys.items():
        bindings.add(key)(answer(result))
    bindings.add("escape", eager=True)(answer("n"))
    bindings.add("c-c")(answer("n"))
    bindings.add("c-d")(answer("n"))
    bindings.add("enter")(lambda event: None)  # Enter alone decides nothing
    control = FormattedTextControl(FormattedText([("bold", question)]))
    app: Application[str] = Application(
        layout=Layout(Window(control, height=1)), key_bindings=bindings, full_screen=False
    )
    return await app.run_async()


async def _page(lines: list[str]) -> None:
    """Show every line; a screenful at a time when they do not fit, so nothing is cut."""
    rows = shutil.get_terminal_size((80, 24)).lines
    page = max(rows - 4, 5)
    for start in range(0, len(lines), page):
        for line in lines[start : start + page]:
            print(line)
        if start + page < len(lines):
            remaining = len(lines) - start - page
            await _single_key(
                f"-- {remaining} more lines: press space to continue --", {" ": "more"}
            )
    sys.stdout.flush()


class TerminalApprover:
    """Asks in the terminal, one call at a time."""

    async def decide(self, request: ApprovalRequest) -> Decision:
        print()
        await _page(describe_request(request))
        choice = await _single_key(
            "Approve? [y] yes once  [n] no  [r] no, with a reason for the model ",
            {"y": "y", "n": "n", "r": "r"},
        )
        print()
        if choice == "y":
            return Decision(True)
        if choice == "r":
            try:
                reason = await PromptSession[str]().prompt_async("Reason for the model: ")
            except (KeyboardInterrupt, EOFError):
                reason = ""
            return Decision(False, reason.strip() or None)
        return Decision(False)
