"""Plain-terminal dialogs for the console commands: trust, elicitation forms, tool arguments.

Each asks only when stdin is a terminal; with no person present the answer is always no.
Input is read in a worker thread so the event loop keeps serving the servers meanwhile.
Lines typed before a question is shown never answer it: the terminal's input buffer is
emptied first (`agent skills trust⏎y⏎` pasted into a shell must not say yes by itself).
"""

from __future__ import annotations

import contextlib
import functools
import json
import sys
import termios
import threading
from collections.abc import Iterator
from typing import Any

import anyio
import anyio.from_thread
import anyio.lowlevel

from agent.errors import NotTrustedError
from agent.mcp.forms.elicitation import (
    Action,
    ElicitationAnswer,
    ElicitationRequest,
    FieldValue,
    FormField,
    convert_value,
    describe_form,
    field_question,
    form_fields,
    refusal,
)
from agent.mcp.forms.url_opening import open_in_browser, opened_line
from agent.mcp.forms.url_request import UrlRequest, describe_url_request
from agent.mcp.trust.question import TrustRequest
from agent.text import sanitize, sanitize_line


class NoAnswerError(Exception):
    """The person closed the input (Ctrl-D) or there is no terminal."""


def _ask_line(question: str) -> str:
    with contextlib.suppress(OSError, termios.error):  # only a line typed from now on answers
        termios.tcflush(sys.stdin.fileno(), termios.TCIFLUSH)
    sys.stderr.write(sanitize(question))
    sys.stderr.flush()
    line = sys.stdin.readline()
    if not line:
        raise NoAnswerError
    return line.rstrip("\n")


@contextlib.contextmanager
def _no_echo() -> Iterator[None]:
    """The terminal does not echo what is typed until the block ends, however it ends (the
    read runs in a thread the block may abandon on Ctrl-C: echo must come back anyway)."""
    fd = sys.stdin.fileno()
    saved = termios.tcgetattr(fd)
    quiet = termios.tcgetattr(fd)
    quiet[3] &= ~termios.ECHO
    termios.tcsetattr(fd, termios.TCSANOW, quiet)
    try:
        yield
    finally:
        termios.tcsetattr(fd, termios.TCSANOW, saved)
        sys.stderr.write("\n")  # the Enter that ended the line was not echoed either
        sys.stderr.flush()


async def ask(question: str, *, secret: bool = False) -> str:
    """One line from the person, without blocking the event loop; a secret is not echoed.

    The read runs in a daemon thread: if the person presses Ctrl-C meanwhile, the command
    ends at once instead of waiting at exit for a read nobody will finish.
    """
    if not sys.stdin.isatty():
        raise NoAnswerError
    if secret:
        with _no_echo():
            return await _ask_in_thread(question)
    return await _ask_in_thread(question)


async def _ask_in_thread(question: str) -> str:
    done = anyio.Event()
    outcome: list[str | BaseException] = []
    token = anyio.lowlevel.current_token()

    def read() -> None:
        try:
            outcome.append(_ask_line(question))
        except BaseException as error:  # handed back to the waiting task
            outcome.append(error)
        with contextlib.suppress(RuntimeError):  # the loop may be gone after Ctrl-C
            anyio.from_thread.run_sync(done.set, token=token)

    threading.Thread(target=read, name="ask", daemon=True).start()
    await done.wait()
    if isinstance(outcome[0], BaseException):
        raise outcome[0]
    return outcome[0]


async def ask_yes_no(question: str, *, default: bool = False) -> bool:
    """A yes/no question; Enter alone takes the default, no terminal or Ctrl-D says no."""
    suffix = " [Y/n] " if default else " [y/N] "
    try:
        answer = (await ask(question + suffix)).strip().lower()
    except NoAnswerError:
        return False
    if not answer:
        return default
    return answer in ("y", "yes")


def confirm(question: str, *, default: bool) -> bool:
    """ask_yes_no for code that runs outside an event loop (in its own thread, or no loop)."""
    return anyio.run(functools.partial(ask_yes_no, question, default=default))


