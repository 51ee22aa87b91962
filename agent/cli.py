"""argv -> a lazy command table -> chat, one-shot or a subcommand.

Start-up must stay cheap: `agent --help` and `--version` import nothing heavy, and no
`agent mcp ...` command imports litellm. The table names each subcommand's function by module
and name; its module is imported only when that command runs. (Its rows are NamedTuples, not
dataclasses: `dataclasses` would add `inspect` and `ast` to every start-up.)
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from importlib import import_module
from typing import Any, NamedTuple

from agent import __version__

Handler = Callable[[argparse.Namespace], int]


class Call(NamedTuple):
    """A subcommand's handler: `function` in `module`, called with the values `positional` and
    `keywords` name.

    A name is "store" (the MCP configuration), "project" (the project folder) or the parsed
    argument of that `dest`; keywords pass the argument under its own name.
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


class Arg(NamedTuple):
    """One argument: its flags ("--yes -y"), or the positional's dest ("name"), and help.

    The other fields are `add_argument`'s keywords of the same name; None leaves one unsaid.
    """

    flags: str
    help: str
    metavar: str | None = None
    dest: str | None = None
    action: str | None = None
    nargs: str | None = None
    const: str | None = None
    default: object = None
    type: Callable[[str], object] | None = None
    choices: tuple[str, ...] | None = None
    version: str | None = None


class Exclusive(NamedTuple):
    """Arguments of which at most one may be given."""

    args: tuple[Arg, ...]


class Command(NamedTuple):
    """A subcommand: its name, its handler, its line in the group's list, its own description
    and its arguments, in the order `--help` shows them."""

    name: str
    call: Call
    help: str
    description: str
    args: tuple[Arg | Exclusive, ...] = ()


class Group(NamedTuple):
    """A command of subcommands (`agent mcp ...`): one of them is required."""

    name: str
    help: str
    description: str
    commands: tuple[Command, ...]


def _switch(flags: str, help: str, dest: str | None = None) -> Arg:
    """A flag that is True when given."""
    return Arg(flags, help, dest=dest, action="store_true")


_MCP_CONFIG, _MCP_CONSOLE = "agent.commands.mcp_config", "agent.commands.mcp_console"
_MCP_CATALOG, _MCP_AUTH = "agent.commands.mcp_catalog", "agent.commands.mcp_auth"
_SKILLS, _SESSIONS = "agent.commands.skills", "agent.commands.sessions"
_MCP_ENABLE = "agent.commands.mcp_enable"

_TRUSTED_FIRST = "A local server that is not trusted asks before it starts."
_NAME = Arg("name", "a server name as shown by agent mcp list", metavar="NAME")
_NAMES = Arg("names", _NAME.help, metavar="NAME", nargs="*")
_ALL = _switch("--all", "every configured server", "every")
_TRACE = _switch("--trace", "print every JSON-RPC message")
_ID_HELP = "a session id, or enough of its start to be unique (see agent sessions list)"
_ID = Arg("session_id", _ID_HELP, metavar="ID")

# fmt: off
# The bare `agent`: chat, or one turn with -p.
OPTIONS: tuple[Arg | Exclusive, ...] = (
    Arg("--version", "show program's version number and exit", action="version",
        version=f"agent {__version__}"),
    Arg("--model", "litellm model string, e.g. openai/gpt-4.1-mini (else AGENT_MODEL, else "
        "settings)", metavar="MODEL"),
    Arg("--api-base", "the model API's base URL (else api_base in settings)", metavar="URL"),
    Exclusive((
        _switch("--continue", "continue the latest chat of this project (with -p: the latest "
                "session)", "continue_latest"),
        Arg("--resume", "continue a session by id or id prefix (no ID: choose from a list)",
            metavar="ID", nargs="?", const="pick"),
    )),
    Arg("-p --print", "one-shot: run one turn and print the answer; text piped to stdin is added "
        "after the prompt (a blank line between)", metavar="PROMPT", dest="prompt", nargs="?",
        const=""),
    Arg("--output-format", "one-shot output: text (the answer only; default), json (one object at "
        "the end) or stream-json (one object per line as things happen)",
        choices=("text", "json", "stream-json")),
    Exclusive((
        Arg("--mcp", "only these MCP servers for this run (configured names, comma-separated; "
            "the others stay off)", metavar="NAME,..."),
        _switch("--no-mcp", "no MCP server for this run"),
    )),
    _switch("--verbose", "one-shot: also say on stderr what happens on the side (MCP servers "
            "ready; always in their logs)"),
)

