"""A definition with its references expanded: exactly what starts or connects, at start time."""

from __future__ import annotations

import contextlib
import os
import shlex
import shutil
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from pathlib import Path
from urllib.parse import parse_qsl, urlsplit

from agent.errors import ExpansionError, ServerStartError
from agent.mcp.config.command_definitions import CommandsDefinition, CommandTool
from agent.mcp.config.command_template import placeholders
from agent.mcp.config.definitions import (
    HttpDefinition,
    HttpTransport,
    ServerDefinition,
    StdioDefinition,
)
from agent.mcp.config.document import url_problems
from agent.mcp.config.interpreter_scripts import (
    Script,
    find_script,
    interpreter_family,
    node_preloads,
)
from agent.mcp.config.launch_secrets import env_secrets
from agent.mcp.config.oauth import OAuthConfig, missing_issuer
from agent.mcp.config.program_files import (
    SCRIPT_MARK,
    file_problem,
    interpreter_script,
    program_digest,
    tool_content,
)
from agent.mcp.config.variables import Expander, references_environment
from agent.redaction import secret_values

# What a stdio child inherits from us (the mcp SDK's list on POSIX); the rest comes from the
# definition's env. Trust covers both, so both are decided once, when the launch is expanded.
INHERITED_ENV_NAMES = ("HOME", "LOGNAME", "PATH", "SHELL", "TERM", "USER")
# How a script path is said when it holds a value taken from the environment.
SCRIPT_FROM_ENVIRONMENT = "(named by a value from the environment)"


@dataclass(frozen=True)
class StdioLaunch:
    """A process to spawn directly (argument list, never a shell), decided once at expansion.

    Trust is judged on this object and the process is spawned from this same object, so what
    the person trusted and what runs cannot drift apart between the question and the start.
    """

    server: str
    command: str  # as written in the definition
    args: tuple[str, ...]
    cwd: str
    env: dict[str, str]  # the definition's env, expanded
    inherited_env: dict[str, str] = field(default_factory=dict)
    resolved: str | None = None  # the executable PATH resolved the command to at expansion
    # The script the interpreter runs (program_files.interpreter_script), and the content of
    # the program and script when the launch was expanded (program_files.tool_content): what
    # trust judged, and what the files are checked against again just before the spawn.
    script: str | None = None
    content: str | None = None
    # The script's path holds a value taken from the environment (`${env:X}/server.py`), so,
    # like such an argument, it is never shown nor stored as text (SCRIPT_FROM_ENVIRONMENT).
    script_from_environment: bool = False
    # Files of the project run before the script (interpreter_scripts.Script.preloads).
    preloads: tuple[str, ...] = ()

    def secrets(self) -> list[str]:
        """Values that must never appear in output: the env values that are secrets."""
        return env_secrets(self.env, self.inherited_env)

    def changed_file(self) -> tuple[str, str] | None:
        """("program" or "script", its path) when that file is no longer the one trust judged
        (rewritten, replaced by a rename, a link pointed elsewhere), else None. A stat per
        file; a file is hashed again only when its stat differs."""
        current = tool_content(self.resolved, self.script, self.preloads)
        if self.resolved is None or current == self.content:
            return None
        trusted_program = (self.content or "").split(SCRIPT_MARK)[0]
        if self.script is None or program_digest(self.resolved) != (trusted_program or None):
            return ("program", self.resolved)
        return ("script", self.script)

    def resolved_command(self) -> str | None:
        """The executable the command resolved to when the launch was expanded."""
        return self.resolved

    def executable(self) -> str:
        """What we spawn: the resolved path, so trust and run agree. A bare name is never
        spawned (the system would look it up by rules of its own): it fails closed."""
        if self.resolved is None:
            raise ServerStartError(
                f"MCP server {self.server!r} could not start: command {self.command!r} not found"
            )
        return self.resolved

    def child_environment(self) -> dict[str, str]:
        """The whole environment the child gets: what it inherits, then the definition's env."""
        return {**self.inherited_env, **self.env}


