"""argv -> a lazy command table -> chat, one-shot or a subcommand.

Start-up must stay cheap: `agent --help` and `--version` import nothing heavy, and no
`agent mcp ...` command imports litellm. The table names each subcommand's function by module
and name; its module is imported only when that command runs.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any, NamedTuple

from agent import __version__

Handler = Callable[[argparse.Namespace], int]


class Command(NamedTuple):
    """A subcommand: `function` in `module`, called with values named by `positional`/`keywords`.

    A name is "store" (the MCP configuration), "project" (the project folder) or the parsed
    argument of that `dest`; keywords pass the argument under its own name. (A NamedTuple,
    not a dataclass: `dataclasses` would add `inspect` and `ast` to every start-up.)
    """

    module: str
    function: str
    positional: tuple[str, ...] = ()
    keywords: tuple[str, ...] = ()

    def __call__(self, args: argparse.Namespace) -> int:
        """Import the command's module, call its function, return the exit status."""
        function: Callable[..., int] = getattr(import_module(self.module), self.function)
        return function(
            *(_value(name, args) for name in self.positional),
            **{name: _value(name, args) for name in self.keywords},
        )


def _value(name: str, args: argparse.Namespace) -> Any:
    if name == "store":
        from agent.mcp.store import McpStore

        return McpStore()
    if name == "project":
        from agent.project import find_project_dir

        return find_project_dir()
    return getattr(args, name)


_MCP_CONFIG, _MCP_CONSOLE = "agent.commands.mcp_config", "agent.commands.mcp_console"
_SKILLS, _SESSIONS = "agent.commands.skills", "agent.commands.sessions"
_MCP_CATALOG = "agent.commands.mcp_catalog"

COMMANDS: dict[str, Command] = {
    "mcp import": Command(_MCP_CONFIG, "import_document", ("store", "file", "merge")),
    "mcp export": Command(_MCP_CONFIG, "export_document", ("store",)),
    "mcp edit": Command(_MCP_CONFIG, "edit_document", ("store",)),
    "mcp list": Command(_MCP_CONFIG, "list_servers", ("store",)),
    "mcp remove": Command(_MCP_CONFIG, "remove_servers", ("store", "names")),
    "mcp tools": Command(
        _MCP_CONSOLE,
        "tools_command",
        ("store", "name"),
        ("refresh", "enable", "disable", "schema"),
    ),
    "mcp enable": Command(_MCP_CONSOLE, "enable_command", ("store", "name")),
    "mcp disable": Command(_MCP_CONSOLE, "disable_command", ("store", "name")),
    "mcp trust": Command(_MCP_CONSOLE, "trust_command", ("store", "name")),
    "mcp restart": Command(_MCP_CONSOLE, "restart_command", ("store", "name")),
    "mcp inspect": Command(_MCP_CONSOLE, "inspect_command", ("store", "name", "trace")),
    "mcp call": Command(
        _MCP_CONSOLE, "call_command", ("store", "name", "tool", "args_json", "trace")
    ),
    "mcp send": Command(
        "agent.commands.mcp_send", "send_command", ("store", "name", "message", "trace")
    ),
    "mcp console": Command(
        "agent.web.console_command", "console_command", ("store", "host", "port", "no_browser")
    ),
    "mcp resources": Command(_MCP_CATALOG, "resources_command", ("store", "name", "trace")),
    "mcp read": Command(
        _MCP_CATALOG, "read_command", ("store", "name", "uri", "output", "force", "trace")
    ),
    "mcp prompts": Command(_MCP_CATALOG, "prompts_command", ("store", "name", "trace")),
    "mcp prompt": Command(
        _MCP_CATALOG, "prompt_command", ("store", "name", "prompt", "args_json", "trace")
    ),
    "mcp login": Command(
        "agent.commands.mcp_auth", "login_command", ("store", "name", "no_browser")
    ),
    "mcp logout": Command("agent.commands.mcp_auth", "logout_command", ("store", "name")),
    "skills list": Command(_SKILLS, "list_skills", ("project",)),
    "skills show": Command(_SKILLS, "show_skill", ("project", "name")),
    "skills validate": Command(_SKILLS, "validate_paths", ("paths",)),
    "skills trust": Command("agent.commands.skills_trust", "trust_command", ("project",)),
    "sessions list": Command(_SESSIONS, "list_command", ("project", "every_project")),
    "sessions show": Command(_SESSIONS, "show_command", ("session_id",)),
    "sessions export": Command(_SESSIONS, "export_command", ("session_id", "fmt", "output")),
    "sessions delete": Command(_SESSIONS, "delete_command", ("session_id", "yes")),
}


