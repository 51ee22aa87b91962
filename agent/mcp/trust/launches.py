"""Trust of what a local server actually runs: the effective launch, not the stored definition.

The stored definition leaves the launch open: the default working directory is the project,
`${workspaceFolder}` and `${VAR}` expand at start, and PATH decides which program a bare
command name is. So trust is recorded for the effective launch: the resolved program, the
expanded arguments, the working directory and the environment the child gets. Anything
different asks again, and the question says what changed.

Nothing secret is stored: environment values, and arguments that take a value from an
environment variable, are kept as keyed hashes (HMAC-SHA256 with a random key that lives 0600
in the data home), so a changed token asks again without the store holding anything useful.
A launch that depends on the project is recorded per project directory.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import json
import os
import shlex
from collections.abc import Mapping
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any

from agent.errors import ExpansionError, Problem, ServerStartError, StoreError
from agent.home import data_home, ensure_private_dir
from agent.mcp.config.command_definitions import CommandsDefinition
from agent.mcp.config.definitions import LocalDefinition, StdioDefinition
from agent.mcp.config.launch import (
    SCRIPT_FROM_ENVIRONMENT,
    CommandsLaunch,
    StdioLaunch,
    expand_definition,
)
from agent.mcp.config.program_files import PRELOADS_MARK, SCRIPT_MARK
from agent.mcp.config.variables import Expander, references_environment
from agent.mcp.trust.project_folder import depends_on_project as depends_on_project
from agent.mcp.trust.project_folder import folder_change, inside, resolves_elsewhere
from agent.mcp.trust.project_folder import headline as folder_headline
from agent.text import plural, sanitize_line

KEY_FILE_NAME = "trust.key"
_KEY_BYTES = 32
MAX_TRUSTED_LAUNCHES = 32  # per server: enough projects for a person, a bound for the file
# The child's terminal type describes the person's terminal, not the program that runs.
_UNBOUND_ENV = frozenset({"TERM"})
# A commands server's record: `command` holds this and the JSON of a hash of each tool's
# fields (command line, schema, limits: a change can be named), `executable` the JSON of each
# tool's resolved program.
COMMANDS_MARK = "commands:"
# A script path holding a value from the environment, as recorded: this and its keyed hash.
HIDDEN_SCRIPT_PREFIX = "hmac:"


@dataclass(frozen=True)
class TrustedValue:
    """One argument as recorded: the text itself, or only its keyed hash when it may be secret."""

    text: str | None = None
    keyed_hash: str | None = None

    def to_json(self) -> dict[str, str]:
        return {"value": self.text} if self.text is not None else {"hmac": self.keyed_hash or ""}


@dataclass(frozen=True)
class TrustedLaunch:
    """What one yes covered: the program, its arguments, working directory and environment."""

    project: str | None  # the project directory, when the launch depends on it
    command: str  # as written in the definition
    executable: str | None  # what it resolved to; None when not found
    cwd: TrustedValue
    args: tuple[TrustedValue, ...]
    env: tuple[tuple[str, str], ...]  # (name, keyed hash of the value), sorted by name
    # The program file's content (agent.mcp.config.program_files); for a commands server the JSON
    # of each tool's. None in records made before trust covered content.
    program: str | None = None

    def same_launch(self, other: TrustedLaunch) -> bool:
        """True when both records describe the same effective launch (the project aside)."""
        return (self.command, self.executable, self.cwd, self.args, self.env, self.program) == (
            other.command,
            other.executable,
            other.cwd,
            other.args,
            other.env,
            other.program,
        )

    def to_json(self) -> dict[str, Any]:
        return {
            "project": self.project,
            "command": self.command,
            "executable": self.executable,
            "cwd": self.cwd.to_json(),
            "args": [arg.to_json() for arg in self.args],
            "env": dict(self.env),
            "program": self.program,
        }


@dataclass(frozen=True)
class LaunchVerdict:
    """Whether a launch is trusted now, and when not, what differs from what was trusted."""

    launch: StdioLaunch | CommandsLaunch
    record: TrustedLaunch
    trusted: bool
    previously_trusted: bool
    changes: tuple[str, ...]
    # The project it was trusted in, when this launch is another project's (project_folder.py):
    # the person changed folder, which is what the question says.
    trusted_in: str | None = None

    def headline(self) -> str:
        """Why this launch asks: "it runs in this project's folder, and you trusted it in
        A", "what it runs changed" or "its launch here is new"."""
        if self.trusted_in is not None and self.record.project is not None:
            return folder_headline(self.record.cwd.text, self.record.project, self.trusted_in)
        return "what it runs changed" if self.previously_trusted else "its launch here is new"

    def reason(self) -> str:
        """Why this launch is not trusted, in one line, e.g. "what it runs changed (...)"."""
        why = self.headline()
        return why + (" (" + "; ".join(self.changes) + ")" if self.changes else "")


