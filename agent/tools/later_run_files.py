"""What of the project git or a hook manager runs later, outside any sandbox.

A git hook, and what a hook manager's hook reads, runs at the person's next `git commit`,
`git push` or checkout, with all of their access. So a fenced command (sandbox.py) gets these
read-only, and the file tools (file_tools.py) show a warning in the approval when they change
one. What they are:
- version control's own folders (`.git`, `.hg`, `.svn`) of the project and of every repository
  nested in it, found by a bounded walk (`.git` as a folder or as a file: a submodule's or a
  worktree's, pointing at the repository, whose folder is read-only too where it lies in the
  project), and the config files git includes (include.path) that lie in the project;
- the hooks folder git's config names (core.hooksPath) where it lies inside the project, and the
  folder that holds it: husky 9 points hooksPath at `.husky/_`, whose stubs run `.husky/<hook>`;
- by name, at the project's root and every nested repository's: the files and folders the hook
  managers read (pre-commit, lefthook, husky, lint-staged, overcommit, simple-git-hooks) and the
  usual hooks folder `.githooks`.

A read-only mount holds only what exists and is not a link (a mount follows a link, and bwrap
cannot mount on a missing name: it would create it in the project). So `LaterRunWatch` notes
what stands at every name before a fenced command, and after it takes away what the command put
there (`lefthook-local.yml`, which lefthook merges into the team's config, is usually missing),
walking down from the project without following a link (file_writing.remove_entry).
"""

from __future__ import annotations

import contextlib
import os
import stat
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, replace
from pathlib import Path

from agent.messages import ToolResult
from agent.tools.file_writing import FileRefusedError, Target, remove_entry, restore_link
from agent.tools.walk_rules import SKIPPED_DIRS

VCS_FOLDERS = (".git", ".hg", ".svn")
# The walk for nested repositories, breadth first: at most this many folders are read (a large
# monorepo has a few thousand outside its dependency trees; 10,000 of /usr took 0.45 s on a
# loaded two-core machine, 2.8 s with a cold disk cache), and it never enters version control's
# folders, links, or trees of installed dependencies and caches (walk_rules.py's and a few
# more), where a repository is nobody's working copy.
WALK_FOLDERS = 10_000
# Nested repositories found by a walk in this process, per project (see repository_roots).
_KNOWN_ROOTS: dict[Path, set[Path]] = {}
_INCLUDE_DEPTH = 5  # git's own limit is 10; a config including itself ends here
NOT_WALKED = SKIPPED_DIRS | {".nox", "target", ".gradle", ".terraform"}

_LEFTHOOK = tuple(
    f"{folder}{dot}lefthook{local}.{extension}"
    for folder, dot in (("", ""), ("", "."), (".config/", ""))
    for local in ("", "-local")
    for extension in ("yml", "yaml", "json", "jsonc", "toml")
)
_HUSKY_4 = (".huskyrc", ".huskyrc.json", ".huskyrc.js", ".huskyrc.yaml", ".huskyrc.yml")
_LINT_STAGED = (
    *(f".lintstagedrc{end}" for end in ("", ".json", ".yaml", ".yml", ".js", ".cjs", ".mjs")),
    *(f"lint-staged.config.{end}" for end in ("js", "cjs", "mjs")),
)
_SIMPLE_GIT_HOOKS = tuple(
    f"{dot}simple-git-hooks.{end}" for dot in ("", ".") for end in ("json", "js", "cjs", "mjs")
)
# What a hook manager reads at a repository's root, and whose it is (the hooks it installs
# run it at the next commit, push or checkout).
_GROUPS: tuple[tuple[tuple[str, ...], str], ...] = (
    ((".pre-commit-config.yaml", ".pre-commit-config.yml"), "pre-commit's configuration"),
    ((".pre-commit-hooks.yaml",), "pre-commit's hook definitions"),
    (_LEFTHOOK, "lefthook's configuration"),
    ((".lefthook", ".lefthook-local"), "lefthook's scripts"),
    ((".husky",), "husky's hooks"),
    ((*_HUSKY_4, "husky.config.js"), "husky's configuration"),
    (_LINT_STAGED, "lint-staged's configuration, which the hooks run"),
    ((".overcommit.yml",), "overcommit's configuration"),
    (_SIMPLE_GIT_HOOKS, "simple-git-hooks' configuration"),
    ((".githooks",), "a git hooks folder"),
)
BY_NAME: dict[str, str] = {name: why for names, why in _GROUPS for name in names}