# Every subcommand: Command(name, handler, its line in the list, its description, arguments).
TABLE: tuple[Group, ...] = (
  Group("mcp", "configure MCP servers", "Configure MCP servers.", (
    Command("import", Call(_MCP_CONFIG, "import_document", ("store", "file", "merge", "replace",
                                                       "yes")),
        "add or replace the servers an mcpServers or servers JSON document names",
        "Add the servers a Claude Desktop, Cursor or VS Code document (JSON or JSONC) names, "
        "replacing those of the same name; the others stay. With --replace, the others are "
        "removed too (asked first on a terminal). Nothing is saved if any server has a problem; "
        "the previous configuration is kept for agent mcp restore.",
        (Arg("file", "the document, or - for standard input", metavar="FILE"),
         Exclusive((
             _switch("--merge", "accepted for compatibility and changes nothing: adding and "
                     "replacing only the named servers is what import does"),
             _switch("--replace", "also remove the servers the document does not name (asks "
                     "first, listing them)"),
         )),
         _switch("--yes -y", "with --replace: remove them without asking (needed without a "
                 "terminal)"))),
    Command("add", Call("agent.commands.mcp_add", "add_command", ("store", "name", "target"),
                        ("env", "header", "replace")),
        "add one server: NAME -- COMMAND [ARGS...] (local) or NAME URL (remote)",
        "Add one server: agent mcp add NAME -- COMMAND [ARGS...] runs a program on this "
        "computer (it starts only once you trust it); agent mcp add NAME URL connects to a "
        "remote server over streamable HTTP. Values of --env and --header are saved, never "
        "printed; write ${VAR} to take one from your environment when the server starts. A "
        "name already configured is refused unless --replace. New servers are disabled: enable "
        "them with agent mcp enable NAME.",
        (Arg("name", "the server's name", metavar="NAME"),
         Arg("target", "a URL, or -- then the command and its arguments",
             metavar="URL | -- COMMAND", nargs="+"),
         Arg("-e --env", "a variable of a local server (repeatable)", metavar="KEY=VALUE",
             action="append"),
         Arg("-H --header", "an HTTP header of a remote server (repeatable)",
             metavar="'NAME: VALUE'", action="append"),
         _switch("--replace", "replace the server of that name (its trust and tools start "
                 "over)"))),
    Command("export", Call(_MCP_CONFIG, "export_document", ("store",)),
        "print the configuration as a canonical mcpServers document",
        "Print the configuration as a canonical mcpServers document (JSON), ready to import "
        "elsewhere or keep under version control."),
    Command("edit", Call(_MCP_CONFIG, "edit_document", ("store",)),
        "edit the configuration in $VISUAL or $EDITOR",
        "Edit the configuration as an mcpServers document in $VISUAL or $EDITOR. It is saved "
        "only when valid; on errors you may edit again, and quitting saves nothing."),
    Command("list", Call(_MCP_CONFIG, "list_servers", ("store",)),
        "list configured servers (never env or header values)",
        "List configured servers: name, transport, enabled, trusted, tools and the command line "
        "or URL. Env and header values are never printed, only their names."),
    Command("remove", Call(_MCP_CONFIG, "remove_servers", ("store", "names")),
        "delete servers from the configuration",
        "Delete servers and their saved state from the configuration. If any name is unknown, "
        "nothing is removed. The previous configuration is kept for agent mcp restore.",
        (Arg("names", _NAME.help, metavar="NAME", nargs="+"),)),
    Command("restore", Call(_MCP_CONFIG, "restore_backup", ("store",)),
        "put back the configuration as it was before its last change",
        "Put back the configuration as it was before its last change (import, add, remove, "
        "edit, restore), saying which servers come back and which go. The configuration it "
        "replaces becomes the backup, so running it again undoes it."),
    Command("tools", Call(_MCP_CONSOLE, "tools_command", ("store", "name"),
                          ("refresh", "enable", "disable", "schema")),
        "list a server's tools; select them; show their schemas",
        f"List a server's tools (discovering them first if needed). {_TRUSTED_FIRST}",
        (_NAME,
         _switch("--refresh", "ask the server for its tools again"),
         Arg("--enable", "select tools (or all)", metavar="TOOL", nargs="+", default=()),
         Arg("--disable", "deselect tools (or all)", metavar="TOOL", nargs="+", default=()),
         _switch("--schema", "print each tool's JSON Schema"))),
    Command("enable", Call(_MCP_ENABLE, "enable_command", ("store", "names", "every")),
        "offer servers' selected tools to the model (trusting local ones: one question)",
        "Offer the servers' selected tools to the model, discovering their tools first. Local "
        "servers not trusted here are listed in one question, each with exactly what it runs; "
        "a yes trusts and starts them. Trust is asked only on a terminal, never read from a "
        "pipe. If any name is unknown, nothing changes.",
        (_NAMES, _ALL)),
    Command("disable", Call(_MCP_ENABLE, "disable_command", ("store", "names", "every")),
        "stop offering servers' tools to the model",
        "Stop offering the servers' tools to the model. Their tools, selection and trust are "
        "kept. If any name is unknown, nothing changes.",
        (_NAMES, _ALL)),
    Command("trust", Call(_MCP_CONSOLE, "trust_command", ("store", "name")),
        "review a local server's exact command line and trust it",
        "Review a local server's exact command line and trust it. On yes, the server starts and "
        "its tools are discovered. Changing the definition withdraws the trust.",
        (_NAME,)),
    Command("restart", Call(_MCP_CONSOLE, "restart_command", ("store", "name")),
        "start a server afresh and refresh its tools",
        "Start a server afresh and refresh its tools. Use it after a server went offline or "
        "changed its tools.",
        (_NAME,)),
    Command("inspect", Call(_MCP_CONSOLE, "inspect_command", ("store", "name", "trace")),
        "show a server's version, protocol, capabilities, tools, resources and prompts",
        "Start a server and show its version, protocol, capabilities, instructions, tools, "
        f"resources and prompts. {_TRUSTED_FIRST}",
        (_NAME, _TRACE)),
    Command("call", Call(_MCP_CONSOLE, "call_command", ("store", "name", "tool", "args_json",
                                                        "trace")),
        "call one tool by hand and print its result",
        "Call one tool by hand and print its result. Without --args, on a terminal, asks for "
        "each argument; the arguments are checked against the tool's schema first.",
        (_NAME,
         Arg("tool", "a tool name as shown by agent mcp tools NAME", metavar="TOOL"),
         Arg("--args", "the arguments as a JSON object", metavar="JSON", dest="args_json"),
         _TRACE)),
    Command("send", Call("agent.commands.mcp_send", "send_command", ("store", "name", "message",
                                                                     "trace")),
        "send one hand-written JSON-RPC message to a server and print the answer",
        "Send one hand-written JSON-RPC message to a server after the handshake. A request "
        "without an id gets one and its answer is printed; a notification (notifications/...) "
        "prints nothing. Example: agent mcp send git '{\"method\": \"tools/list\"}'",
        (_NAME, Arg("message", "the JSON-RPC message", metavar="JSON"), _TRACE)),
    Command("console", Call("agent.web.console_command", "console_command",
                            ("store", "host", "port", "no_browser")),
        "debug your servers in the browser: a page served from this computer only",
        "Serve the MCP console page on this computer's loopback address and open it in the "
        "browser with a one-time link: servers from your configuration, their tools, resources "
        "and prompts, forms from their schemas, and every JSON-RPC message. Local servers must "
        "be trusted already (agent mcp trust NAME). Ctrl-C stops it and every server it started.",
        (Arg("--port", "the port (default: one that is free)", metavar="N", default=0, type=int),
         Arg("--host", "a loopback address to listen on (default: 127.0.0.1)",
             metavar="ADDRESS", default="127.0.0.1"),
         _switch("--no-browser", "only print the link; open no browser"))),
    Command("resources", Call(_MCP_CATALOG, "resources_command", ("store", "name", "trace")),
        "list a server's resources and resource templates",
        f"List a server's resources (every page) and resource templates. {_TRUSTED_FIRST}",
        (_NAME, _TRACE)),
    Command("read", Call(_MCP_CATALOG, "read_command", ("store", "name", "uri", "output",
                                                       "force", "trace")),
        "read one resource: print its text, or save it with --output",
        "Read one resource. Text is printed (cut at the output limit); binary contents are "
        "described, or written to --output FILE, which must not exist yet (unless --force). "
        f"{_TRUSTED_FIRST}",
        (_NAME,
         Arg("uri", "a URI as shown by agent mcp resources NAME", metavar="URI"),
         Arg("--output", "write the contents to FILE as they are", metavar="FILE"),
         _switch("--force", "let --output replace FILE"),
         _TRACE)),
    Command("prompts", Call(_MCP_CATALOG, "prompts_command", ("store", "name", "trace")),
        "list a server's prompts and their arguments",
        f"List a server's prompts and their arguments. {_TRUSTED_FIRST}",
        (_NAME, _TRACE)),
    Command("prompt", Call(_MCP_CATALOG, "prompt_command", ("store", "name", "prompt",
                                                           "args_json", "trace")),
        "get one prompt and print its messages",
        f"Get one prompt with its arguments and print its messages. {_TRUSTED_FIRST}",
        (_NAME,
         Arg("prompt", "a prompt as shown by agent mcp prompts", metavar="PROMPT"),
         Arg("--args", 'the arguments, e.g. {"city": "Paris"}', metavar="JSON", dest="args_json"),
         _TRACE)),
    Command("skills", Call("agent.commands.mcp_skills", "skills_command", ("store", "name",
                                                                          "skill", "trust",
                                                                          "trace")),
        "list the skills a server serves, show one (verified), or decide to use them",
        "List the Agent Skills a server serves (SEP-2640): names, digests and files, read from "
        "its listing only. With SKILL, read that skill's SKILL.md, verify it against the listing "
        "(size, digest, frontmatter) and print it; a mismatch refuses it (exit 1). With --trust, "
        "decide whether chats may use this server's skills (asked again when they change). "
        f"{_TRUSTED_FIRST}",
        (_NAME,
         Arg("skill", "a skill as listed (NAME or SERVER:NAME)", metavar="SKILL", nargs="?"),
         _switch("--trust", "decide whether chats may use this server's skills"),
         _TRACE)),
    Command("login", Call(_MCP_AUTH, "login_command", ("store", "name", "no_browser")),
        "log in to a remote server with OAuth (opens a browser)",
        "Log in to a remote server with OAuth now. The browser opens ($BROWSER is honoured) and "
        "the URL is printed; pasting the URL the browser ended on also completes the login. "
        "Servers with grant client_credentials log in without a browser.",
        (_NAME, _switch("--no-browser", "only print the URL (paste the redirect back)"))),
    Command("logout", Call(_MCP_AUTH, "logout_command", ("store", "name")),
        "forget a server's OAuth tokens and registration (revoking them where offered)",
        "Forget a server's OAuth tokens and client registration, revoking the tokens first where "
        "the authorization server offers it.",
        (_NAME,)),
  )),
  Group("skills", "list, show and validate Agent Skills",
        "Agent Skills (SKILL.md folders) from the app, ~/.agents/skills and the project's "
        ".agents/skills.", (
    Command("list", Call(_SKILLS, "list_skills", ("project",)),
        "list every skill found: name, scope, status, path, problems",
        "List the skills of every scope (bundled, user, project) with their status (ok, "
        "warnings, shadowed, skipped) and what is wrong with each; then the subagent "
        "definitions found (.agents/agents and .claude/agents, yours and the project's), "
        "in use or off and why."),
    Command("show", Call(_SKILLS, "show_skill", ("project", "name")),
        "show a skill's fields, location, problems and instructions",
        "Show a skill's frontmatter fields, scope, path and problems, then the instructions the "
        "model reads when the skill is activated.",
        (Arg("name", "a skill name as shown by agent skills list", metavar="NAME"),)),
    Command("validate", Call(_SKILLS, "validate_paths", ("paths",)),
        "check SKILL.md files against the Agent Skills specification",
        "Check SKILL.md files against the Agent Skills specification and print every problem. "
        "Exits non-zero when a file has an error (it would be skipped); warnings alone exit 0.",
        (Arg("paths", "a SKILL.md, a skill folder, or a folder of skill folders",
             metavar="PATH", nargs="+"),)),
    Command("trust", Call("agent.commands.skills_trust", "trust_command", ("project",)),
        "decide whether this project's skills may be used",
        "Show this project's skills, instruction files and subagent definitions (name, "
        "description, path, and what changed since you last decided) and ask whether the "
        "model may use them."),
  )),
  Group("sessions", "list, show, export and delete saved chat sessions",
        "Saved chat sessions: one file per chat in the data home, kept until you delete it.", (
    Command("list", Call(_SESSIONS, "list_command", ("project", "every_project")),
        "list this project's sessions: chats, then one-shot runs, newest first",
        "List the sessions of the current project (its git root, else this folder): the chats "
        "newest first, then the one-shot runs of agent -p (their titles marked [-p]): id, last "
        "activity (local time), messages, model and title, cut at the terminal's width.",
        (_switch("--all", "sessions of every project", "every_project"),)),
    Command("show", Call(_SESSIONS, "show_command", ("session_id",)),
        "print a session as Markdown",
        "Print a whole session as Markdown: messages, tool calls with their arguments and "
        "results, approvals, activated skills, compactions and usage.",
        (_ID,)),
    Command("export", Call(_SESSIONS, "export_command", ("session_id", "fmt", "output")),
        "write a session as Markdown or JSON",
        "Write a whole session as Markdown (readable) or JSON (every event as saved), to "
        "standard output or to a file only you can read.",
        (_ID,
         Arg("--format", "default: md", dest="fmt", default="md", choices=("md", "json")),
         Arg("-o --output", "write to FILE (mode 0600) instead of stdout", metavar="FILE"))),
    Command("delete", Call(_SESSIONS, "delete_command", ("session_id", "yes")),
        "delete a saved session",
        "Delete a saved session's file. Asks first on a terminal; without one, only with --yes.",
        (_ID, _switch("--yes -y", "delete without asking"))),
  )),
)
# fmt: on

