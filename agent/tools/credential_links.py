"""Hard links to credential files: a file of the project that is another name of one of the
home's credential files, of agent's own files, or of the project's own by name (`.env`).

A hard link has no target to resolve: `docs/notes.txt` linked to ~/.aws/credentials is that
file under an innocent name, and a token file holds no private key for the content rule
(agent.tools.credential_files) to see. A person's own tools make such links (`cp -al`, backup
and dotfiles tools that link instead of copying), and so can another user of a shared machine
for a file they can read. A file with more than one link (st_nlink > 1, rare outside package
stores) is compared by (st_dev, st_ino) with the credential files that exist: in the home, those
the rules name (~/.netrc, every file in ~/.ssh, ~/.aws, ~/.config/gh, ..., and the keys lying
directly in the home, and what else the sandbox hides there: other agents' logins, browser
profiles, shell histories), and every file of agent's own folders (its
OAuth token store, settings, trust records, sessions), and the project's own credential files
by name (`docs/env.txt` linked to `.env`, which the name rules refuse and the content rule
cannot). They are found once per call, and only
when such a file is met; each folder's walk is bounded and goes a level at a time (a big
~/.kube cache is not a reason to be slow, nor a big sessions folder to miss the token store
beside it).

Only the standard library and the credential rules are imported: search_files' child process
uses it.
"""

from __future__ import annotations

import os
from collections.abc import Sequence
from pathlib import Path

from agent.tools.credential_files import (
    CREDENTIAL_FILES,
    CREDENTIAL_FOLDERS,
    CREDENTIAL_PATHS,
    credential_rule,
)
from agent.tools.walk_rules import SKIPPED_DIRS

# Beyond the credential files the file tools refuse by name: what else in a home holds sessions,
# tokens or a person's history, which a command has no business reading (the model would see
# it).
HIDDEN_HOME_PATHS = (
    (".docker",),  # Docker Desktop's and rootless Docker's sockets, registry tokens
    (".claude",), (".codex",), (".gemini",), (".config", "github-copilot"),  # other agents' logins
    (".mozilla",), (".thunderbird",), (".config", "google-chrome"), (".config", "chromium"),
    (".config", "BraveSoftware"),  # browsers' cookies
    (".local", "share", "keyrings"), (".config", "Code", "User", "globalStorage"),
    (".bash_history",), (".zsh_history",), (".python_history",), (".psql_history",),
    (".mysql_history",), (".node_repl_history",), (".lesshst",), (".viminfo",),
)  # fmt: skip
# (The sandbox hides them from a command; the file tools refuse a hard link to one.)
# Hidden only directly in the home (home_key_files says why): keys by the names people save them.
HOME_KEY_EXTENSIONS = (".pem", ".key")
_MAX_DEPTH = 4  # levels of a folder's walk: ~/.ssh/keys/work/id_rsa is found
_MAX_ENTRIES = 1000  # looked at in each folder's walk (a big ~/.kube cache): a few milliseconds
_PROJECT_ENTRIES = 200_000  # of the project's walk for the sandbox, when it must look at all


def home_key_files(home: Path) -> list[Path]:
    """The files lying directly in the home that the credential rules name in any case or by a
    pattern (`.S3CFG`, `backup.p12`, `client_secret_1.json`, `.env`), and every `.pem` and
    `.key` there. The sandbox hides by path, before the command runs: it cannot read every
    file of the home for a key, and a private key's content is no path. A `.pem` or `.key` in
    the home itself is a downloaded key (an EC2 key pair, a TLS key) far more often than a
    certificate; deeper down, in projects, they stay visible (tests, certificates)."""
    try:
        entries = list(os.scandir(home))
    except OSError:
        return []
    found = []
    for entry in entries:
        try:
            if entry.is_dir():  # credential folders are hidden by name above; a `.env` venv stays
                continue
        except OSError:
            continue
        name = entry.name.casefold()
        if name.endswith(HOME_KEY_EXTENSIONS) or credential_rule((entry.name,)) is not None:
            found.append(Path(entry.path))
    return found