@dataclass(frozen=True)
class LaterRun:
    """A file or folder of the project that git or a hook manager runs later (it may not exist)."""

    path: Path  # under the project, by the name git or the tool reads (not resolved)
    why: str  # whose it is, for the approval: "lefthook's configuration"


def later_run_files(project: Path, roots: list[Path] | None = None) -> list[LaterRun]:
    """Every such file and folder of the project, existing or not, each once (`roots`: the
    repositories found already, else walked for)."""
    found: dict[Path, LaterRun] = {}
    roots = repository_roots(project) if roots is None else roots
    for root in roots:
        for name in VCS_FOLDERS:
            found.setdefault(root / name, LaterRun(root / name, "version control's own folder"))
        for relative, why in BY_NAME.items():
            found.setdefault(root / relative, LaterRun(root / relative, why))
    for folder, why in _hook_folders(project, roots):
        found.setdefault(folder, LaterRun(folder, why))
    for root in roots:
        # A `.git` file's repository, and a config file git is told to include, may lie
        # elsewhere in the project: its hooks and config run programs as the `.git` folder's do.
        for folder in git_folders(root) or ():
            found.setdefault(folder, LaterRun(folder, "a repository's own folder (gitdir)"))
        for config in git_configs(root):
            found.setdefault(config, LaterRun(config, "a config file git reads"))
    # A hook that is a link (`ln -s ../../scripts/pre-commit .git/hooks/pre-commit`) runs
    # what it links to: that file is the hook, wherever in the project it lies.
    for folder in hook_folders(project, roots):
        for hook, target in _linked_hooks(folder):
            why = f"what the git hook {hook.name} links to, which git runs"
            found.setdefault(target, LaterRun(target, why))
    return [item for path, item in found.items() if _inside(project, path)]


def hook_folders(project: Path, roots: list[Path]) -> list[Path]:
    """The folders git runs hooks from: each repository's `hooks`, and core.hooksPath's."""
    above = _enclosing_root(project)  # its hooks may run what lies in the project too
    repositories = [*roots, *([above] if above is not None else [])]
    folders = [found[1] / "hooks" for root in repositories if (found := git_folders(root))]
    return folders + [folder for folder, _ in _hook_folders(project, roots)]


def _shared_hooks(project: Path, roots: list[Path]) -> dict[Path, bytes]:
    """The hooks that are one file with another name (a hard link: `ln scripts/pre-commit
    .git/hooks/pre-commit`), and what each holds: a mount holds the name, not the file, so a
    command could write the hook through the other name."""
    shared: dict[Path, bytes] = {}
    for folder in hook_folders(project, roots):
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            try:
                info = entry.stat(follow_symlinks=False)
                if stat.S_ISREG(info.st_mode) and info.st_nlink > 1:
                    shared[Path(entry.path)] = Path(entry.path).read_bytes()
            except OSError:
                continue
    return shared


def _linked_hooks(folder: Path) -> list[tuple[Path, Path]]:
    """The links in a hooks folder, with the real path each leads to."""
    try:
        entries = list(os.scandir(folder))
    except OSError:
        return []
    return [
        (Path(entry.path), Path(os.path.realpath(entry.path)))
        for entry in entries
        if entry.is_symlink()
    ]


def _inside(project: Path, path: Path) -> bool:
    return project in path.parents


def read_only_in_project(project: Path) -> list[Path]:
    """What of those exists and can be mounted read-only: by real path, inside the project,
    each once (a link is mounted at its target, which holds what git reads)."""
    shown: dict[Path, None] = {}
    for item in later_run_files(project):
        if not item.path.exists():
            continue
        real = Path(os.path.realpath(item.path))
        # Once each; not what lies in a folder already shown read-only (`.git/config`).
        if _inside(project, real) and not any(folder in shown for folder in real.parents):
            shown[real] = None
    return list(shown)


