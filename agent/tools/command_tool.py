"""run_command: the built-in tool that runs a program, asked every time and fenced in.

The argv is a list and runs without a shell; stdin is empty; stdout and stderr are kept to a
cap (the rest read, dropped and counted); a timeout ends the program and everything it started
(agent.processes.runner). The environment carries no secrets (command_environment.py). On
Linux the program runs inside bubblewrap (sandbox.py); where that cannot be set up, the
approval says so plainly and the settings decide whether it may run at all.

`preview` works the whole call out (the folder, the program found, the fence) and the approval
shows exactly that; the run runs what was shown. A call that cannot run (a folder outside the
project, a program not found, a skill that is not active) is refused before anyone is asked.
A call that asks for the network may be approved without it (`run_without_network`): the
same plan, fenced with no network, and the model told so.

A skill's scripts: with `skill`, the command runs in that active skill's folder, which the
sandbox shows read-only; the skill's `allowed-tools` is shown in the approval as what the
skill expects, and never answers for the person.
"""

from __future__ import annotations

import math
import os
from collections import OrderedDict
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Any, Protocol

from agent.messages import ToolResult
from agent.settings import CommandsSettings
from agent.text import plural
from agent.tools.base import CallRefusedError, ToolSpec
from agent.tools.command_environment import command_environment, find_program, shown_argv
from agent.tools.command_result import result_text
from agent.tools.containment import inside_project, within
from agent.tools.file_tools import call_key
from agent.tools.later_run_files import LaterRunWatch
from agent.tools.pinned_folder import FolderPin
from agent.tools.sandbox import (
    Fence,
    SandboxState,
    bwrap_command,
    describe,
    hidden_paths,
    sandbox_state,
)
from agent.tools.sandbox_home import (
    Listed,
    changed_listed,
    emptied_home,
    home_lines,
    in_view,
    listed_entries,
)
from agent.tools.sandbox_home import home_value as sandbox_home_value
from agent.tools.seccomp_filter import command_filter
from agent.tools.skill_run_folder import checked_descriptor, hidden_refusal, pinned, skill_cwd
from agent.tools.visible_environment import changed_since_checked, folders_to_show

MAX_ARGV_ITEMS = 4096
MAX_ARGV_BYTES = 128 * 1024  # well under the kernel's limit, and more than a person reads
_PLANS_KEPT = 8
RAN_WITHOUT_NETWORK = (
    "ran WITHOUT the network: you asked for network: true, and the person chose to approve "
    "this command only without it (a failure to connect below is that, not the service)\n"
)


@dataclass(frozen=True)
class SkillFolder:
    """An active skill whose scripts a command may run: where it is, what it says it uses."""

    name: str
    directory: Path
    allowed_tools: str | None  # the frontmatter's `allowed-tools`, as written
    # The folder as pinned when the skill was found (None: pinned when the call is worked out).
    pin: FolderPin | None = None


class SkillFolders(Protocol):
    """The chat's active skills, as run_command needs them (agent.chat.skill_folders)."""

    def folder(self, name: str) -> SkillFolder:
        """The active skill called `name`; LookupError saying why there is none."""
        ...


@dataclass(frozen=True)
class CommandPlan:
    """One call worked out for the approval, and run exactly as shown."""

    argv: tuple[str, ...]
    fence: Fence | None  # None: no sandbox
    bwrap: str | None
    cwd: Path
    environment: dict[str, str]
    timeout: float
    lines: tuple[str, ...]
    skill: SkillFolder | None = None  # its pin set: checked again at the run, mounted by fd