# "mcp import" -> its handler, for every subcommand.
COMMANDS: dict[str, Call] = {
    f"{group.name} {command.name}": command.call for group in TABLE for command in group.commands
}


def build_parser() -> argparse.ArgumentParser:
    """The whole command line, built from OPTIONS and TABLE."""
    parser = argparse.ArgumentParser(
        prog="agent",
        description="An MCP-native terminal chat agent: every MCP tool call asks you first.",
        epilog=ONE_SHOT_EPILOG,
        formatter_class=argparse.RawDescriptionHelpFormatter,
    )
    _add_arguments(parser, OPTIONS)
    parser.set_defaults(handler=_chat)
    groups = parser.add_subparsers(dest="command", metavar="COMMAND")
    for group in TABLE:
        group_parser = groups.add_parser(group.name, help=group.help, description=group.description)
        commands = group_parser.add_subparsers(
            dest=f"{group.name}_command", metavar="ACTION", required=True
        )
        for command in group.commands:
            command_parser = commands.add_parser(
                command.name, help=command.help, description=command.description
            )
            _add_arguments(command_parser, command.args)
            command_parser.set_defaults(handler=command.call)
    return parser


def _add_arguments(parser: argparse._ActionsContainer, args: Sequence[Arg | Exclusive]) -> None:
    for arg in args:
        if isinstance(arg, Exclusive):
            _add_arguments(parser.add_mutually_exclusive_group(), arg.args)
            continue
        # Only what the row says: argparse's own defaults differ by action (store_true: False).
        keywords = {key: value for key, value in arg._asdict().items() if value is not None}
        del keywords["flags"]
        parser.add_argument(*arg.flags.split(), **keywords)