def resolve_command(command: str, cwd: str, env: Mapping[str, str]) -> str | None:
    """The executable `command` names for a child with this PATH and working directory.

    The child's PATH is the one we pass it, and the system resolves a relative PATH entry (or
    an empty one, meaning ".") and a relative path with a slash against the child's working
    directory, not ours: so do we, or the question would name another program than runs.
    """
    if "/" in command:
        candidate = command if os.path.isabs(command) else os.path.join(cwd, command)
        found = shutil.which(candidate, path="")
        return os.path.abspath(found) if found else None
    entries = env.get("PATH", os.defpath).split(os.pathsep)
    search_path = os.pathsep.join(os.path.join(cwd, entry) if entry else cwd for entry in entries)
    found = shutil.which(command, path=search_path)
    return os.path.abspath(found) if found else None


def inherited_environment(environ: Mapping[str, str]) -> dict[str, str]:
    """The variables a stdio child inherits from `environ` (shell functions left out)."""
    return {
        name: environ[name]
        for name in INHERITED_ENV_NAMES
        if name in environ and not environ[name].startswith("()")
    }


@dataclass(frozen=True)
class HttpLaunch:
    """A remote endpoint and the headers that only its transport may see."""

    server: str
    url: str
    transport: HttpTransport
    headers: dict[str, str]
    oauth: OAuthConfig | None = None
    client_secret: str | None = None  # oauth.clientSecret, expanded
    private_key_file: str | None = None  # oauth.privateKeyFile, expanded

    def uses_oauth(self) -> bool:
        """Every remote server without a configured Authorization header may log in."""
        return not any(key.lower() == "authorization" for key in self.headers)

    def secrets(self) -> list[str]:
        """Header values, URL query values and a URL password: servers take keys in each."""
        values = list(self.headers.values())
        values.extend(value for value in (self.client_secret,) if value)
        url = urlsplit(self.url)
        values.extend(value for _, value in parse_qsl(url.query))
        values.extend(part for part in (url.password,) if part)
        return secret_values(values)  # with the parts: "Bearer abc" -> "abc", cookies


@dataclass(frozen=True)
class CommandsLaunch:
    """A commands server as it would run here: each tool's program resolved as a stdio
    command is (same PATH, same working directory), decided once, judged by trust, run."""

    server: str
    tools: tuple[CommandTool, ...]
    resolved: tuple[str | None, ...]  # per tool, what its program resolved to; None: not found
    cwd: str
    env: dict[str, str]  # the definition's env, expanded
    inherited_env: dict[str, str] = field(default_factory=dict)
    # Per tool, the script its interpreter runs (program_files.interpreter_script), and the
    # content of its files when the launch was expanded (program_files.tool_content): what
    # trust judged, and what each call checks the files against before it runs.
    scripts: tuple[str | None, ...] = ()
    contents: tuple[str | None, ...] = ()

    def secrets(self) -> list[str]:
        """Values that must never appear in output: the env values that are secrets."""
        return env_secrets(self.env, self.inherited_env)

    def changed_file(self, tool: str) -> tuple[str, str] | None:
        """("program" or "script", its path) when that file of `tool` is no longer the one
        trust judged (rewritten, replaced by a rename, a link pointed elsewhere), else None.

        A stat per file and call; a file is hashed again only when its stat differs."""
        for index, known in enumerate(self.tools):
            found, script = self.resolved[index], self.scripts[index]
            if known.name != tool or found is None:
                continue
            if tool_content(found, script) == self.contents[index]:
                return None
            trusted_program = (self.contents[index] or "").split(SCRIPT_MARK)[0]
            if script is None or program_digest(found) != (trusted_program or None):
                return ("program", found)
            return ("script", script)
        return None

    def missing_program(self) -> str | None:
        """`tool: program` of the first tool whose program was found nowhere, else None."""
        for tool, found in zip(self.tools, self.resolved, strict=True):
            if found is None:
                return f"{tool.name}: {tool.program}"
        return None

    def executable(self, tool: str) -> str:
        """What a call of `tool` spawns: the path trusted, never a name looked up again."""
        for known, found in zip(self.tools, self.resolved, strict=True):
            if known.name == tool and found is not None:
                return found
        raise ServerStartError(f"MCP server {self.server!r}: tool {tool!r} has no program")

    def child_environment(self) -> dict[str, str]:
        """The whole environment each program gets: what it inherits, then the env."""
        return {**self.inherited_env, **self.env}