def build_parser() -> argparse.ArgumentParser:
    """The whole command line."""
    parser = argparse.ArgumentParser(
        prog="agent",
        description="An MCP-native terminal chat agent: every MCP tool call asks you first.",
        epilog=ONE_SHOT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    parser.add_argument("--version", action="version", version=f"agent {__version__}")
    parser.add_argument(
        "--model",
        metavar="MODEL",
        help="litellm model string, e.g. openai/gpt-4.1-mini (else AGENT_MODEL, else settings)",
    )
    parser.add_argument(
        "--api-base", metavar="URL", help="the model API's base URL (else api_base in settings)"
    )
    resume = parser.add_mutually_exclusive_group()
    resume.add_argument(
        "--continue",
        dest="continue_latest",
        action="store_true",
        help="continue the latest session of this project",
    )
    resume.add_argument(
        "--resume",
        nargs="?",
        const="pick",
        metavar="ID",
        help="continue a session by id or id prefix (no ID: choose from a list)",
    )
    parser.add_argument(
        "-p",
        "--print",
        dest="prompt",
        nargs="?",
        const="",
        metavar="PROMPT",
        help="one-shot: run one turn and print the answer; text piped to stdin is added "
        "after the prompt (a blank line between)",
    )
    parser.add_argument(
        "--output-format",
        choices=("text", "json", "stream-json"),
        help="one-shot output: text (the answer only; default), json (one object at the end) "
        "or stream-json (one object per line as things happen)",
    )
    parser.set_defaults(handler=_chat)
    commands = parser.add_subparsers(dest="command", metavar="COMMAND")
    _add_mcp_commands(commands)
    _add_skills_commands(commands)
    _add_sessions_commands(commands)
    return parser


ONE_SHOT_EPILOG = """\
one-shot mode (-p PROMPT, or text piped to stdin): one turn, then exit.
  MCP tool calls are asked about on the controlling terminal (/dev/tty), even when stdin
  and stdout are pipes; with no terminal at all they are denied and the output says so.

exit codes:
  0    the model answered
  1    the turn failed: a model error (or settings, session or set-up error)
  2    usage error (bad flags, nothing to send, no model configured)
  3    the model answered, but at least one tool call was denied
  130  interrupted (Ctrl-C)"""

_NAME_HELP = "a server name as shown by agent mcp list"


def _add_mcp_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    mcp = commands.add_parser(
        "mcp", help="configure MCP servers", description="Configure MCP servers."
    )
    sub = mcp.add_subparsers(dest="mcp_command", metavar="ACTION", required=True)

    imp = sub.add_parser(
        "import",
        help="replace the configuration with an mcpServers or servers JSON document",
        description="Replace the whole MCP configuration with a Claude Desktop, Cursor or "
        "VS Code document (JSON or JSONC). Nothing is saved if any server has a problem.",
    )
    imp.add_argument("file", metavar="FILE", help="the document, or - for standard input")
    imp.add_argument(
        "--merge", action="store_true", help="add or replace only the servers the document names"
    )
    imp.set_defaults(handler=COMMANDS["mcp import"])

    sub.add_parser(
        "export",
        help="print the configuration as a canonical mcpServers document",
        description="Print the configuration as a canonical mcpServers document (JSON), "
        "ready to import elsewhere or keep under version control.",
    ).set_defaults(handler=COMMANDS["mcp export"])
    sub.add_parser(
        "edit",
        help="edit the configuration in $VISUAL or $EDITOR",
        description="Edit the configuration as an mcpServers document in $VISUAL or $EDITOR. "
        "It is saved only when valid; on errors you may edit again, and quitting saves nothing.",
    ).set_defaults(handler=COMMANDS["mcp edit"])
    sub.add_parser(
        "list",
        help="list configured servers (never env or header values)",
        description="List configured servers: name, transport, enabled, trusted, tools and "
        "the command line or URL. Env and header values are never printed, only their names.",
    ).set_defaults(handler=COMMANDS["mcp list"])
    remove = sub.add_parser(
        "remove",
        help="delete servers from the configuration",
        description="Delete servers and their saved state from the configuration. If any name "
        "is unknown, nothing is removed.",
    )
    remove.add_argument("names", nargs="+", metavar="NAME", help=_NAME_HELP)
    remove.set_defaults(handler=COMMANDS["mcp remove"])
    _add_mcp_console_commands(sub)


def _add_mcp_console_commands(
    sub: argparse._SubParsersAction[argparse.ArgumentParser],
) -> None:
    tools = sub.add_parser(
        "tools",
        help="list a server's tools; select them; show their schemas",
        description="List a server's tools (discovering them first if needed). A local server "
        "that is not trusted asks before it starts.",
    )
    tools.add_argument("name", metavar="NAME", help=_NAME_HELP)
    tools.add_argument("--refresh", action="store_true", help="ask the server for its tools again")
    tools.add_argument(
        "--enable", nargs="+", default=[], metavar="TOOL", help="select tools (or all)"
    )
    tools.add_argument(
        "--disable", nargs="+", default=[], metavar="TOOL", help="deselect tools (or all)"
    )
    tools.add_argument("--schema", action="store_true", help="print each tool's JSON Schema")
    tools.set_defaults(handler=COMMANDS["mcp tools"])

    _add_mcp_server_actions(sub)

    inspect = sub.add_parser(
        "inspect",
        help="show a server's version, protocol, capabilities, tools, resources and prompts",
        description="Start a server and show its version, protocol, capabilities, "
        "instructions, tools, resources and prompts. A local server that is not trusted asks "
        "before it starts.",
    )
    inspect.add_argument("name", metavar="NAME", help=_NAME_HELP)
    inspect.add_argument("--trace", action="store_true", help="print every JSON-RPC message")
    inspect.set_defaults(handler=COMMANDS["mcp inspect"])

    call = sub.add_parser(
        "call",
        help="call one tool by hand and print its result",
        description="Call one tool by hand and print its result. Without --args, on a "
        "terminal, asks for each argument; the arguments are checked against the tool's schema "
        "first.",
    )
    call.add_argument("name", metavar="NAME", help=_NAME_HELP)
    call.add_argument("tool", metavar="TOOL", help="a tool name as shown by agent mcp tools NAME")
    call.add_argument(
        "--args", dest="args_json", metavar="JSON", help="the arguments as a JSON object"
    )
    call.add_argument("--trace", action="store_true", help="print every JSON-RPC message")
    call.set_defaults(handler=COMMANDS["mcp call"])
    _add_mcp_send_command(sub)
    _add_mcp_web_command(sub)
    _add_mcp_catalog_commands(sub)
    _add_mcp_auth_commands(sub)


def _add_mcp_send_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    send = sub.add_parser(
        "send",
        help="send one hand-written JSON-RPC message to a server and print the answer",
        description="Send one hand-written JSON-RPC message to a server after the handshake. "
        "A request without an id gets one and its answer is printed; a notification "
        "(notifications/...) prints nothing. Example: agent mcp send git "
        '\'{"method": "tools/list"}\'',
    )
    send.add_argument("name", metavar="NAME", help=_NAME_HELP)
    send.add_argument("message", metavar="JSON", help="the JSON-RPC message")
    send.add_argument("--trace", action="store_true", help="print every JSON-RPC message")
    send.set_defaults(handler=COMMANDS["mcp send"])


def _add_mcp_web_command(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    console = sub.add_parser(
        "console",
        help="debug your servers in the browser: a page served from this computer only",
        description="Serve the MCP console page on this computer's loopback address and open it "
        "in the browser with a one-time link: servers from your configuration, their tools, "
        "resources and prompts, forms from their schemas, and every JSON-RPC message. Local "
        "servers must be trusted already (agent mcp trust NAME). Ctrl-C stops it and every "
        "server it started.",
    )
    console.add_argument(
        "--port", type=int, default=0, metavar="N", help="the port (default: one that is free)"
    )
    console.add_argument(
        "--host",
        default="127.0.0.1",
        metavar="ADDRESS",
        help="a loopback address to listen on (default: 127.0.0.1)",
    )
    console.add_argument(
        "--no-browser", action="store_true", help="only print the link; open no browser"
    )
    console.set_defaults(handler=COMMANDS["mcp console"])


def _add_mcp_auth_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    login = sub.add_parser(
        "login",
        help="log in to a remote server with OAuth (opens a browser)",
        description="Log in to a remote server with OAuth now. The browser opens ($BROWSER is "
        "honoured) and the URL is printed; pasting the URL the browser ended on also completes "
        "the login. Servers with grant client_credentials log in without a browser.",
    )
    login.add_argument("name", metavar="NAME", help=_NAME_HELP)
    login.add_argument(
        "--no-browser", action="store_true", help="only print the URL (paste the redirect back)"
    )
    login.set_defaults(handler=COMMANDS["mcp login"])
    logout = sub.add_parser(
        "logout",
        help="forget a server's OAuth tokens and registration (revoking them where offered)",
        description="Forget a server's OAuth tokens and client registration, revoking the "
        "tokens first where the authorization server offers it.",
    )
    logout.add_argument("name", metavar="NAME", help=_NAME_HELP)
    logout.set_defaults(handler=COMMANDS["mcp logout"])


def _add_mcp_catalog_commands(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    trust_note = "A local server that is not trusted asks before it starts."
    resources = sub.add_parser(
        "resources",
        help="list a server's resources and resource templates",
        description=f"List a server's resources (every page) and resource templates. {trust_note}",
    )
    read = sub.add_parser(
        "read",
        help="read one resource: print its text, or save it with --output",
        description="Read one resource. Text is printed (cut at the output limit); binary "
        "contents are described, or written to --output FILE, which must not exist yet "
        f"(unless --force). {trust_note}",
    )
    read.add_argument("name", metavar="NAME", help=_NAME_HELP)
    read.add_argument("uri", metavar="URI", help="a URI as shown by agent mcp resources NAME")
    read.add_argument("--output", metavar="FILE", help="write the contents to FILE as they are")
    read.add_argument("--force", action="store_true", help="let --output replace FILE")
    prompts = sub.add_parser(
        "prompts",
        help="list a server's prompts and their arguments",
        description=f"List a server's prompts and their arguments. {trust_note}",
    )
    prompt = sub.add_parser(
        "prompt",
        help="get one prompt and print its messages",
        description=f"Get one prompt with its arguments and print its messages. {trust_note}",
    )
    prompt.add_argument("name", metavar="NAME", help=_NAME_HELP)
    prompt.add_argument("prompt", metavar="PROMPT", help="a prompt as shown by agent mcp prompts")
    prompt.add_argument(
        "--args", dest="args_json", metavar="JSON", help='the arguments, e.g. {"city": "Paris"}'
    )
    for action, parser in (
        ("resources", resources),
        ("read", read),
        ("prompts", prompts),
        ("prompt", prompt),
    ):
        if action in ("resources", "prompts"):
            parser.add_argument("name", metavar="NAME", help=_NAME_HELP)
        parser.add_argument("--trace", action="store_true", help="print every JSON-RPC message")
        parser.set_defaults(handler=COMMANDS[f"mcp {action}"])


def _add_mcp_server_actions(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    # enable, disable, trust and restart: each takes one server name and nothing else.
    for action, text, detail in (
        (
            "enable",
            "offer the server's selected tools to the model (discovers them first)",
            "A local server that is not trusted asks before it starts.",
        ),
        (
            "disable",
            "stop offering the server's tools to the model",
            "Its tools, selection and trust are kept.",
        ),
        (
            "trust",
            "review a local server's exact command line and trust it",
            "On yes, the server starts and its tools are discovered. Changing the definition "
            "withdraws the trust.",
        ),
        (
            "restart",
            "start a server afresh and refresh its tools",
            "Use it after a server went offline or changed its tools.",
        ),
    ):
        parser = sub.add_parser(
            action, help=text, description=f"{text[0].upper()}{text[1:]}. {detail}"
        )
        parser.add_argument("name", metavar="NAME", help=_NAME_HELP)
        parser.set_defaults(handler=COMMANDS[f"mcp {action}"])


def _add_skills_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    skills = commands.add_parser(
        "skills",
        help="list, show and validate Agent Skills",
        description="Agent Skills (SKILL.md folders) from the app, ~/.agents/skills and the "
        "project's .agents/skills.",
    )
    sub = skills.add_subparsers(dest="skills_command", metavar="ACTION", required=True)
    sub.add_parser(
        "list",
        help="list every skill found: name, scope, status, path, problems",
        description="List the skills of every scope (bundled, user, project) with their status "
        "(ok, warnings, shadowed, skipped) and what is wrong with each.",
    ).set_defaults(handler=COMMANDS["skills list"])
    show = sub.add_parser(
        "show",
        help="show a skill's fields, location, problems and instructions",
        description="Show a skill's frontmatter fields, scope, path and problems, then the "
        "instructions the model reads when the skill is activated.",
    )
    show.add_argument("name", metavar="NAME", help="a skill name as shown by agent skills list")
    show.set_defaults(handler=COMMANDS["skills show"])
    validate = sub.add_parser(
        "validate",
        help="check SKILL.md files against the Agent Skills specification",
        description="Check SKILL.md files against the Agent Skills specification and print "
        "every problem. Exits non-zero when a file has an error (it would be skipped); "
        "warnings alone exit 0.",
    )
    validate.add_argument(
        "paths",
        nargs="+",
        metavar="PATH",
        help="a SKILL.md, a skill folder, or a folder of skill folders",
    )
    validate.set_defaults(handler=COMMANDS["skills validate"])
    sub.add_parser(
        "trust",
        help="decide whether this project's skills may be used",
        description="Show this project's skills (name, description, path, and what changed "
        "since you last decided) and ask whether the model may use them.",
    ).set_defaults(handler=COMMANDS["skills trust"])


_SESSION_ID_HELP = "a session id, or enough of its start to be unique (see agent sessions list)"


def _add_sessions_commands(commands: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    sessions = commands.add_parser(
        "sessions",
        help="list, show, export and delete saved chat sessions",
        description="Saved chat sessions: one file per chat in the data home, kept until you "
        "delete it.",
    )
    sub = sessions.add_subparsers(dest="sessions_command", metavar="ACTION", required=True)
    listing = sub.add_parser(
        "list",
        help="list this project's sessions, newest first",
        description="List the sessions of the current project (its git root, else this "
        "folder), newest first: id, last activity (local time), messages, model and title.",
    )
    listing.add_argument(
        "--all", dest="every_project", action="store_true", help="sessions of every project"
    )
    listing.set_defaults(handler=COMMANDS["sessions list"])
    show = sub.add_parser(
        "show",
        help="print a session as Markdown",
        description="Print a whole session as Markdown: messages, tool calls with their "
        "arguments and results, approvals, activated skills, compactions and usage.",
    )
    show.add_argument("session_id", metavar="ID", help=_SESSION_ID_HELP)
    show.set_defaults(handler=COMMANDS["sessions show"])
    export = sub.add_parser(
        "export",
        help="write a session as Markdown or JSON",
        description="Write a whole session as Markdown (readable) or JSON (every event as "
        "saved), to standard output or to a file only you can read.",
    )
    export.add_argument("session_id", metavar="ID", help=_SESSION_ID_HELP)
    export.add_argument(
        "--format", dest="fmt", choices=("md", "json"), default="md", help="default: md"
    )
    export.add_argument(
        "-o", "--output", metavar="FILE", help="write to FILE (mode 0600) instead of stdout"
    )
    export.set_defaults(handler=COMMANDS["sessions export"])
    delete = sub.add_parser(
        "delete",
        help="delete a saved session",
        description="Delete a saved session's file. Asks first on a terminal; without one, "
        "only with --yes.",
    )
    delete.add_argument("session_id", metavar="ID", help=_SESSION_ID_HELP)
    delete.add_argument("--yes", "-y", action="store_true", help="delete without asking")
    delete.set_defaults(handler=COMMANDS["sessions delete"])


NO_MODEL_HELP = """\
agent: no model is configured. Choose one of:
  agent --model openai/gpt-4.1-mini              (needs OPENAI_API_KEY)
  export AGENT_MODEL=anthropic/claude-sonnet-4-5  (needs ANTHROPIC_API_KEY)
  model: ollama_chat/llama3.1                     (in {settings}; a local Ollama)
Any litellm model string works: https://docs.litellm.ai/docs/providers"""


def _chat(args: argparse.Namespace) -> int:
    import os

    from agent.settings import inherited_api_base, peek_settings

    if args.output_format and args.prompt is None and sys.stdin.isatty():
        print(
            "agent: --output-format is for one-shot mode: add -p PROMPT or pipe text to stdin",
            file=sys.stderr,
        )
        return 2
    # Only `model` and `api_base` are read before the prompt; the whole file is validated
    # right after it is drawn (pydantic's set-up alone would cost over 100 ms here).
    early = peek_settings()
    model_name = args.model or os.environ.get("AGENT_MODEL") or early.model
    # An explicit --api-base is the person's choice; a saved one serves its provider only.
    api_base = args.api_base or (inherited_api_base(early, model_name) if model_name else None)
    if not model_name:
        interactive = args.prompt is None and sys.stdin.isatty() and sys.stdout.isatty()
        chosen = _first_run(interactive)
        if chosen is None:
            return 2
        model_name, api_base = chosen
    if args.prompt is not None or not sys.stdin.isatty():
        # One-shot: litellm's import (about 1.5 s) is most of the run; begin it now, before
        # the rest of our start-up, which then overlaps it.
        from agent.model import LOADER

        LOADER.start()
    from agent.ui.launch import run_chat

    resume = "latest" if args.continue_latest else args.resume
    return run_chat(
        model_name,
        api_base,
        resume,
        prompt=args.prompt,
        output_format=args.output_format or "text",
    )


def _first_run(interactive: bool) -> tuple[str, str | None] | None:
    """No model configured: look for local servers and provider keys; on a terminal, let the
    person choose and save the choice, else say what was found. None: exit with status 2."""
    from agent.chat.model_choices import finish_search, found_lines, start_search
    from agent.settings import load_settings, peek_model_discovery, user_settings_path

    discovery = peek_model_discovery()
    probe = start_search(discovery)  # asks the local ports while the settings are checked
    load_settings()  # a broken settings file is the better explanation, if there is one
    found = finish_search(probe)
    if not interactive:
        help_text = NO_MODEL_HELP.format(settings=user_settings_path())
        print("\n".join([help_text, *found_lines(found, discovery)]), file=sys.stderr)
        return None
    from agent.settings import save_model_choice
    from agent.text import sanitize_line
    from agent.ui.dialogs.model_chooser import choose_first_model

    choice = choose_first_model(found)
    if choice is None:
        print("agent: no model chosen", file=sys.stderr)
        return None
    path = save_model_choice(choice.model, choice.api_base)
    where = f" at {choice.api_base}" if choice.api_base else ""
    print(f"Saved model: {sanitize_line(choice.model)}{where} in {path}")
    return choice.model, choice.api_base


class Ended(BaseException):
    """The agent was asked to end (SIGTERM, SIGHUP): unwind like Ctrl-C, cleanups included."""

    def __init__(self, signum: int) -> None:
        super().__init__(signum)
        self.signum = signum


def _end_by_signal(signum: int, _frame: object) -> None:
    # Command tool programs run in sessions of their own, so the signal that ends us never
    # reaches them: kill their groups first (nothing below may run, or run in time), then
    # unwind so every `finally` (sessions, servers) still runs.
    groups = sys.modules.get("agent.mcp.programs.process_groups")
    if groups is not None:
        groups.kill_all()
    raise Ended(signum)


def _install_signal_handlers() -> None:
    import signal

    for signum in (signal.SIGTERM, signal.SIGHUP):
        try:
            signal.signal(signum, _end_by_signal)
        except ValueError:  # not the main thread (main called from a test's thread)
            return


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; return the exit status."""
    _install_signal_handlers()
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler = args.handler
    from agent.errors import AgentError
    from agent.text import error_lines

    try:
        return handler(args)
    except AgentError as error:
        for line in error_lines(str(error)) or ["unknown error"]:
            print(f"agent: {line}", file=sys.stderr)
        return 1
    except KeyboardInterrupt:
        print("agent: interrupted", file=sys.stderr)
        return 130
    except Ended as ended:
        import signal

        print(f"agent: ended by {signal.Signals(ended.signum).name}", file=sys.stderr)
        return 128 + ended.signum
    except BrokenPipeError:
        # The reader went away (`agent mcp list | head`): stop quietly, as other tools do.
        import os

        os.dup2(os.open(os.devnull, os.O_WRONLY), sys.stdout.fileno())
        return 141