class LaunchTrust:
    """Judges local servers' effective launches for one project and environment."""

    def __init__(self, expander: Expander, project_dir: Path, key_path: Path | None = None):
        self.expander = expander
        self.project_dir = project_dir
        self._key_path = key_path
        self._key: bytes | None = None

    def verdict(
        self, definition: LocalDefinition, trusted: tuple[TrustedLaunch, ...]
    ) -> LaunchVerdict:
        """Expand `definition` and compare its launch with the trusted ones.

        Raises the expansion's own error (a missing variable, a missing directory).
        """
        launch = expand_definition(definition, self.expander)
        if isinstance(definition, CommandsDefinition):
            assert isinstance(launch, CommandsLaunch)
            record = self.commands_record(definition, launch)
        else:
            assert isinstance(launch, StdioLaunch)
            record = self.record(definition, launch)
        if any(covers(known, record) for known in trusted):
            return LaunchVerdict(launch, record, True, True, ())
        baseline = _baseline(record, trusted)
        changes = () if baseline is None else tuple(describe_changes(baseline, record))
        trusted_in = None
        if baseline is not None and None not in (baseline.project, record.project):
            trusted_in = baseline.project if baseline.project != record.project else None
        return LaunchVerdict(launch, record, False, baseline is not None, changes, trusted_in)

    def is_trusted(self, definition: LocalDefinition, trusted: tuple[TrustedLaunch, ...]) -> bool:
        """True when the launch as it would start now was trusted; False when it cannot start."""
        if not trusted:
            return False
        try:
            return self.verdict(definition, trusted).trusted
        except (ExpansionError, ServerStartError):  # it cannot start, so nothing is trusted
            return False

    def record(self, definition: StdioDefinition, launch: StdioLaunch) -> TrustedLaunch:
        """The trust record of `launch`: secrets as keyed hashes, never as values."""
        key = self._load_key()
        args = tuple(
            _recorded(key, written, expanded)
            for written, expanded in zip(definition.args, launch.args, strict=True)
        )
        return TrustedLaunch(
            project=str(self.project_dir) if depends_on_project(definition) else None,
            command=launch.command,
            executable=launch.resolved_command(),
            cwd=_recorded(key, definition.cwd or "", launch.cwd),
            args=args,
            env=_env_record(key, launch),
            program=_stored_content(key, launch),
        )

    def commands_record(
        self, definition: CommandsDefinition, launch: CommandsLaunch
    ) -> TrustedLaunch:
        """The trust record of a commands server: its tools as written (hashed: any edit asks
        again), each program as resolved here, the working directory and the environment."""
        key = self._load_key()
        programs = {
            tool.name: found for tool, found in zip(launch.tools, launch.resolved, strict=True)
        }
        # The digests the launch took: the ones each call is checked against.
        contents = {
            tool.name: content for tool, content in zip(launch.tools, launch.contents, strict=True)
        }
        return TrustedLaunch(
            project=str(self.project_dir) if depends_on_project(definition) else None,
            command=COMMANDS_MARK + _tool_fields(definition),
            executable=json.dumps(programs, sort_keys=True, ensure_ascii=False),
            cwd=_recorded(key, definition.cwd or "", launch.cwd),
            args=(),
            env=_env_record(key, launch),
            program=json.dumps(contents, sort_keys=True),
        )

    def _load_key(self) -> bytes:
        if self._key is None:
            self._key = load_or_create_key(self._key_path or data_home() / KEY_FILE_NAME)
        return self._key


def _stored_content(key: bytes, launch: StdioLaunch) -> str | None:
    """The program's and script's content as recorded: a script path holding a value from
    the environment only as its keyed hash, like the argument it came from."""
    content, script = launch.content, launch.script
    if content is None or script is None or not launch.script_from_environment:
        return content
    hidden = f"{HIDDEN_SCRIPT_PREFIX}{_keyed_hash(key, script)}"
    return content.replace(f"{SCRIPT_MARK}{script} ", f"{SCRIPT_MARK}{hidden} ", 1)