class CredentialLinks:
    """Which credential file elsewhere a file of the project is a hard link to, for one call:
    the known files are found when first asked about a file with more than one link."""

    def __init__(
        self,
        private: Sequence[Path | str],
        home: Path | None = None,
        project: Path | str | None = None,
    ) -> None:
        self._home = home  # found when needed: most calls never look
        self._private = private
        self._project = project
        self._known: dict[tuple[int, int], str] | None = None

    def linked_to(self, status: os.stat_result) -> str | None:
        """The credential file (as `~/.aws/credentials`, or a full path outside the home) that
        the file of `status` is another name of, else None."""
        if status.st_nlink < 2:
            return None
        if self._known is None:
            finder = _Finder(Path.home() if self._home is None else self._home)
            self._known = finder.known([Path(folder) for folder in self._private])
            if self._project is not None:
                finder.project_credentials(Path(self._project))
        return self._known.get((status.st_dev, status.st_ino))


def linked_names_in(project: Path, home: Path, private: Sequence[Path]) -> list[Path]:
    """The files of `project` that are hard links to a credential file of the home or of
    agent's folders, for the sandbox, which hides by path. The project is walked only when
    one of those files has another name somewhere (st_nlink > 1: rare), without following a
    link, within _PROJECT_ENTRIES; on a bigger tree a name past the bound stays visible to the
    command (whose every run the person approves)."""
    finder = _Finder(home)
    finder.known(private)
    if not finder.linked:
        return []
    found = []
    budget = _PROJECT_ENTRIES
    for folder, _, files in os.walk(project):
        budget -= len(files) + 1
        for name in files:
            path = os.path.join(folder, name)
            try:
                status = os.lstat(path)
            except OSError:
                continue
            if status.st_nlink > 1 and (status.st_dev, status.st_ino) in finder.linked:
                found.append(Path(path))
        if budget < 0:
            break
    return found


class _Finder:
    """The credential files that exist, by (st_dev, st_ino), each with the path to show."""

    def __init__(self, home: Path) -> None:
        self.home = home
        self.found: dict[tuple[int, int], str] = {}
        self.linked: set[tuple[int, int]] = set()  # those with another name somewhere

    def known(self, private: Sequence[Path]) -> dict[tuple[int, int], str]:
        home = self.home
        for path in [*(home / name for name in sorted(CREDENTIAL_FILES)), *home_key_files(home)]:
            self._add(path)
        roots = [home / name for name in sorted(CREDENTIAL_FOLDERS)]
        roots += [home.joinpath(*parts) for parts in sorted(CREDENTIAL_PATHS)]
        roots += [home.joinpath(*parts) for parts in HIDDEN_HOME_PATHS]
        for root in [*roots, *private]:
            self._walk(root)
        return self.found

    def project_credentials(self, project: Path) -> None:
        """The project's own credential files by name (`.env`, `web/.npmrc`, `deploy/.aws/`),
        shown relative to it: the walk of list_files, within _PROJECT_ENTRIES."""
        budget = _PROJECT_ENTRIES
        for folder, folders, files in os.walk(project):
            folders[:] = [name for name in folders if name not in SKIPPED_DIRS]
            budget -= len(files) + 1
            inside = Path(folder).relative_to(project).parts
            for name in files:
                if credential_rule((*inside, name)) is not None:
                    self._add(Path(folder, name), shown="/".join((*inside, name)))
            if budget < 0:
                return

    def _add(self, path: Path, shown: str | None = None) -> None:
        try:
            status = path.stat()  # a link in ~/.ssh to a dotfiles repository: its target
        except (OSError, ValueError):
            return
        self.found.setdefault((status.st_dev, status.st_ino), shown or self._shown(path))
        if status.st_nlink > 1:
            self.linked.add((status.st_dev, status.st_ino))

    def _walk(self, root: Path) -> None:
        """The files of `root` (a folder, or a file itself), a level's files before the next
        level's (the token store beside a big sessions folder), within _MAX_ENTRIES each."""
        try:
            if not root.is_dir():
                self._add(root)
                return
        except (OSError, ValueError):
            return
        budget = _MAX_ENTRIES
        level = [root]
        for _ in range(_MAX_DEPTH):
            deeper: list[Path] = []
            for folder in level:
                try:
                    with os.scandir(folder) as listing:
                        entries = list(listing)
                except OSError:
                    continue
                for entry in entries:
                    budget -= 1
                    if budget < 0:
                        return
                    try:
                        inner = entry.is_dir(follow_symlinks=False)
                    except OSError:
                        continue
                    if inner:
                        deeper.append(Path(entry.path))
                    else:
                        self._add(Path(entry.path))
            level = deeper

    def _shown(self, path: Path) -> str:
        try:
            return "~/" + str(path.relative_to(self.home))
        except ValueError:
            return str(path)
