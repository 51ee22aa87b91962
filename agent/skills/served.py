"""Skills an MCP server serves (the Skills extension, SEP-2640), checked before anything is used.

A server lists each skill as an entry: its SKILL.md URI (`skill://<path>/<name>/SKILL.md`), the
SKILL.md's frontmatter, and every file of the skill with its sha256 digest and size. Only the
listing is fetched until a skill is activated; then its SKILL.md is read once and what was read
is verified (size, digest, then the frontmatter parsed by the same parser as SKILL.md files on
disk and compared field by field with the entry's). Any mismatch refuses the skill, saying
which server, which skill and what differed. A skill is named `server:name` in the catalog, so it
can never pass for a skill of this machine or another server's.

The MCP side is behind `SkillServers` (implemented in chat/, which may import mcp/): this
package never imports mcp/.
"""

from __future__ import annotations

import hashlib
import json
import re
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any, Protocol

from agent.errors import AgentError
from agent.skills.model import FLAG_TRUE, Skill, SkippedSkill
from agent.skills.names import name_problems
from agent.text import plural

SCHEME = "skill://"
SKILL_FILE = "SKILL.md"
MAX_DESCRIPTION_LENGTH = 1024  # the Agent Skills specification's (parse.py warns past it)
MAX_SKILL_FILE_BYTES = 256 * 1024  # a SKILL.md goes whole into the system prompt
MAX_RESOURCE_BYTES = 256 * 1024  # a file read on demand, as read_skill_resource reads files
MAX_FILES = 512  # per skill, the extension's own limit
MAX_TOTAL_BYTES = 16 * 1024 * 1024  # per skill, the extension's own limit
_DIGEST = re.compile(r"sha256:[0-9a-f]{64}")
# A segment of a skill path: no dot segments, separators, escapes, or anything but a name's
# letters (the authority of the URI is one such segment, so no user info, port or host tricks).
_SEGMENT = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")


class ServedSkillError(AgentError):
    """A served skill that cannot be used: its listing or what was read is not what it says."""


@dataclass(frozen=True)
class ServedFile:
    """One file of a served skill, as listed: where it is, its digest and its size."""

    uri: str
    relative: str  # its path inside the skill ("SKILL.md", "references/FORMS.md")
    digest: str  # "sha256:<64 hex>"
    size: int


@dataclass(frozen=True)
class ServedSkill:
    """One `skills/list` entry that passed the checks (nothing of it has been read yet)."""

    server: str
    name: str  # the skill's own name: its URI's last segment, equal to the frontmatter's
    uri: str  # its SKILL.md
    frontmatter: Mapping[str, Any]
    files: tuple[ServedFile, ...]  # SKILL.md among them

    @property
    def qualified(self) -> str:
        """The name the model and the person use: `server:name`."""
        return f"{self.server}:{self.name}"

    @property
    def description(self) -> str:
        return str(self.frontmatter.get("description", ""))

    @property
    def digest(self) -> str:
        """sha256 over the skill's URI, its listed frontmatter and every listed file's path,
        digest and size: any change changes it. The frontmatter counts because the catalog
        gives the model the listing's description before any file is read (and verified)."""
        lines = sorted(f"{f.relative}\0{f.digest}\0{f.size}" for f in self.files)
        head = json.dumps([self.uri, self.frontmatter], sort_keys=True, ensure_ascii=True)
        return hashlib.sha256("\n".join([head, *lines]).encode("utf-8")).hexdigest()

    @property
    def skill_file(self) -> ServedFile:
        return next(f for f in self.files if f.uri == self.uri)

    def file(self, relative: str) -> ServedFile | None:
        """The listed file at `relative` inside the skill (only listed files are ever read)."""
        return next((f for f in self.files if f.relative == relative), None)

    def listed_skill(self) -> Skill:
        """The skill as the catalog offers it: name and description; no body until read."""
        return Skill(
            name=self.qualified,
            description=self.description,
            scope="server",
            path=_placeholder_path(self.server, self.name),
            body="",
            content_sha256=self.digest,
            frontmatter=dict(self.frontmatter),
            # Read from the listing, as the catalog is built before any file is read; the
            # file's own frontmatter must then say the same (frontmatter_differences).
            disable_model_invocation=_listed_flag(self.frontmatter.get("disable-model-invocation")),
            uri=self.uri,
        )


@dataclass(frozen=True)
class ServerSkills:
    """One server's listing: the skills that passed the checks and why others did not."""

    server: str
    identity: str  # what the server is (its URL or launch): trust binds to it as well
    skills: tuple[ServedSkill, ...]
    problems: tuple[str, ...] = ()