def _recorded(key: bytes, written: str, expanded: str) -> TrustedValue:
    """A value as recorded: its text, or only its keyed hash when it may be a secret."""
    if references_environment(written):
        return TrustedValue(keyed_hash=_keyed_hash(key, expanded))
    return TrustedValue(text=expanded)


def _env_record(key: bytes, launch: StdioLaunch | CommandsLaunch) -> tuple[tuple[str, str], ...]:
    """The child's environment as (name, keyed hash of the value), sorted by name."""
    env = {
        name: _keyed_hash(key, text)
        for name, text in launch.child_environment().items()
        if name not in _UNBOUND_ENV
    }
    return tuple(sorted(env.items()))


def shown_launch(definition: StdioDefinition, launch: StdioLaunch) -> tuple[tuple[str, ...], str]:
    """The arguments and working directory as a question may show them: a value taken from an
    environment variable (a password in a URL, a token) is shown as written, `${NAME}`."""
    args = tuple(
        written if references_environment(written) else expanded
        for written, expanded in zip(definition.args, launch.args, strict=True)
    )
    return args, shown_cwd(definition.cwd, launch.cwd)


def shown_cwd(written: str | None, expanded: str) -> str:
    """The working directory as a question shows it: as written when taken from the
    environment (it may be secret), else as it expanded."""
    written = written or ""
    return written if references_environment(written) else expanded


def remember(
    trusted: tuple[TrustedLaunch, ...], record: TrustedLaunch
) -> tuple[TrustedLaunch, ...]:
    """`trusted` with `record` first, once, keeping the newest MAX_TRUSTED_LAUNCHES.

    Every launch the person said yes to stays trusted (another project, another PATH in
    another terminal), so switching between them does not ask each time; the bound keeps
    the store small and lets the oldest yes lapse.
    """
    others = tuple(known for known in trusted if not known.same_launch(record))
    return (record, *others)[:MAX_TRUSTED_LAUNCHES]


def declined_in(project: Path, record: TrustedLaunch) -> TrustedLaunch:
    """The record of a no: always tied to the project it was said in, so a no in one project
    does not leave a server off in another, where the person was never asked."""
    return replace(record, project=str(project))


def was_declined(declined: tuple[TrustedLaunch, ...], project: Path, record: TrustedLaunch) -> bool:
    """Whether the person said no to exactly this launch in this project: then the chat
    leaves it off without asking again; a launch that differs in anything asks again."""
    return any(no.project == str(project) and no.same_launch(record) for no in declined)


def forget_declined(
    declined: tuple[TrustedLaunch, ...], project: Path, record: TrustedLaunch
) -> tuple[TrustedLaunch, ...]:
    """`declined` without this project's no to `record` (a yes since has replaced it)."""
    return tuple(
        no for no in declined if not (no.project == str(project) and no.same_launch(record))
    )


def describe_changes(old: TrustedLaunch, new: TrustedLaunch) -> list[str]:
    """What differs between two launches, in words, never showing a secret value.

    Between two projects (both written relative to the project), the working directory is
    said as the project's ("its working directory is this project's folder"), and an argument
    unchanged as text that now names another file says so."""
    other_project = None not in (old.project, new.project) and old.project != new.project
    changes = []
    if new.command.startswith(COMMANDS_MARK):
        changes.extend(_tool_changes(old, new))
    elif (old.command, old.executable) != (new.command, new.executable):
        changes.append(f"program: {_program(old)} -> {_program(new)}")
    elif old.program != new.program:
        what = f"program {_program(new)}"
        projects = (old.project or "", new.project or "") if other_project else None
        changes.extend(_files_changes(old.program, new.program, what, projects))
    changes.extend(_cwd_changes(old, new, other_project))
    changes.extend(_argument_changes(old.args, new.args))
    changes.extend(_moved_arguments(old, new))
    changes.extend(_env_changes(dict(old.env), dict(new.env)))
    if other_project and not changes:  # `${workspaceFolder}/..`: the same for two siblings
        changes.append("it is written relative to the project folder, so a yes holds for one")
    return changes