Launch = StdioLaunch | HttpLaunch | CommandsLaunch


def expand_definition(definition: ServerDefinition, expander: Expander) -> Launch:
    """Expand every reference; a missing variable names itself and the field, never a value."""
    where = f"MCP server {definition.name!r}"
    if isinstance(definition, CommandsDefinition):
        return _expand_commands(definition, expander, where)
    if isinstance(definition, StdioDefinition):
        return _expand_stdio(definition, expander, where)
    return _expand_http(definition, expander, where)


def _expand_stdio(definition: StdioDefinition, expander: Expander, where: str) -> StdioLaunch:
    cwd = _expand_cwd(definition.cwd, expander, where)
    env = {
        key: expander.expand(value, f"{where} env.{key}") for key, value in definition.env.items()
    }
    inherited = inherited_environment(expander.environ)
    args = tuple(
        expander.expand(arg, f"{where} args[{index}]") for index, arg in enumerate(definition.args)
    )
    resolved = resolve_command(definition.command, cwd, {**inherited, **env})
    from_environment = [
        value
        for written, value in zip(
            (definition.cwd or "", *definition.args), (cwd, *args), strict=True
        )
        if value and references_environment(written)
    ]
    script, hidden, preloads = _server_script(
        definition.name, resolved, args, cwd, from_environment
    )
    node_options = {**inherited, **env}.get("NODE_OPTIONS")
    if script is not None and node_options and interpreter_family(resolved or "") == "node":
        # NODE_OPTIONS=--require ./pre.js runs a project file before the script too.
        with contextlib.suppress(ValueError):  # unbalanced quotes: node refuses to start
            preloads += node_preloads(shlex.split(node_options), cwd)
    return StdioLaunch(
        server=definition.name,
        command=definition.command,
        args=args,
        cwd=cwd,
        env=env,
        inherited_env=inherited,
        resolved=resolved,
        script=script,
        content=tool_content(resolved, script, preloads) if script else program_digest(resolved),
        script_from_environment=hidden,
        preloads=preloads,
    )


def _server_script(
    name: str, resolved: str | None, args: tuple[str, ...], cwd: str, secrets: list[str]
) -> tuple[str | None, bool, tuple[str, ...]]:
    """The script a stdio server's interpreter runs, whether its path holds one of the
    values taken from the environment, and the files run before it; one it is given that
    cannot be read means the server cannot start (what trust would cover is not there)."""
    script = find_script(resolved, args, cwd)
    named = tuple(
        path
        for path in _named_files(args, cwd)
        if script is None or path not in (script.path, *script.preloads)
    )
    if script is None and named:  # `tsx server.ts`, `./run config.json`: what it is given
        script = Script(named[0], preloads=named[1:])
    elif script is not None and named:  # `npx tsx server.ts`, `--env-file=.env`
        script = replace(script, preloads=(*script.preloads, *named))
    if script is None:
        return None, False, ()
    hidden = any(value in script.path for value in secrets)
    problem = file_problem(script.path) if script.required else None
    if problem is not None:
        shown = SCRIPT_FROM_ENVIRONMENT if hidden else script.path
        raise ServerStartError(
            f"MCP server {name!r}: its script {shown} {problem}; restore it, or change "
            f"the server's arguments (agent mcp edit {name})"
        )
    return script.path, hidden, script.preloads