class SkillServers(Protocol):
    """The MCP servers' side of served skills, as the skills package needs it."""

    async def listings(self) -> list[ServerSkills]:
        """Each running server's skills (those declaring the extension), listed, not read."""
        ...

    async def read(self, server: str, uri: str) -> bytes:
        """One resource's bytes, as the server sent them (masked of its secrets); raises
        AgentError when it cannot be read or is not one part."""
        ...


def _placeholder_path(server: str, name: str) -> Path:
    """A served skill has no file; `Skill.path` still names it (never opened: `uri` says
    where it is, and every reader checks `served` first)."""
    return Path(f"mcp-server-{server}") / name / SKILL_FILE


def parse_listing(server: str, identity: str, entries: Sequence[Any]) -> ServerSkills:
    """The entries that are usable skills, and a problem line for each that is not."""
    skills: list[ServedSkill] = []
    problems: list[str] = []
    seen: set[str] = set()
    for entry in entries:
        try:
            skill = parse_entry(server, entry)
        except ServedSkillError as error:
            problems.append(str(error))
            continue
        if skill.name in seen:
            problems.append(_said(server, skill.name, "is listed twice; only the first is used"))
            continue
        seen.add(skill.name)
        skills.append(skill)
    return ServerSkills(server, identity, tuple(skills), tuple(problems))


def _said(server: str, skill: str, what: str) -> str:
    return f"MCP server {server!r}: skill {skill!r} {what}"


def parse_entry(server: str, entry: Any) -> ServedSkill:
    """One `skills/list` entry, checked; ServedSkillError says what is wrong with it."""
    if not isinstance(entry, dict):
        raise ServedSkillError(f"MCP server {server!r}: a skills/list entry is not an object")
    uri = entry.get("uri")
    if not isinstance(uri, str):
        raise ServedSkillError(f"MCP server {server!r}: a skills/list entry has no uri")
    segments = skill_path(uri)
    if segments is None or segments[-1] != SKILL_FILE or len(segments) < 2:
        raise ServedSkillError(
            f"MCP server {server!r}: skill URI {uri!r} is not skill://<path>/<name>/SKILL.md "
            "(plain names only: no '.', '..', '%', '\\\\', empty segments or other schemes)"
        )
    name = segments[-2]
    if problems := name_problems(name):
        raise ServedSkillError(_said(server, name, f"is not a valid skill name: {problems[0]}"))
    frontmatter = entry.get("frontmatter")
    if not isinstance(frontmatter, dict):
        raise ServedSkillError(_said(server, name, "has no frontmatter object in its entry"))
    try:  # its digest covers it (see ServedSkill.digest): it must serialise
        json.dumps(frontmatter, sort_keys=True)
    except (RecursionError, TypeError, ValueError):
        raise ServedSkillError(
            _said(server, name, "has a frontmatter that is not plain JSON")
        ) from None
    if frontmatter.get("name") != name:
        raise ServedSkillError(
            _said(server, name, f"says its name is {frontmatter.get('name')!r} in its frontmatter")
        )
    description = frontmatter.get("description")
    if not isinstance(description, str) or not description.strip():
        raise ServedSkillError(_said(server, name, "has no description in its frontmatter"))
    if len(description) > MAX_DESCRIPTION_LENGTH:
        raise ServedSkillError(
            _said(server, name, f"has a description over {MAX_DESCRIPTION_LENGTH} characters")
        )
    files = _files(server, name, uri[: -len(SKILL_FILE)], entry.get("resources"))
    if not any(f.uri == uri for f in files):
        raise ServedSkillError(_said(server, name, f"does not list its {SKILL_FILE} with a digest"))
    return ServedSkill(server, name, uri, dict(frontmatter), files)


def skill_path(uri: str) -> list[str] | None:
    """The segments of a skill:// URI, or None when it is not a plain one."""
    if not uri.startswith(SCHEME):
        return None
    segments = uri[len(SCHEME) :].split("/")
    if not all(_SEGMENT.fullmatch(s) and s not in (".", "..") for s in segments):
        return None
    return segments