def later_run_reason(project: Path, path: Path) -> str | None:
    """Why `path` (under the project, resolved) runs later: whose it is, or None."""
    for item in later_run_files(project):
        real = Path(os.path.realpath(item.path))
        if path in (item.path, real) or item.path in path.parents or real in path.parents:
            return item.why
    return None


def repository_roots(project: Path) -> list[Path]:
    """The project and every folder below it that holds a `.git` (folder or file): those a
    walk of at most WALK_FOLDERS folders finds (no link followed, NOT_WALKED skipped), and
    those found before in this process that still hold one: a command that makes thousands of
    folders cannot push a repository found earlier out of the walk's reach."""
    return _walk(project)[0]


def _walk(project: Path) -> tuple[list[Path], bool]:
    """The repositories, and whether the walk stopped at its bound."""
    roots = [project]
    waiting: deque[Path] = deque([project])
    read = 0
    while waiting and read < WALK_FOLDERS:
        folder = waiting.popleft()
        read += 1
        try:
            entries = list(os.scandir(folder))
        except OSError:
            continue
        for entry in entries:
            if entry.name == ".git" and folder != project:
                roots.append(folder)
            if entry.name not in NOT_WALKED and entry.is_dir(follow_symlinks=False):
                waiting.append(Path(entry.path))
    known = _KNOWN_ROOTS.setdefault(project, set())
    known.update(roots[1:])
    roots += sorted(root for root in known - set(roots) if os.path.lexists(root / ".git"))
    return roots, bool(waiting)


def _hook_folders(project: Path, roots: list[Path]) -> list[tuple[Path, str]]:
    """The hooks folders git's config names inside the project, for the project (or the
    repository it lies in) and each nested repository (`roots`), with the folders that hold
    them."""
    found: list[tuple[Path, str]] = []
    above = _enclosing_root(project)
    for root in ([above] if above is not None else []) + roots[1:] + [project]:
        hooks = _hooks_path(root)
        if hooks is None:
            continue
        folder = Path(os.path.normpath(root / os.path.expanduser(hooks)))
        why = f"the hooks folder git's config names (core.hooksPath {hooks})"
        if folder != project and project in folder.parents:
            found.append((folder, why))
        # husky's stubs in `.husky/_` run `.husky/<hook>`: the folder holding them is hooks too.
        holder = folder.parent
        if holder not in (root, project) and project in holder.parents:
            found.append((holder, why))
    return found


def _enclosing_root(project: Path) -> Path | None:
    """The repository the project lies in, when its root is above the project."""
    for folder in project.parents:
        if (folder / ".git").exists():
            return folder
    return None


def _hooks_path(root: Path) -> str | None:
    """core.hooksPath for the repository at `root`: its own config over the person's."""
    value = None
    for config in git_configs(root):
        found = _config_values(config, lambda section: section == "core", "hookspath")
        value = (found[-1] if found else None) or value
    return value


def git_configs(root: Path) -> list[Path]:
    """The config files git reads for the repository at `root`, in order (the last wins): the
    system's, the person's, the repository's and its worktree's, each followed by the files
    it includes (include.path, and includeIf's whatever its condition)."""
    home = Path.home()
    xdg = Path(os.environ.get("XDG_CONFIG_HOME") or home / ".config")
    configs = [Path("/etc/gitconfig"), xdg / "git" / "config", home / ".gitconfig"]
    folders = git_folders(root)
    if folders:
        folder, common = folders
        configs += [common / "config", folder / "config.worktree"]
    found: list[Path] = []
    for config in configs:
        _with_includes(config, found, depth=0)
    return found


def _with_includes(config: Path, found: list[Path], depth: int) -> None:
    if config in found or depth > _INCLUDE_DEPTH:
        return
    found.append(config)
    for value in _config_values(config, _includes, "path"):
        included = Path(os.path.expanduser(value))
        _with_includes(Path(os.path.normpath(config.parent / included)), found, depth + 1)


def _includes(section: str) -> bool:
    return section == "include" or section.startswith("includeif")