def _cwd_changes(old: TrustedLaunch, new: TrustedLaunch, other_project: bool) -> list[str]:
    if old.cwd == new.cwd:
        return []
    if old.cwd.text is None or new.cwd.text is None:
        return ["working directory changed (set from an environment variable)"]
    if other_project and old.project is not None and new.project is not None:
        said = folder_change(old.cwd.text, old.project, new.cwd.text, new.project)
        if said is not None:
            return [said]
    return [f"working directory: {_shown(old.cwd)} -> {_shown(new.cwd)}"]


def _moved_arguments(old: TrustedLaunch, new: TrustedLaunch) -> list[str]:
    """Arguments the same as text that name another file: the working directory moved."""
    if old.cwd == new.cwd or old.cwd.text is None or new.cwd.text is None:
        return []
    return [
        f"argument {_shown(after)} resolves to another file"
        for before, after in zip(old.args, new.args, strict=False)
        if before == after
        and after.text is not None
        and resolves_elsewhere(after.text, old.cwd.text, new.cwd.text)
    ]


def _env_changes(old_env: dict[str, str], new_env: dict[str, str]) -> list[str]:
    changes = [
        f"environment: {sanitize_line(name)} added"
        for name in sorted(new_env.keys() - old_env.keys())
    ]
    changes += [
        f"environment: {sanitize_line(name)} removed"
        for name in sorted(old_env.keys() - new_env.keys())
    ]
    changes += [
        f"environment: the value of {sanitize_line(name)} changed"
        for name in sorted(old_env.keys() & new_env.keys())
        if old_env[name] != new_env[name]
    ]
    return changes


def _tool_fields(definition: CommandsDefinition) -> str:
    """{tool: {field: hash}} as JSON: each field as written, hashed (descriptions can be long)."""
    fields = {
        name: {
            field: hashlib.sha256(
                json.dumps(value, sort_keys=True, ensure_ascii=False).encode("utf-8")
            ).hexdigest()[:32]
            for field, value in tool.items()
        }
        for name, tool in definition.to_json()["tools"].items()
    }
    return json.dumps(fields, sort_keys=True)


def _field_changes(old_command: str, new_command: str) -> list[str]:
    """Which tools were added or removed, and which fields of each changed."""
    old_tools = _programs(old_command[len(COMMANDS_MARK) :])
    new_tools = _programs(new_command[len(COMMANDS_MARK) :])
    if not old_tools:  # a record from before fields were kept
        return ["its tools changed (command lines, schemas or limits)"]
    changes = [
        f"tool {sanitize_line(name)} added" for name in sorted(new_tools.keys() - old_tools.keys())
    ]
    changes += [
        f"tool {sanitize_line(name)} removed"
        for name in sorted(old_tools.keys() - new_tools.keys())
    ]
    for name in sorted(old_tools.keys() & new_tools.keys()):
        before, after = old_tools[name], new_tools[name]
        if not isinstance(before, dict) or not isinstance(after, dict):
            continue
        fields = sorted(f for f in before.keys() | after.keys() if before.get(f) != after.get(f))
        if fields:
            changes.append(f"tool {sanitize_line(name)}: {', '.join(fields)} changed")
    return changes


def _tool_changes(old: TrustedLaunch, new: TrustedLaunch) -> list[str]:
    """What differs in a commands server's tools and the programs they resolve to."""
    if old.command != new.command:
        return _field_changes(old.command, new.command)
    before, after = _programs(old.executable), _programs(new.executable)
    changes = [
        f"program of {sanitize_line(tool)}: {sanitize_line(before.get(tool) or '(not found)')}"
        f" -> {sanitize_line(after.get(tool) or '(not found)')}"
        for tool in sorted(after)
        if before.get(tool) != after.get(tool)
    ]
    if old.program is None:
        return changes or [_content_change(None, "its programs")]
    old_contents, new_contents = _programs(old.program), _programs(new.program)
    for tool in sorted(new_contents):
        if before.get(tool) == after.get(tool) and old_contents.get(tool) != new_contents[tool]:
            what = f"program of {sanitize_line(tool)}"
            changes.extend(_files_changes(old_contents.get(tool), new_contents[tool], what))
    return changes