ONE_SHOT_EPILOG = """\
one-shot mode (-p PROMPT, or text piped to stdin): one turn, then exit.
  MCP tool calls are asked about on the controlling terminal (/dev/tty), even when stdin
  and stdout are pipes; with no terminal at all they are denied and the output says so.
  The request does not wait for MCP servers: they start beside it, and a server whose tools
  are deferred (behind search_tools) starts only when one of them is called.

exit codes:
  0    the model answered
  1    the turn failed: a model error (or settings, session or set-up error)
  2    usage error (bad flags, nothing to send, no model configured)
  3    the model answered, but at least one tool call was denied
  130  interrupted (Ctrl-C)"""


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
    elif problem := _model_problem(model_name, api_base):
        print(f"agent: {problem}", file=sys.stderr)
        return 2
    if args.prompt is not None or not sys.stdin.isatty():
        # One-shot: litellm's import (about 2 s) is most of the run; begin it now, before
        # the rest of our start-up, which then overlaps it (unless the model does not need it).
        from agent.model import load_for

        load_for(model_name, api_base)
    from agent.ui.launch import run_chat

    servers = _run_servers(args)
    if isinstance(servers, str):
        print(f"agent: {servers}", file=sys.stderr)
        return 2
    resume = "latest" if args.continue_latest else args.resume
    return run_chat(
        model_name,
        api_base,
        resume,
        prompt=args.prompt,
        output_format=args.output_format or "text",
        servers=servers,
        verbose=args.verbose,
    )


def _run_servers(args: argparse.Namespace) -> frozenset[str] | str | None:
    """The MCP servers of this run: --no-mcp none, --mcp the ones named (a problem naming the
    unknown ones: str), else None (every enabled one)."""
    if args.no_mcp:
        return frozenset()
    if args.mcp is None:
        return None
    from agent.home import mcp_store_path
    from agent.mcp.run_servers import UnknownServersError, chosen_servers

    names = [name.strip() for name in args.mcp.split(",") if name.strip()]
    try:
        return chosen_servers(names, mcp_store_path())
    except UnknownServersError as error:
        return str(error)


def _model_problem(model_name: str, api_base: str | None) -> str | None:
    """Why litellm could not route `model_name`, said before anything starts (as /model
    says it) rather than as litellm's words after the first message."""
    from agent.model import start_problem

    return start_problem(model_name, api_base)


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
    # A signal handler cannot wait for an import (this very thread may hold its lock), so
    # the module is looked up, not imported; one still importing (it has no kill_all yet)
    # has registered no group, since registering comes only after its import.
    groups = sys.modules.get("agent.processes.groups")
    kill_all = getattr(groups, "kill_all", None)
    if kill_all is not None:
        kill_all()
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
