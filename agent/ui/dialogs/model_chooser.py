"""Choosing a model on a terminal: the first run's chooser, and the list `/model` shows.

Every name shown came from a local server or our own table and passed `plain_name`; it is
sanitized again on the way out all the same.
"""

from __future__ import annotations

import asyncio
import sys

import anyio.to_thread
from prompt_toolkit.shortcuts import PromptSession

from agent.chat.local_models import KINDS
from agent.chat.model_choices import (
    GIVEN,
    TYPED,
    Found,
    ModelChoice,
    find_choices,
    typed_choice,
)
from agent.chat.state import ChatSession
from agent.errors import AgentError
from agent.text import plural, sanitize, sanitize_line
from agent.ui.dialogs.fresh_keys import discard_keys
from agent.ui.spinner import Spinner
from agent.ui.style import styled
from agent.ui.typeahead import TypeAhead

NOTHING_FOUND = "Nothing found to offer: type a litellm model string, e.g. openai/gpt-4.1-mini."


def choice_lines(found: Found) -> list[str]:
    """The numbered choices, then how many more each server has (those can be typed)."""
    shown = found.shown()
    lines = [
        f"  {number}. {sanitize_line(choice.model)}  ({sanitize_line(choice.where)})"
        for number, choice in enumerate(shown, start=1)
    ]
    for server in found.servers:
        hidden = len(server.models) - sum(1 for c in shown if c.where == server.where)
        if hidden > 0:
            lines.append(f"  ... and {hidden} more on {server.where} (type the name)")
        if server.skipped:
            lines.append(
                f"  ({plural(server.skipped, 'name')} from {server.where} left out: not plain "
                "printable text, or too many)"
            )
    return lines


def pick(answer: str, found: Found) -> ModelChoice | None:
    """A number from the list (Enter: the first), a listed name, or a model string."""
    answer = answer.strip()
    shown = found.shown()
    if not answer:
        return shown[0] if shown else None
    if answer.isdigit():
        number = int(answer)
        return shown[number - 1] if 1 <= number <= len(shown) else None
    return typed_choice(answer, found)


def choose_first_model(found: Found) -> ModelChoice | None:
    """Ask which model to use until the answer names one; None when the person leaves."""
    print("No model is configured yet. Choose one to chat with (it is saved to settings):")
    lines = choice_lines(found)
    print("\n".join(lines) if lines else NOTHING_FOUND)
    question = (
        "Model (number or name; Enter for 1; Ctrl-C quits): "
        if found.shown()
        else "Model (Ctrl-C quits): "
    )
    session = PromptSession[str]()
    typed_on = ""  # what the person typed while the last name was checked
    while True:
        try:
            # Only a line typed once the question is drawn chooses (agent.ui.dialogs.fresh_keys);
            # a name typed at it while the last one was checked is in the line, unsent.
            answer = session.prompt(
                question, default=typed_on, pre_run=lambda: discard_keys(session.app.input)
            )
        except (KeyboardInterrupt, EOFError):
            return None
        choice = pick(answer, found)
        if choice is None:
            print(
                "Not one of the choices: type its number, or a model string such as "
                "openai/gpt-4.1 (a server of your own: openai/NAME http://host:port/v1)"
            )
            continue
        if choice.where not in (TYPED, GIVEN):  # a listed one is routable: nothing to check
            return choice
        problem, typed_on = asyncio.run(_checked(choice))
        if problem is None:
            return choice
        print(sanitize(problem))


async def _checked(choice: ModelChoice) -> tuple[str | None, str]:
    """Whether litellm can route `choice` (loading it takes seconds), under a spinner, with
    the keys typed meanwhile read as type-ahead: the problem, and the line typed on."""
    spinner = Spinner(sys.stdout, delay=0)
    lines: list[str] = []
    typeahead = TypeAhead(lines.append, spinner.typed, lambda: lines.clear())
    spinner.show(f"checking {sanitize_line(choice.model)}")
    try:
        with typeahead.reading():
            problem = await asyncio.to_thread(_routing_problem, choice)
    finally:
        spinner.hide()
    # An Enter typed meanwhile sends nothing: the answer about the last name comes first.
    typed = [*lines, typeahead.take_draft()]
    return problem, next((line for line in typed if line.strip()), "")


async def model_command(chat: ChatSession, argument: str) -> None:
    """/model: the current model and the choices found here; /model N or NAME switches."""
    if not argument:
        found = await anyio.to_thread.run_sync(_look)
        print(sanitize(f"Model: {chat.model_name}"))
        lines = choice_lines(found)
        if lines:
            print("Found here (/model N or /model NAME switches):")
            print("\n".join(lines))
        else:
            print(
                "No local model server or provider key found; /model NAME takes any litellm "
                "model string."
            )
        return
    choice = await _choice_for(argument)
    problem = await anyio.to_thread.run_sync(_routing_problem, choice)
    if problem is not None:
        raise AgentError(problem)
    # A name typed alone keeps the current address for a model of the same provider only
    # (ChatSession.switch_model); an address typed with it, or a server's, is used as given.
    typed = choice.where == TYPED
    previous = chat.switch_model(choice.model, ... if typed else choice.api_base)
    where = f" at {choice.api_base}" if not typed and choice.api_base else ""
    print(
        styled(
            sanitize(
                f"Model changed from {previous} to {choice.model}{where} for the rest of "
                "this session."
            ),
            "yellow",
        )
    )


async def _choice_for(argument: str) -> ModelChoice:
    # Only a number or a local server's model needs a look around (up to the discovery
    # timeout); a provider's model string switches at once.
    local = argument.split("/", 1)[0] in {kind.provider for kind in KINDS}
    found = await anyio.to_thread.run_sync(_look) if argument.isdigit() or local else Found()
    choice = pick(argument, found)
    if choice is None:
        if argument.isdigit():
            raise AgentError(f"no choice {argument}: /model lists them")
        raise AgentError(
            "usage: /model NAME [API_BASE] (a litellm model string such as openai/gpt-4.1; "
            "a server of your own: /model openai/NAME http://127.0.0.1:8080/v1)"
        )
    return choice


def _routing_problem(choice: ModelChoice) -> str | None:
    """A typed name litellm cannot route, said with what to type; listed ones are routable
    (a local server's models carry our own provider prefix). Loads litellm for a typed one."""
    if choice.where not in (TYPED, GIVEN):
        return None
    from agent.model import routing_problem

    return routing_problem(choice.model)


def _look() -> Found:
    from agent.settings import peek_model_discovery

    return find_choices(peek_model_discovery())