def _files_changes(
    old: str | None, new: str | None, what: str, projects: tuple[str, str] | None = None
) -> list[str]:
    """Which files of a launch changed: its program, the script its interpreter runs, or
    both; `old` and `new` as program_files.tool_content records them. Between two projects
    (`projects`), a script at the same place in each is the project's: the question says
    the folder differs, not that the script does."""
    old_program, _, old_script = (old or "").partition(SCRIPT_MARK)
    new_program, _, new_script = (new or "").partition(SCRIPT_MARK)
    changes = [_content_change(old, what)] if old is None or old_program != new_program else []
    if not new_script or new_script == old_script:  # no script now: the arguments say why
        return changes
    if projects is not None:
        old_path, new_path = old_script.rpartition(" ")[0], new_script.rpartition(" ")[0]
        place = inside(new_path, projects[1])
        if old_path and place is not None and place == inside(old_path, projects[0]):
            return changes
    return [*changes, *_script_change(old_script, new_script, what)]


def _script_change(old: str, new: str, what: str) -> list[str]:
    """What differs in the script: "<path> <digest>" each, `old` empty in a record from
    before trust covered the script; a digest "None" when no such file is there."""
    old_path, _, old_digest = old.rpartition(" ")
    new_path, _, new_digest = new.rpartition(" ")
    shown = sanitize_line(new_path)
    if shown.startswith(HIDDEN_SCRIPT_PREFIX):
        shown = SCRIPT_FROM_ENVIRONMENT
    if not old:
        return [f"{what}: trust now covers the script it runs ({shown})"]
    if old_path != new_path:
        if new_digest == "None":  # none there, nor run: where it looks says the rest
            return []
        return [f"{what}: it runs another script ({shown})"]
    if old_digest == "None":  # `python -m mod` now finds the project's own mod.py
        return [f"{what}: a script it runs appeared ({shown})"]
    if new_digest.startswith(PRELOADS_MARK):  # `node -r ./pre.js server.js`
        if not old_digest.startswith(PRELOADS_MARK):
            return [f"{what}: trust now covers the files it runs before its script ({shown})"]
        return [f"{what}: the script it runs or a file it loads changed ({shown})"]
    return [f"{what}: the script it runs changed ({shown})"]


def _content_change(old: str | None, what: str) -> str:
    if old is None:  # a record from before trust covered the program file's content
        return f"{what}: trust now covers the program file's content"
    return f"{what}: the program file changed (same path, different content)"


def _programs(recorded: str | None) -> dict[str, Any]:
    try:
        value = json.loads(recorded or "{}")
    except json.JSONDecodeError:
        return {}
    return value if isinstance(value, dict) else {}


def _program(record: TrustedLaunch) -> str:
    return sanitize_line(record.executable or f"{record.command} (not found)")


def _argument_changes(old: tuple[TrustedValue, ...], new: tuple[TrustedValue, ...]) -> list[str]:
    changes = []
    for index in range(max(len(old), len(new))):
        number = index + 1
        if index >= len(old):
            changes.append(f"argument {number} added: {_shown(new[index])}")
        elif index >= len(new):
            changes.append(f"argument {number} removed: {_shown(old[index])}")
        elif old[index] != new[index]:
            if old[index].text is not None and new[index].text is not None:
                changes.append(f"argument {number}: {_shown(old[index])} -> {_shown(new[index])}")
            else:
                changes.append(f"argument {number} changed (set from an environment variable)")
    return changes


def _shown(value: TrustedValue) -> str:
    """A recorded value as text of one line (names and paths may hold line breaks)."""
    if value.text is None:
        return "(from an environment variable)"
    return sanitize_line(shlex.quote(value.text))


def covers(known: TrustedLaunch, record: TrustedLaunch) -> bool:
    """Whether a yes to `known` is a yes to `record`: the same launch, and, when it is
    written relative to the project (project_folder.py), the same project."""
    return known.same_launch(record) and record.project in (None, known.project)


def _baseline(record: TrustedLaunch, trusted: tuple[TrustedLaunch, ...]) -> TrustedLaunch | None:
    """The trusted launch to compare with: this project's, else the most recent."""
    for known in trusted:
        if known.project == record.project:
            return known
    return trusted[0] if trusted else None


def _keyed_hash(key: bytes, value: str) -> str:
    encoded = value.encode("utf-8", errors="surrogatepass")
    return hmac.new(key, encoded, hashlib.sha256).hexdigest()