class ConsoleTrustPrompt:
    """Shows the exact command line, working directory and env names; yes starts it."""

    async def confirm(self, request: TrustRequest) -> bool:
        if not sys.stdin.isatty():
            changed = f" here: {request.reason()};" if request.previously_trusted else ""
            raise NotTrustedError(
                f"MCP server {request.server!r} is not trusted{changed} and there is no "
                f"terminal to ask; run `agent mcp trust {request.server}` in a terminal"
            )
        # One line each: a path or argument with a line break must not draw lines of ours.
        for line in request.describe():
            print(sanitize_line(line), file=sys.stderr)
        return await ask_yes_no("Start it and trust what it runs here?")


class ConsoleElicitation:
    """Fills a server's form one field at a time; empty input takes the default."""

    async def elicit(self, request: ElicitationRequest) -> ElicitationAnswer:
        """Show the whole form, then ask each field; no terminal declines."""
        refused = refusal(request)
        if refused is not None:
            self.notice(refused)
            return ElicitationAnswer("decline")
        if not sys.stdin.isatty():
            return ElicitationAnswer("decline")
        for line in describe_form(request):
            print(line, file=sys.stderr)
        try:
            choice = ""
            while not choice:  # Enter alone decides nothing: only a typed y sends the form
                answer = await ask("Answer? [y]es / [n]o (decline) / [c]ancel: ")
                choice = answer.strip().lower()
            if choice in ("n", "no"):
                return ElicitationAnswer("decline")
            if choice not in ("y", "yes"):
                return ElicitationAnswer("cancel")
            content: dict[str, FieldValue] = {}
            for field in form_fields(request.schema):
                value = await _ask_field(field)
                if value is not None:
                    content[field.name] = value
        except NoAnswerError:
            return ElicitationAnswer("cancel")
        return ElicitationAnswer("accept", content)

    async def elicit_url(self, request: UrlRequest) -> Action:
        """Show the whole URL and its host, then the y/N every question here is: only a typed
        y opens it; Enter, Ctrl-D or no terminal declines."""
        if not sys.stdin.isatty():
            return "decline"
        for line in describe_url_request(request):
            print(line, file=sys.stderr)
        if not await ask_yes_no("Open it in your browser?"):
            return "decline"
        self.notice(opened_line(request, await open_in_browser(request)))
        return "accept"

    def notice(self, text: str) -> None:
        """One line on stderr."""
        print(sanitize_line(text), file=sys.stderr)


async def _ask_field(field: FormField) -> FieldValue:
    question = field_question(field, show_default=True)
    while True:
        text = await ask(question, secret=field.secret)
        if not text.strip():
            if field.default is not None and not field.secret:
                return field.default
            if not field.required:
                return None
            print("  (required)", file=sys.stderr)
            continue
        try:
            return convert_value(field, text)
        except ValueError as error:
            print(f"  {sanitize(str(error))}", file=sys.stderr)


async def ask_arguments(schema: dict[str, Any]) -> dict[str, Any]:
    """Tool arguments asked one property at a time, converted to the schema's types."""
    required = set(schema.get("required", []))
    arguments: dict[str, Any] = {}
    for name, prop in (schema.get("properties") or {}).items():
        prop = prop if isinstance(prop, dict) else {}
        kind = prop.get("type")
        if kind in ("object", "array") and "enum" not in prop and "items" not in prop:
            kind = "json"
        if prop.get("enum"):
            kind = "choice"
        if kind in ("string", "number", "integer", "boolean", "choice"):
            field = FormField(
                name=name,
                kind=kind,
                title=name,
                description=str(prop.get("description") or ""),
                required=name in required,
                default=prop.get("default"),
                choices=tuple(str(v) for v in prop.get("enum", [])),
                choice_values=tuple(prop.get("enum", [])),
            )
            value = await _ask_field(field)
        else:
            value = await _ask_json(name, name in required)
        if value is not None:
            arguments[name] = value
    return arguments


async def _ask_json(name: str, required: bool) -> Any:
    optional = "" if required else " (optional)"
    while True:
        text = await ask(f"  {name} (JSON){optional}: ")
        if not text.strip() and not required:
            return None
        try:
            return json.loads(text)
        except json.JSONDecodeError as error:
            print(f"  not valid JSON: {error.msg}", file=sys.stderr)