def git_folders(root: Path) -> tuple[Path, Path] | None:
    """The repository's own folder (`.git`, or where a `.git` file's `gitdir:` points) and its
    common folder (a worktree's `commondir`); None: no repository there."""
    git = root / ".git"
    folder = git
    if git.is_file():
        try:
            line = git.read_text(encoding="utf-8", errors="replace").strip()
        except OSError:
            return None
        if not line.startswith("gitdir:"):
            return None
        folder = Path(os.path.normpath(root / line.removeprefix("gitdir:").strip()))
    elif not git.is_dir():
        return None
    common = folder
    with contextlib.suppress(OSError):
        common = Path(os.path.normpath(folder / (folder / "commondir").read_text().strip()))
    return folder, common


def _config_values(config: Path, accept: Callable[[str], bool], key: str) -> list[str]:
    """The values of `key` in the sections `accept` takes, of a git config file read plainly
    (no git is run to read it)."""
    try:
        text = config.read_text(encoding="utf-8", errors="replace")
    except OSError:
        return []
    current, values = "", []
    for raw in text.splitlines():
        line = raw.strip()
        if line.startswith("["):
            current = line.strip("[]").strip().lower()
        elif accept(current) and "=" in line:
            name, found = line.split("=", 1)
            if name.strip().lower() == key:
                values.append(found.strip().strip('"'))
    return [value for value in values if value]


@dataclass(frozen=True)
class _Seen:
    """What stood at a name: its type and identity, and a link's target."""

    kind: int  # stat.S_IFMT; 0: nothing
    identity: tuple[int, int] = (0, 0)
    link: str | None = None
    behind: tuple[int, int] = (0, 0)  # a link's: the identity of what it leads to; (0, 0): none