class RunCommand:
    """Run a program in the project (or an active skill's folder), inside the sandbox."""

    name = "run_command"

    def __init__(
        self,
        project: Path,
        private: Sequence[Path],
        settings: CommandsSettings,
        skills: SkillFolders | None = None,
        *,
        sandbox: Callable[[], SandboxState] = sandbox_state,
        environ: Mapping[str, str] = os.environ,
    ) -> None:
        self.project = project
        self.private = tuple(private)
        self.settings = settings
        self.skills = skills
        self.sandbox = sandbox
        self.environ = environ
        self._plans: OrderedDict[str, CommandPlan] = OrderedDict()

    @property
    def spec(self) -> ToolSpec:
        return ToolSpec(
            name=self.name,
            description=(
                "Run a program. `argv` is the program and its arguments as a list; there is no "
                "shell (no pipes, globs, redirections or $VARIABLES unless you run a shell "
                'yourself, e.g. ["bash", "-c", "..."]). stdin is empty. It runs in the '
                f"project directory ({self.project}) or `cwd` inside it, in a sandbox where "
                "one can be set up: only the project and /tmp writable, and no network unless "
                "`network` is true (ask for it only when the command needs it). To run a "
                "script of an active skill, name it in `skill`: the command then runs in the "
                "skill's folder (read-only), so give output paths in the project as absolute "
                "paths. "
                "The person approves each call after seeing it."
            ),
            parameters={
                "type": "object",
                "properties": {
                    "argv": {
                        "type": "array",
                        "items": {"type": "string"},
                        "minItems": 1,
                        "maxItems": MAX_ARGV_ITEMS,
                        "description": "the program, then its arguments",
                    },
                    "cwd": {
                        "type": "string",
                        "description": "folder to run in, relative to the project (with "
                        "`skill`: relative to the skill's folder)",
                    },
                    "timeout_seconds": {
                        "type": "number",
                        "exclusiveMinimum": 0,
                        "maximum": self.settings.max_timeout_seconds,
                        "description": f"default {self.settings.timeout_seconds:g}",
                    },
                    "network": {
                        "type": "boolean",
                        "description": "the command needs the network (default false)",
                    },
                    "skill": {
                        "type": "string",
                        "description": "the active skill whose script this runs",
                    },
                },
                "required": ["argv"],
                "additionalProperties": False,
            },
            requires_approval=True,
            source="built-in",
        )

    def preview(self, arguments: dict[str, Any]) -> list[str]:
        plan = self._plan(arguments)
        key = call_key(self.name, arguments)
        self._plans[key] = plan
        self._plans.move_to_end(key)
        while len(self._plans) > _PLANS_KEPT:
            self._plans.popitem(last=False)
        return list(plan.lines)

    def asks_for_network(self, arguments: dict[str, Any]) -> bool:
        """The previewed call runs fenced with the network on: the person may say yes without
        it (with no sandbox there is no network to take away, and no such choice)."""
        plan = self._plans.get(call_key(self.name, arguments))
        return plan is not None and plan.fence is not None and plan.fence.network

    async def run(self, arguments: dict[str, Any]) -> ToolResult:
        plan = self._plans.pop(call_key(self.name, arguments), None)
        if plan is None:  # not previewed (nobody was asked): work it out now
            try:
                plan = self._plan(arguments)
            except CallRefusedError as error:
                return ToolResult(str(error), is_error=True)
        return await self._run_plan(plan)

    async def run_without_network(self, arguments: dict[str, Any]) -> ToolResult:
        """The call as previewed, but fenced with no network (the person's choice), and the
        model told so first: a failure to connect is the fence, not the service."""
        plan = self._plans.pop(call_key(self.name, arguments), None)
        if plan is None:  # not previewed: work it out now, as run does
            try:
                plan = self._plan({**arguments, "network": False})
            except CallRefusedError as error:
                return ToolResult(str(error), is_error=True)
        if plan.fence is None:  # no sandbox: nothing could keep the network from it
            return ToolResult(
                "not run: there is no sandbox to run it without the network", is_error=True
            )
        offline = replace(plan, fence=replace(plan.fence, network=False))
        result = await self._run_plan(offline)
        return replace(result, text=RAN_WITHOUT_NETWORK + result.text)

    async def _run_plan(self, plan: CommandPlan) -> ToolResult:
        from agent.processes.runner import run_command

        changed = changed_since_checked(plan.fence.environments if plan.fence else ())
        if changed is None and plan.fence is not None:
            changed = changed_listed(Listed(plan.fence.listed, ()))
        if changed is not None:
            return ToolResult(changed, is_error=True)
        folders: dict[Path, int] = {}  # the skill's folder, checked again now, by descriptor
        if plan.skill is not None and plan.skill.pin is not None:
            try:
                folders[plan.skill.pin.path] = checked_descriptor(plan.skill.name, plan.skill.pin)
            except CallRefusedError as error:
                return ToolResult(str(error), is_error=True)
        # The filter in both modes: unix sockets (the host's abstract ones share a networked
        # command's namespace) and keyrings are no namespace's (seccomp_filter.py).
        seccomp = command_filter() if plan.fence is not None else None
        filter_fd = _filter_pipe(seccomp) if seccomp is not None else None
        passed = (*(() if filter_fd is None else (filter_fd,)), *folders.values())
        command = list(plan.argv)
        watch = None  # what git runs later and a mount cannot hold: put back after the run
        if plan.fence is not None and plan.bwrap is not None:
            watch = LaterRunWatch(plan.fence.project)
            command = bwrap_command(plan.bwrap, plan.fence, plan.argv, filter_fd, folders)
        try:
            outcome = await run_command(
                command,
                cwd=str(plan.cwd),
                env=plan.environment,
                timeout=plan.timeout,
                cap=self.settings.output_limit_bytes,
                pass_fds=passed,
            )
        except (OSError, UnicodeEncodeError) as error:
            reason = error.strerror if isinstance(error, OSError) else None
            return ToolResult(f"the command could not start: {reason or error}", is_error=True)
        finally:
            for fd in passed:
                os.close(fd)
        result = result_text(outcome, plan.timeout)
        return result if watch is None else watch.noted(result)

    def _plan(self, arguments: dict[str, Any]) -> CommandPlan:
        argv = _checked_argv(arguments.get("argv"))
        if any(within(self.project, folder) for folder in self.private):
            raise CallRefusedError(
                "the project directory is inside agent's own settings and data folder, where "
                "run_command never runs anything"
            )
        skill = self._skill(arguments.get("skill"))
        cwd = self._cwd(arguments.get("cwd"), skill)
        state = self.sandbox()
        if not state.available and self.settings.unsandboxed == "deny":
            raise CallRefusedError(
                f"run_command cannot run anything here: there is no sandbox ({state.reason}), "
                "and the settings say commands.unsandboxed: deny"
            )
        environment = command_environment(self.environ, private_tmp=state.available)
        program = find_program(argv[0], cwd, environment)
        if program is None:
            raise CallRefusedError(
                f"{shown_argv(argv[:1])} was not found "
                + ("in that folder" if "/" in argv[0] else "on PATH")
                + " (or is not executable); nothing ran"
            )
        network = arguments.get("network") is True
        timeout = min(self._timeout(arguments), self.settings.max_timeout_seconds)
        fence: Fence | None = None
        seen: list[str] = []
        if state.available and state.program is not None:
            fence, seen = self._fence(program, cwd, network, skill, environment)
        lines = [
            f"command: {shown_argv(argv)}",
            f"program: {shown_argv([str(program)])}",
            f"in: {shown_argv([str(cwd)])}",
            *_skill_lines(skill),
            *describe(state, network),
            *seen,
            f"timeout: {timeout:g} s; what it changes is not recorded for /undo",
        ]
        if not state.available and network:
            lines.append("  (the model asked for the network; without a sandbox it is not limited)")
        return CommandPlan(
            tuple(argv), fence, state.program, cwd, environment, timeout, tuple(lines), skill
        )

    def _fence(
        self,
        program: Path,
        cwd: Path,
        network: bool,
        skill: SkillFolder | None,
        environment: Mapping[str, str],
    ) -> tuple[Fence, list[str]]:
        """What the command may reach, and the approval's lines on the home and on what is
        shown of it: the home emptied, the program's installation and the listed entries
        shown again read-only (sandbox_home.py)."""
        home_value = sandbox_home_value()
        hidden = hidden_paths(Path(home_value), self.private, self.project)
        home = emptied_home(home_value, self.project)
        listed = listed_entries(self.settings.visible_read_only, home, home_value, hidden)
        readable: tuple[Path, ...] = ()
        if skill is not None and skill.pin is not None:
            refused = hidden_refusal(skill.name, skill.pin, hidden)
            if refused is not None:
                raise CallRefusedError(refused)
            readable = (skill.pin.path,)
        shown = (
            self.project,
            *readable,
            *(real for real, _ in listed.shown),
        )
        environments = folders_to_show(
            program, environment, hidden=hidden, visible=shown, home=home
        )
        in_sight = (*shown, *(written for _, written in listed.shown), *environments)
        fence = Fence(
            project=self.project,
            cwd=cwd,
            network=network,
            hidden=in_view(hidden, home, in_sight),
            readable=readable,
            environments=environments,
            home=home,
            listed=listed.shown,
        )
        return fence, home_lines(home, home_value, self.project, environments, listed)

    def _timeout(self, arguments: dict[str, Any]) -> float:
        """timeout_seconds as a positive, finite number (NaN would make the run fail after the
        program started; a word or a list, the preview)."""
        value = arguments.get("timeout_seconds")
        if value is None:
            return self.settings.timeout_seconds
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            seconds = math.nan
        if isinstance(value, bool) or not math.isfinite(seconds) or seconds <= 0:
            raise CallRefusedError(
                f"timeout_seconds must be a number of seconds above 0, not {value!r:.40}"
            )
        return seconds

    def _skill(self, name: object) -> SkillFolder | None:
        if name is None or name == "":
            return None
        if self.skills is None:
            raise CallRefusedError("no skills are in use in this chat; leave out `skill`")
        try:
            skill = self.skills.folder(str(name))
        except LookupError as error:
            raise CallRefusedError(str(error.args[0] if error.args else error)) from None
        return replace(skill, pin=pinned(skill.name, skill.directory, skill.pin))

    def _cwd(self, relative: object, skill: SkillFolder | None) -> Path:
        """The folder the command runs in: inside the project, or inside the skill's folder."""
        text = "." if relative is None or relative == "" else str(relative)
        if "\0" in text:
            raise CallRefusedError("cwd holds a NUL character")
        if skill is not None and skill.pin is not None:
            return skill_cwd(skill.name, skill.pin, text)
        try:
            folder = inside_project(self.project, text, self.private, verb="run commands in")
        except ValueError as error:
            raise CallRefusedError(str(error)) from None
        if not folder.is_dir():
            raise CallRefusedError(f"cwd {text!r} is not a folder")
        return folder