def _files(server: str, name: str, base: str, listed: Any) -> tuple[ServedFile, ...]:
    if not isinstance(listed, list):
        raise ServedSkillError(
            _said(server, name, "lists no files with digests, so nothing it serves can be checked")
        )
    if len(listed) > MAX_FILES:
        raise ServedSkillError(_said(server, name, f"lists more than {MAX_FILES} files"))
    files: list[ServedFile] = []
    for item in listed:
        uri = item.get("uri") if isinstance(item, dict) else None
        if not isinstance(uri, str) or not uri.startswith(base) or skill_path(uri) is None:
            raise ServedSkillError(
                _said(server, name, f"lists a file outside the skill: {str(uri)[:200]!r}")
            )
        digest, size = item.get("digest"), item.get("size")
        if not isinstance(digest, str) or not _DIGEST.fullmatch(digest):
            raise ServedSkillError(_said(server, name, f"lists {uri!r} without a sha256 digest"))
        if not isinstance(size, int) or isinstance(size, bool) or size < 0:
            raise ServedSkillError(_said(server, name, f"lists {uri!r} without a size"))
        files.append(ServedFile(uri, uri[len(base) :], digest, size))
    if len({f.uri for f in files}) != len(files):
        raise ServedSkillError(_said(server, name, "lists a file twice"))
    total = sum(f.size for f in files)
    if total > MAX_TOTAL_BYTES:
        raise ServedSkillError(
            _said(server, name, f"is {total:,} bytes in all, over {MAX_TOTAL_BYTES:,}")
        )
    return tuple(files)


def verified(skill: ServedSkill, file: ServedFile, data: bytes) -> bytes:
    """`data` when it is exactly the listed file (size, then digest); else ServedSkillError."""
    if len(data) != file.size:
        raise ServedSkillError(
            _said(
                skill.server,
                skill.qualified,
                f"was refused: {file.relative} is "
                f"{plural(len(data), 'byte')}, but the listing says "
                f"{file.size:,}",
            )
        )
    digest = "sha256:" + hashlib.sha256(data).hexdigest()
    if digest != file.digest:
        raise ServedSkillError(
            _said(
                skill.server,
                skill.qualified,
                f"was refused: {file.relative} does not match its listed digest "
                f"(listed {file.digest[:19]}…, read {digest[:19]}…)",
            )
        )
    return data


def loaded_skill(skill: ServedSkill, data: bytes) -> Skill:
    """The skill from its SKILL.md as read: verified, parsed as files on disk are, and its
    frontmatter identical to the listing's; ServedSkillError says what differed."""
    file = skill.skill_file
    if file.size > MAX_SKILL_FILE_BYTES:
        raise ServedSkillError(
            _said(
                skill.server,
                skill.qualified,
                f"was refused: its {SKILL_FILE} is {file.size:,} bytes, over "
                f"{MAX_SKILL_FILE_BYTES:,}",
            )
        )
    verified(skill, file, data)
    from agent.skills.parse import parse_skill_bytes  # yaml: only once a skill is activated

    parsed = parse_skill_bytes(data, _placeholder_path(skill.server, skill.name), "server")
    if isinstance(parsed, SkippedSkill):
        reasons = "; ".join(d.message for d in parsed.diagnostics if d.level == "error")
        raise ServedSkillError(
            _said(skill.server, skill.qualified, f"was refused: its {SKILL_FILE} {reasons}")
        )
    differing = frontmatter_differences(skill.frontmatter, parsed.frontmatter)
    if differing:
        raise ServedSkillError(
            _said(
                skill.server,
                skill.qualified,
                f"was refused: its {SKILL_FILE} frontmatter differs from the listing in "
                f"{', '.join(differing)}",
            )
        )
    listed = skill.listed_skill()
    return Skill(
        name=listed.name,
        description=parsed.description,
        scope="server",
        path=listed.path,
        body=parsed.body,
        content_sha256=hashlib.sha256(data).hexdigest(),
        frontmatter=parsed.frontmatter,
        disable_model_invocation=parsed.disable_model_invocation,
        diagnostics=parsed.diagnostics,
        uri=skill.uri,
    )


def _listed_flag(value: Any) -> bool:
    """A listing's flag as a SKILL.md's would read: JSON's true, or true/yes/on as text."""
    return value is True or (isinstance(value, str) and value.strip().lower() in FLAG_TRUE)


def frontmatter_differences(listed: Mapping[str, Any], parsed: Mapping[str, Any]) -> list[str]:
    """The fields whose values differ (our parser keeps every scalar as text, so the listing's
    JSON numbers and booleans are compared as the text YAML would hold)."""
    keys = sorted({*listed, *parsed})
    return [key for key in keys if _as_text(listed.get(key)) != _as_text(parsed.get(key))]


def _as_text(value: Any) -> Any:
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, int | float):
        return str(value)
    if isinstance(value, list):
        return [_as_text(item) for item in value]
    if isinstance(value, dict):
        return {str(key): _as_text(item) for key, item in value.items()}
    return value
