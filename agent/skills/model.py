"""What a discovered skill is: the shared vocabulary of the skills package. No I/O here."""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

from agent.tools.pinned_folder import FolderPin

# "server": a skill an MCP server serves (skills/served.py), named `server:skill`, lowest of
# all: it never hides a skill of this machine, whatever its name.
Scope = Literal["server", "bundled", "user", "project"]
SCOPE_PRECEDENCE: tuple[Scope, ...] = ("server", "bundled", "user", "project")  # lowest first
Level = Literal["warning", "error"]


# How a frontmatter flag (`disable-model-invocation`) reads as true or false, in a SKILL.md
# (parse.py) or in a server's listing (served.py), which must agree.
FLAG_TRUE = frozenset({"true", "yes", "on"})
FLAG_FALSE = frozenset({"false", "no", "off"})


@dataclass(frozen=True)
class Diagnostic:
    """One thing wrong with a SKILL.md: a warning (loaded anyway) or an error (skipped)."""

    level: Level
    message: str

    def __str__(self) -> str:
        return f"{self.level}: {self.message}"


@dataclass(frozen=True)
class Skill:
    """A usable skill: its frontmatter, its body (loaded on activation) and where it lives."""

    name: str  # as declared in the frontmatter (NFKC-normalised)
    description: str
    scope: Scope
    path: Path  # the SKILL.md file
    body: str  # everything after the frontmatter
    content_sha256: str  # of the whole SKILL.md bytes: trust fingerprints and change checks
    frontmatter: dict[str, Any] = field(default_factory=dict)
    disable_model_invocation: bool = False
    diagnostics: tuple[Diagnostic, ...] = ()
    uri: str | None = None  # a served skill's SKILL.md (skill://...); its `path` is not a file
    # The folder SKILL.md was read from, pinned when found (agent.tools.pinned_folder): what
    # is trusted and activated is that folder, wherever its name leads later. None for a
    # served skill, and for one built without discovery (pinned when activated).
    folder: FolderPin | None = field(default=None, compare=False, repr=False)

    @property
    def directory(self) -> Path:
        return self.path.parent

    @property
    def served(self) -> bool:
        """Whether an MCP server serves this skill (its files are resources, not files)."""
        return self.uri is not None

    @property
    def location(self) -> str:
        """Where the skill is: its SKILL.md path, or a served skill's URI."""
        return self.uri if self.uri is not None else str(self.path)


@dataclass(frozen=True)
class SkippedSkill:
    """A SKILL.md that could not be used, and why."""

    path: Path
    scope: Scope
    diagnostics: tuple[Diagnostic, ...]


@dataclass(frozen=True)
class Shadowing:
    """A skill of a higher scope hiding one of the same name in a lower scope."""

    winner: Skill
    hidden: Skill

    def note(self) -> str:
        return (
            f"skill {self.winner.name!r} ({self.winner.scope}, {self.winner.path}) shadows the "
            f"{self.hidden.scope} skill of the same name ({self.hidden.path})"
        )


@dataclass(frozen=True)
class Discovery:
    """Everything found: the effective skills by name, what was shadowed, what was skipped."""

    skills: tuple[Skill, ...] = ()
    shadowed: tuple[Shadowing, ...] = ()
    skipped: tuple[SkippedSkill, ...] = ()

    def find(self, name: str) -> Skill | None:
        """The effective skill called `name` (compared after NFKC normalisation)."""
        from agent.skills.names import skill_key

        wanted = skill_key(name)
        return next((s for s in self.skills if skill_key(s.name) == wanted), None)