class LaterRunWatch:
    """What stands at every later-run name before a fenced command; afterwards, what the command
    put in its place (a missing name made, a link replaced, a folder moved away and made again)
    is taken away, and a link that was there put back. A repository the command made (`git
    init`, `git clone`) is its work and stays, but is said: its hooks and config are what the
    command wrote; but not one made at the root of a project that lies in a repository: git,
    run in the project, would use it instead of that one."""

    def __init__(self, project: Path) -> None:
        self.project = project
        self.roots, self.cut = _walk(project)
        # The repository git uses in the project when the project has none of its own: a
        # `.git` made at the project's root would take every git command there over.
        self.enclosing = _enclosing_root(project)
        found = later_run_files(project, self.roots)
        self.shared = _shared_hooks(project, self.roots)
        self.before = {item.path: _seen(item.path) for item in found}
        if self.enclosing is not None:
            # A folder holding HEAD, objects/ and refs/ is a (bare) repository to git too, and
            # its config runs programs (core.pager at the next `git log`): HEAD is what it needs.
            head = project / "HEAD"
            self.before.setdefault(head, _seen(head))
        # The folders on the way to those names: a command that makes one a link puts what it
        # wants at every name below it (`.config` -> `evil`: `.config/lefthook.yml`).
        self.on_the_way = {
            folder: _seen(folder)
            for item in found
            for folder in item.path.parents
            if project in folder.parents
        }

    def take_back(self) -> tuple[list[str], list[str]]:
        """Undo what changed at those names: a line for each; and the repositories made."""
        lines: list[str] = []
        # Links made on the way first, shallowest first: below them, the names are as before.
        for folder in sorted(self.on_the_way, key=lambda path: len(path.parts)):
            before, now = self.on_the_way[folder], _seen(folder)
            if now.link is not None and now.link != before.link:
                lines.append(self._put_back(folder, before, now))
        for hook, held in self.shared.items():
            lines.extend(_rewritten(hook, held))
        made = [root for root in repository_roots(self.project) if root not in self.roots]
        for path, before in self.before.items():
            now = _seen(path)
            if now.link is not None and now.link == before.link and now.behind != before.behind:
                # The link is as it was; what it leads to was made (or swapped) by the command.
                lines.extend(self._behind_link(path, now))
                continue
            if now == before or (now.kind == 0 and before.link is None):
                continue
            if (path.name in VCS_FOLDERS or path.name == "HEAD") and before.kind == 0:
                if path.parent == self.project and self.enclosing is not None:
                    why = f"git, run in the project, would use it, not the one at {self.enclosing}"
                    lines.append(self._put_back(path, before, now, why))
                    continue
                made.append(path.parent)
                continue
            lines.append(self._put_back(path, before, now))
        shown = [root.relative_to(self.project).as_posix() or "." for root in made]
        return lines, [f"{folder}/" if folder != "." else "the project" for folder in shown]

    def _put_back(
        self,
        path: Path,
        before: _Seen,
        now: _Seen,
        why: str = "git or a hook manager would run it later",
    ) -> str:
        relative = path.relative_to(self.project).as_posix()
        target = Target(self.project, tuple(relative.split("/")))
        # Through a link on the way that was there before (the person's: `.config` ->
        # `dotfiles/config`), what git reads is the link's target: taken away there, when it is
        # in the project (reached again without following a link); never outside it.
        real = Path(os.path.realpath(path.parent)) / path.name
        if real != path and _inside(self.project, real):
            target = Target(self.project, real.relative_to(self.project).parts)
        try:
            removed = now.kind != 0 and remove_entry(target)
            if before.link is not None:
                restore_link(target, before.link)
        except (FileRefusedError, OSError) as error:
            return f"{relative}: changed, and could not be put back ({error})"
        what = "removed" if removed else ""
        if before.link is not None:
            what = f"{what}, the link put back" if what else "the link put back"
        return f"{relative}: {what} ({why})"

    def _behind_link(self, path: Path, now: _Seen) -> list[str]:
        """Take away what a link unchanged by the command now leads to, in the project."""
        real = Path(os.path.realpath(path))
        if now.behind == (0, 0) or not _inside(self.project, real):
            return []
        relative = real.relative_to(self.project)
        try:
            removed = remove_entry(Target(self.project, relative.parts))
        except (FileRefusedError, OSError) as error:
            return [f"{relative.as_posix()}: changed, and could not be put back ({error})"]
        shown = path.relative_to(self.project).as_posix()
        return [f"{relative.as_posix()}: removed (the link {shown} leads to it; git or a hook "
                "manager would run it later)"] if removed else []  # fmt: skip

    def noted(self, result: ToolResult) -> ToolResult:
        """The command's result, with what was taken back, and the repositories made, said."""
        lines, made = self.take_back()
        said = []
        if lines:
            head = "The command changed what git or a hook manager runs later, outside any sandbox"
            said += ["", f"{head}; that was undone:", *(f"  {line}" for line in lines)]
        if made:
            said += [
                "",
                f"The command made a git repository ({', '.join(made)}): its hooks and config "
                "are what the command wrote, and git runs them when it is used there. Look at "
                ".git/hooks and .git/config before using git in it.",
            ]
        if self.cut:
            said += [
                "",
                f"(Nested repositories were looked for in the first {WALK_FOLDERS:,} folders of "
                "the project only; the .git folders of any further down were writable.)",
            ]
        return replace(result, text="\n".join([result.text, *said])) if said else result


def _rewritten(hook: Path, held: bytes) -> list[str]:
    """The hard-linked hook given back what it held, when the command changed it: through its
    own name, by descriptor, never a link (the command cannot change that name: it lies in
    the hooks folder, read-only to it)."""
    try:
        fd = os.open(hook, os.O_RDWR | os.O_NOFOLLOW | os.O_NONBLOCK)
    except OSError as error:
        return [f"{hook}: could not be checked ({error.strerror or error})"]
    try:
        with os.fdopen(os.dup(fd), "r+b") as handle:
            if handle.read() == held:
                return []
            handle.seek(0)
            handle.write(held)
            handle.truncate()
    finally:
        os.close(fd)
    return [
        f"{hook}: changed through another name of the same file (a hard link); what it held "
        "put back (git runs it later)"
    ]


def _seen(path: Path) -> _Seen:
    try:
        info = path.lstat()
    except OSError:
        return _Seen(0)
    kind = stat.S_IFMT(info.st_mode)
    link, behind = None, (0, 0)
    if stat.S_ISLNK(info.st_mode):
        try:
            link = os.readlink(path)
        except OSError:
            link = ""
        with contextlib.suppress(OSError):
            followed = path.stat()
            behind = (followed.st_dev, followed.st_ino)
    return _Seen(kind, (info.st_dev, info.st_ino), link, behind)