def _filter_pipe(program: bytes) -> int:
    """A pipe's reading end holding `program` whole (far under a pipe's buffer), for bwrap's
    --seccomp to read in the child."""
    read_end, write_end = os.pipe()
    try:
        os.write(write_end, program)
    finally:
        os.close(write_end)
    return read_end


def _checked_argv(value: object) -> list[str]:
    if not isinstance(value, list) or not value or not all(isinstance(w, str) for w in value):
        raise CallRefusedError("argv must be a list of strings: the program, then its arguments")
    argv: list[str] = value
    if not argv[0]:
        raise CallRefusedError("argv[0], the program, is empty")
    if any("\0" in word for word in argv):
        raise CallRefusedError("an argument holds a NUL character, which no program can receive")
    try:
        size = sum(len(os.fsencode(word)) + 1 for word in argv)
    except UnicodeEncodeError:
        raise CallRefusedError("an argument is not valid Unicode (a lone surrogate)") from None
    if size > MAX_ARGV_BYTES:
        raise CallRefusedError(
            f"argv is {plural(size, 'byte')}, over run_command's limit of "
            f"{plural(MAX_ARGV_BYTES, 'byte')}; write long input to a file in the project first"
        )
    return argv


def _skill_lines(skill: SkillFolder | None) -> list[str]:
    if skill is None:
        return []
    lines = [f"skill: {shown_argv([skill.name])}: runs in the skill's folder (read-only)"]
    if skill.allowed_tools:
        lines.append(
            f"  the skill lists as expected (allowed-tools): {shown_argv([skill.allowed_tools])}; "
            "that does not answer for you"
        )
    return lines
