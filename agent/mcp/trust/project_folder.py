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
