"""How a local server's launch depends on the project folder, and how a question says so.

The rule (ARCHITECTURE.md, "Rules the security reviews taught"): a launch depends on the
project when its definition is written relative to it: no `cwd` (the server starts in the
project's folder), a relative `cwd`, or `${workspaceFolder}` anywhere. Such a launch is trusted
per project folder, even where it expands the same in two projects: whatever starts in a
project's folder reads what the project holds (`.env`, config files, `node_modules`, the
modules of `python -m`, a relative PATH entry, a file named like its argument), and a hostile
repository chooses all of that. A launch written with nothing of the project (absolute program,
arguments and working directory of its own) is the same launch in every project, so a yes to
it holds in every project; anything of it that differs still asks.

The question says what differs from the person's view: they changed folder, so "it runs in
this project's folder, and you trusted it in A", never "what it runs changed".
"""

from __future__ import annotations

import os
from collections.abc import Sequence

from agent.mcp.config.command_definitions import CommandsDefinition
from agent.mcp.config.definitions import LocalDefinition
from agent.text import sanitize_line

WORKSPACE_FOLDER = "${workspaceFolder}"


def depends_on_project(definition: LocalDefinition) -> bool:
    """True when what runs is written relative to the project: no cwd (the project's folder),
    a relative cwd (resolved where the chat runs: in the project), or ${workspaceFolder}."""
    cwd = definition.cwd
    if cwd is None or not cwd.startswith(("/", "~", "$")):
        return True
    written = [cwd, *definition.env.values()]
    if not isinstance(definition, CommandsDefinition):
        written += [definition.command, *definition.args]
    return any(WORKSPACE_FOLDER in text for text in written)


def inside(path: str, folder: str) -> str | None:
    """`path` relative to `folder` ("." for the folder itself) when it lies within, else None."""
    real_path, real_folder = os.path.realpath(path), os.path.realpath(folder)
    if real_path == real_folder:
        return "."
    if real_path.startswith(real_folder.rstrip(os.sep) + os.sep):
        return os.path.relpath(real_path, real_folder)
    return None


def headline(cwd: str | None, project: str, trusted_in: str) -> str:
    """Why a launch trusted in another project asks here, e.g. "it runs in this project's
    folder, and you trusted it in /src/a"."""
    runs_here = cwd is not None and inside(cwd, project) is not None
    how = "runs in" if runs_here else "names"
    return f"it {how} this project's folder, and you trusted it in {sanitize_line(trusted_in)}"


def folder_change(old_cwd: str, old_project: str, new_cwd: str, new_project: str) -> str | None:
    """The working directory's change said as the project's, when it is the same place in
    each project ("its working directory is this project's folder"); else None."""
    before, after = inside(old_cwd, old_project), inside(new_cwd, new_project)
    if after is None or before != after:
        return None
    if after == ".":
        return "its working directory is this project's folder"
    return f"its working directory is inside this project's folder ({sanitize_line(after)})"


def resolves_elsewhere(argument: str, old_cwd: str, new_cwd: str) -> bool:
    """Whether an argument unchanged as text names another file now that the working directory
    is another: a relative path (./x, ../x, or a name that is a file or folder there)."""
    if not argument or argument.startswith(("-", "/", "~")) or "=" in argument:
        return False
    if argument.startswith(("./", "../")):
        return True
    return any(os.path.exists(os.path.join(cwd, argument)) for cwd in (old_cwd, new_cwd))


# Runners that find the package they run in the project's node_modules before the registry.
_PACKAGE_RUNNERS = {"npx", "bunx", "pnpx"}
_RUNNER_VERBS = {"npm": "exec", "pnpm": "dlx", "yarn": "dlx", "bun": "x"}
# Folder-only changes: what any launch written relative to the project says in a new one.
_FOLDER_CHANGES = (
    "its working directory is this project's folder",
    "its working directory is inside this project's folder",
    "it is written relative to the project folder",
)


def why_here(executable: str, args: Sequence[str], cwd: str, project: str) -> str:
    """What of this project the launch reads, the reason it asks in each project, in words a
    person checks at a glance: "npx looks in this project's node_modules first"."""
    name = os.path.basename(executable)
    if name in _PACKAGE_RUNNERS or (args and _RUNNER_VERBS.get(name) == args[0]):
        return f"{sanitize_line(name)} looks in this project's node_modules first"
    if "-m" in args and name.startswith("python"):
        return f"{sanitize_line(name)} -m looks for its module in this project's folder first"
    if name == "uv" and args and args[0] == "run":
        return "uv run uses this project's environment and files"
    if "/" in executable and not executable.startswith(("/", "~")):
        return f"it runs {sanitize_line(executable)} from this project's folder"
    for argument in args:
        path = os.path.join(cwd, argument)
        relative = not argument.startswith(("-", "/", "~")) and "=" not in argument
        if relative and os.path.exists(path) and inside(path, project) is not None:
            return f"it reads {sanitize_line(argument)} from this project's folder"
    if inside(cwd, project) is not None:
        return "it starts in this project's folder and may read what is there"
    return "its launch names this project's folder"


def beyond_the_folder(changes: Sequence[str]) -> list[str]:
    """The changes that are more than the move to another project's folder (which every
    launch written relative to the project shows): a program, an argument, a variable."""
    return [change for change in changes if not change.startswith(_FOLDER_CHANGES)]