def _named_files(args: tuple[str, ...], cwd: str) -> list[str]:
    """The project's files the arguments name (`server.ts`, `--env-file=.env`): whatever the
    program does with them (runs, loads, reads its settings from), a pull may rewrite them,
    so trust covers them like the script. A stat per argument; files outside `cwd` are not
    the project's."""
    found: list[str] = []
    for argument in args:
        values = [argument, argument.partition("=")[2]] if argument.startswith("-") else [argument]
        for value in values:
            if not value or value.startswith("-"):
                continue
            path = os.path.abspath(os.path.join(cwd, value))
            inside = os.path.commonpath([path, cwd]) == cwd
            if inside and path != cwd and path not in found and os.path.isfile(path):
                found.append(path)
    return found


def _expand_cwd(written: str | None, expander: Expander, where: str) -> str:
    cwd = expander.expand(written, f"{where} cwd") if written is not None else None
    cwd = os.path.expanduser(cwd if cwd is not None else expander.workspace_folder)
    if not Path(cwd).is_dir():
        raise ServerStartError(f"{where}: working directory {cwd} does not exist")
    # Links resolved once, here: trust is judged on this path and the child starts in it,
    # so a link swapped after the question cannot move the child elsewhere.
    return os.path.realpath(cwd)


def _expand_commands(
    definition: CommandsDefinition, expander: Expander, where: str
) -> CommandsLaunch:
    cwd = _expand_cwd(definition.cwd, expander, where)
    env = {
        key: expander.expand(value, f"{where} env.{key}") for key, value in definition.env.items()
    }
    inherited = inherited_environment(expander.environ)
    child_env = {**inherited, **env}
    resolved = tuple(resolve_command(tool.program, cwd, child_env) for tool in definition.tools)
    scripts = tuple(
        interpreter_script(found, _literal_head(tool), cwd)
        for tool, found in zip(definition.tools, resolved, strict=True)
    )
    return CommandsLaunch(
        server=definition.name,
        tools=definition.tools,
        resolved=resolved,
        cwd=cwd,
        env=env,
        inherited_env=inherited,
        scripts=scripts,
        contents=tuple(
            tool_content(found, script) for found, script in zip(resolved, scripts, strict=True)
        ),
    )


def _literal_head(tool: CommandTool) -> list[str]:
    """The elements after the program up to the first placeholder: the definition's own."""
    head = []
    for element in tool.command[1:]:
        if placeholders(element):
            break
        head.append(element)
    return head


def _expand_http(definition: HttpDefinition, expander: Expander, where: str) -> HttpLaunch:
    url = expander.expand(definition.url, f"{where} url")
    problems = url_problems(url)
    if problems:
        # The expanded URL may hold a secret, so the message describes without quoting it.
        raise ExpansionError(f"{where} url: after expanding variables, the URL {problems[0]}")
    oauth = definition.oauth
    if (unbound := missing_issuer(oauth)) is not None:  # saved before issuer existed
        raise ServerStartError(
            f"{where} oauth.issuer: {unbound}; nothing is sent until it is set (agent mcp edit)"
        )
    return HttpLaunch(
        server=definition.name,
        url=url,
        transport=definition.transport,
        headers={
            key: expander.expand(value, f"{where} headers.{key}")
            for key, value in definition.headers.items()
        },
        oauth=oauth,
        client_secret=_maybe(
            expander, oauth.client_secret if oauth else None, f"{where} oauth.clientSecret"
        ),
        private_key_file=_maybe(
            expander, oauth.private_key_file if oauth else None, f"{where} oauth.privateKeyFile"
        ),
    )


def _maybe(expander: Expander, value: str | None, where: str) -> str | None:
    return None if value is None else expander.expand(value, where)