def load_or_create_key(path: Path) -> bytes:
    """The random key for keyed hashes, created 0600 on first use (safe against a race)."""
    try:
        return _read_key(path)
    except FileNotFoundError:
        pass
    except OSError as error:
        raise StoreError(f"{path}: cannot read the trust key ({error.strerror})") from None
    try:
        _create_key(path)
        return _read_key(path)
    except OSError as error:
        raise StoreError(
            f"{path}: cannot create the trust key ({error.strerror or error}); check that the "
            "folder is writable"
        ) from None


def _create_key(path: Path) -> None:
    ensure_private_dir(path.parent)
    temporary = path.with_name(f".{path.name}.{os.getpid()}.{os.urandom(4).hex()}")
    fd = os.open(temporary, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    try:
        with os.fdopen(fd, "wb") as handle:
            handle.write(os.urandom(_KEY_BYTES))  # what secrets.token_bytes does, unimported
            handle.flush()
            os.fsync(handle.fileno())
        # link() makes the whole key appear at once, and fails when another process made
        # the key first; then theirs is the key.
        try:
            os.link(temporary, path)
        except FileExistsError:
            pass
        except OSError:  # a file system without hard links: exclusive create, then write
            with contextlib.suppress(FileExistsError):
                _write_exclusively(path, Path(temporary).read_bytes())
    finally:
        os.unlink(temporary)


def _write_exclusively(path: Path, data: bytes) -> None:
    fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    with os.fdopen(fd, "wb") as handle:
        handle.write(data)
        handle.flush()
        os.fsync(handle.fileno())


def _read_key(path: Path) -> bytes:
    key = path.read_bytes()
    if len(key) != _KEY_BYTES:
        raise StoreError(
            f"{path}: not a trust key ("
            f"{plural(len(key), 'byte')}, expected {_KEY_BYTES}); delete it and "
            "agent makes a new one (every local MCP server then asks for trust again)"
        )
    return key


def decode_trusted_launches(
    value: object, path: str, problems: list[Problem]
) -> tuple[TrustedLaunch, ...]:
    """Trust records read back from the store; anything malformed is a named problem."""
    if not isinstance(value, list):
        problems.append(Problem(path, "expected a list"))
        return ()
    records = []
    for index, item in enumerate(value):
        record = _decode_record(item)
        if record is None:
            problems.append(
                Problem(
                    f"{path}[{index}]",
                    "expected project, command, executable, cwd, args and env",
                )
            )
        else:
            records.append(record)
    return tuple(records)


_RECORD_KEYS = frozenset({"project", "command", "executable", "cwd", "args", "env"})
_PROGRAM_KEY = "program"  # absent in records made before trust covered the content


def _decode_record(item: object) -> TrustedLaunch | None:
    if not isinstance(item, dict) or set(item) - {_PROGRAM_KEY} != _RECORD_KEYS:
        return None
    program = item.get(_PROGRAM_KEY)
    if not isinstance(program, str | None):
        return None
    project, command, executable = item["project"], item["command"], item["executable"]
    cwd = _decode_value(item["cwd"])
    if not (
        isinstance(project, str | None)
        and isinstance(command, str)
        and isinstance(executable, str | None)
        and cwd is not None
    ):
        return None
    args = [_decode_value(arg) for arg in item["args"]] if isinstance(item["args"], list) else None
    env = item["env"]
    if args is None or any(arg is None for arg in args) or not _is_str_map(env):
        return None
    return TrustedLaunch(
        project=project,
        command=command,
        executable=executable,
        cwd=cwd,
        args=tuple(arg for arg in args if arg is not None),
        env=tuple(sorted(env.items())),
        program=program,
    )


def _decode_value(value: object) -> TrustedValue | None:
    if isinstance(value, dict) and len(value) == 1:
        if isinstance(value.get("value"), str):
            return TrustedValue(text=value["value"])
        if isinstance(value.get("hmac"), str):
            return TrustedValue(keyed_hash=value["hmac"])
    return None


def _is_str_map(value: object) -> bool:
    return isinstance(value, dict) and all(
        isinstance(k, str) and isinstance(v, str) for k, v in value.items()
    )


def launch_trust_for(project_dir: Path, environ: Mapping[str, str] | None = None) -> LaunchTrust:
    """A LaunchTrust for the project and environment this process starts servers in."""
    expander = Expander(
        environ=dict(os.environ if environ is None else environ),
        user_home=str(Path.home()),
        workspace_folder=str(project_dir),
    )
    return LaunchTrust(expander, project_dir)
