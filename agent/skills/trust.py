"""Trust of project skills: a project's skills reach the model only after the person agreed.

Recorded in the config home per project path: a fingerprint of the project's skills (names,
SKILL.md and every other file in their folders: see fingerprint.py) with the decision on them,
and per instruction file (AGENTS.md and the like, as read: see instruction_files.py) its label
(its place under the project root) and digest, trusted or declined. Which files are found
depends on the folder a chat starts in, so a file is decided once, whichever folder found it.
One question covers whatever is undecided: the skills when their set is new or changed, and
the files found now that are new or changed. An answer decides what the question listed, in
the chat and in `agent skills trust` alike (SkillTrustStore.question): a no to a new or changed
file never takes back the yes of a file that did not change. A declined set or file stays off
and is not asked about again until it changes; `agent skills trust` with nothing undecided
decides everything found again. The decision binds the folders as hashed for the question
the person saw, not as they are when the answer comes (the time-of-check/time-of-use gap of
a slow answer), and the very folders they were: each skill's folder as pinned when found
(real path and identity, agent.tools.pinned_folder). A skill found later in another folder,
even one holding the same files (its name made a link to a copy, the folder made again), is
asked about again; a record written before folders were pinned vouches by content alone.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import TYPE_CHECKING, Literal, Protocol

from agent.errors import AgentError
from agent.home import atomic_write, config_home, file_lock
from agent.skills.fingerprint import MAX_BYTES, MAX_FILES, SkillDigest, skill_digest
from agent.skills.fingerprint import fingerprint as fingerprint_of
from agent.skills.folder_walk import MAX_DEPTH
from agent.skills.instruction_files import InstructionFile
from agent.skills.model import SCOPE_PRECEDENCE, Skill
from agent.skills.names import skill_key
from agent.tools.pinned_folder import FolderPin

if TYPE_CHECKING:  # its parser loads yaml, which the prompt must not wait for
    from agent.skills.agent_definitions import SubagentDefinition

TRUST_FILE_NAME = "skills-trust.json"
TRUST_VERSION = 1
Decision = Literal["trusted", "declined"]
Status = Literal["none", "trusted", "declined", "ask"]


def digests(skills: Sequence[Skill]) -> dict[str, SkillDigest]:
    """Each skill's digest (SKILL.md and the files of its folder), by name."""
    return {skill.name: skill_digest(skill) for skill in skills}


def fingerprint(skills: Sequence[Skill]) -> str:
    """sha256 over the skills' names and folder digests, independent of order."""
    return _fingerprint(digests(skills))


def _fingerprint(found: Mapping[str, SkillDigest], files: Mapping[str, str] | None = None) -> str:
    skills = fingerprint_of([(name, digest.sha256) for name, digest in found.items()])
    if not files:
        return skills  # what it was before instruction files counted: old records still match
    # Two fixed-length digests, so a skill can never pass for a file (a skill may be named
    # anything, "./AGENTS.md" too).
    files_digest = fingerprint_of(list(files.items()))
    return hashlib.sha256(f"skills {skills}\nfiles {files_digest}\n".encode()).hexdigest()


def file_digests(files: Sequence[InstructionFile]) -> dict[str, str]:
    """Each instruction file's sha256 (of what was read), by its label."""
    return {file.label: file.sha256 for file in files}


@dataclass(frozen=True)
class SkillTrustRequest:
    """What the person is shown: each project skill, and what changed since last time.

    `digests` are the folders as hashed for this question: the decision is recorded for them,
    never for the folders as they are once the person answered (they may have changed while
    the question was open).
    """

    project: Path
    skills: tuple[Skill, ...]
    digests: Mapping[str, SkillDigest]
    instructions: tuple[InstructionFile, ...] = ()  # only the files to decide about
    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    moved: tuple[str, ...] = ()  # of `changed`: in another folder than the one decided about
    asked_before: bool = False
    # Whether the answer decides the skills: not when only files are new or changed (then the
    # skills keep `skills_status`, and `skills` is empty).
    decides_skills: bool = True
    skills_status: Status = "none"
    trusted_before: tuple[str, ...] = ()  # files found now that were trusted already
    # Subagent definitions, each decided on its own like a file (by label and digest): those
    # to decide about, and those found now that were trusted already.
    agents: tuple[SubagentDefinition, ...] = ()
    agents_trusted_before: tuple[str, ...] = ()

    @property
    def over_cap(self) -> tuple[str, ...]:
        """The skills whose folders were too big (or deep) to fingerprint whole."""
        return tuple(name for name, digest in self.digests.items() if digest.over_cap)

    @property
    def files(self) -> dict[str, str]:
        """The instruction files' digests, as read for this question."""
        return file_digests(self.instructions)

    @property
    def agent_digests(self) -> dict[str, str]:
        """The subagent definitions' digests by label, as read for this question."""
        return {definition.label: definition.sha256 for definition in self.agents}

    @property
    def fingerprint(self) -> str:
        """The fingerprint of the skills and instruction files as shown."""
        return _fingerprint(self.digests, self.files)

    @property
    def what(self) -> str:
        """What is asked about: "skills", "instruction files and skills", "instruction files,
        skills and subagent definitions"..."""
        kinds = [
            kind
            for kind, items in (
                ("instruction files", self.instructions),
                ("skills", self.skills),
                ("subagent definitions", self.agents),
            )
            if items
        ]
        if len(kinds) > 2:
            return f"{', '.join(kinds[:-1])} and {kinds[-1]}"
        return " and ".join(kinds) or "skills"

    @property
    def question(self) -> str:
        """The yes/no question of the dialog."""
        return f"Use these {self.what} in this project?"

    def describe(self) -> list[str]:
        """Lines for a dialog: names, descriptions, paths, and the changes."""
        if self.asked_before:
            head = f"The {self.what} of project {self.project} changed since you last decided."
        else:
            head = f"Project {self.project} has {self.what} that would go into the model's prompt."
        lines = [head]
        for label, names in (
            ("new", self.added),
            ("changed", self.changed),
            ("removed", self.removed),
        ):
            if names:
                lines.append(f"  {label}: {', '.join(names)}")
        for file in self.instructions:
            cut = f", the first {len(file.data):,} read" if len(file.data) < file.size else ""
            lines.append(f"  {file.label}: instruction file, {file.size:,} bytes{cut}")
            lines.append(f"      {file.path}")
        if self.moved:
            lines.append(
                f"  in another folder than the one you decided about: {', '.join(self.moved)}"
            )
        if self.trusted_before or self.agents_trusted_before:
            earlier = (*self.trusted_before, *self.agents_trusted_before)
            lines.append(f"  already trusted: {', '.join(earlier)}")
        for skill in self.skills:
            lines.append(f"  {skill.name}: {skill.description}")
            lines.append(f"      {skill.path}")
        for definition in self.agents:
            lines.extend(_agent_lines(definition))
        if self.over_cap:
            lines.append(
                f"  {', '.join(self.over_cap)}: more than {MAX_FILES} files, "
                f"{MAX_BYTES // (1024 * 1024)} MiB or {MAX_DEPTH} folder levels (or a folder "
                "that cannot be listed); later changes past that are not noticed"
            )
        return lines


def _agent_lines(definition: SubagentDefinition) -> list[str]:
    """A subagent definition in the question: its name and description, where it is, what it
    may use and which model it names (its instructions are not drawn: the file is named)."""
    tools = "all the chat's" if definition.tools is None else ", ".join(definition.tools)
    if definition.tools == ():
        tools = "none"
    if definition.denied_tools:
        tools += f" (never: {', '.join(definition.denied_tools)})"
    model = definition.model or "the chat's"
    lines = [
        f"  {definition.name}: subagent: {definition.description}",
        f"      {definition.label}",
        f"      tools: {tools}; model: {model}",
    ]
    if definition.shadows:
        lines.append(f"      replaces {', '.join(definition.shadows)} (of the same name)")
    return lines


class SkillTrustPrompt(Protocol):
    """Asks whether a project's skills may be used; False (or no person) keeps them off."""

    async def confirm(self, request: SkillTrustRequest) -> bool: ...


@dataclass(frozen=True)
class SkillDecision:
    """The project's last decision on its skills: each skill's digest, and its files then."""

    decision: Decision
    skills: Mapping[str, str]
    files: Mapping[str, Mapping[str, list[object]]]


@dataclass(frozen=True)
class _Record:
    decision: Decision  # on the skills
    fingerprint: str  # of the skills
    skills: dict[str, str]  # name -> the skill's digest, to say what changed
    files: dict[str, str]  # trusted instruction files: label -> digest (every yes, united)
    declined_files: dict[str, str] = field(default_factory=dict)  # label -> digest, each no
    # name -> {file: [short digest, size]} of each skill decided: what changed since, by file
    skill_files: dict[str, dict[str, list[object]]] = field(default_factory=dict)
    # name -> the skill's folder as pinned when it was shown (FolderPin.to_json)
    folders: dict[str, dict[str, object]] = field(default_factory=dict)
    # subagent definitions: label -> digest of each trusted, of each declined
    agents: dict[str, str] = field(default_factory=dict)
    declined_agents: dict[str, str] = field(default_factory=dict)


@dataclass(frozen=True)
class ProjectTrust:
    """What is decided about the skills and instruction files found now, and what is not."""

    skills: Status  # the skills' own: none (no project skills), trusted, declined or ask
    trusted_files: tuple[str, ...] = ()  # labels of files found now, trusted as they are
    declined_files: tuple[str, ...] = ()
    undecided_files: tuple[InstructionFile, ...] = ()  # new or changed since decided
    # The project's subagent definitions found now, each on its own like a file (by label).
    trusted_agents: tuple[str, ...] = ()
    declined_agents: tuple[str, ...] = ()
    undecided_agents: tuple[SubagentDefinition, ...] = ()

    @property
    def status(self) -> Status:
        """ask while anything is undecided; else the skills' decision, or the files' and
        definitions' (trusted when any is)."""
        if self.skills == "ask" or self.undecided_files or self.undecided_agents:
            return "ask"
        if self.skills != "none":
            return self.skills
        if self.trusted_files or self.trusted_agents:
            return "trusted"
        return "declined" if self.declined_files or self.declined_agents else "none"


def _assess(
    record: _Record | None,
    skills: Mapping[str, str],
    files: Sequence[InstructionFile],
    moved: Sequence[str] = (),
    agents: Sequence[SubagentDefinition] = (),
) -> ProjectTrust:
    """Each file and subagent definition on its own (by label and digest), the skills as one
    set (`moved`: skills in another folder than the one decided about)."""
    if not skills:
        skill_status: Status = "none"
    elif record is not None and record.skills == dict(skills) and not moved:
        skill_status = record.decision
    else:
        skill_status = "ask"
    trusted = record.files if record else {}
    declined = record.declined_files if record else {}
    yes = record.agents if record else {}
    no = record.declined_agents if record else {}
    return ProjectTrust(
        skill_status,
        tuple(f.label for f in files if trusted.get(f.label) == f.sha256),
        tuple(f.label for f in files if declined.get(f.label) == f.sha256),
        tuple(f for f in files if f.sha256 not in (trusted.get(f.label), declined.get(f.label))),
        tuple(a.label for a in agents if yes.get(a.label) == a.sha256),
        tuple(a.label for a in agents if no.get(a.label) == a.sha256),
        tuple(a for a in agents if a.sha256 not in (yes.get(a.label), no.get(a.label))),
    )


def _decide_each(
    trusted: Mapping[str, str],
    declined: Mapping[str, str],
    asked: Mapping[str, str],
    decision: Decision,
) -> tuple[dict[str, str], dict[str, str]]:
    """The trusted and declined label -> digest maps once `asked` was answered: each label
    asked about moves to the answer's side with the digest shown; the others stay."""
    yes, no = dict(trusted), dict(declined)
    for label, digest in asked.items():
        # A no is about the label's earlier content too: it is not kept trusted either.
        (yes if decision == "trusted" else no)[label] = digest
        (no if decision == "trusted" else yes).pop(label, None)
    return yes, no


def _decided(before: _Record | None, request: SkillTrustRequest, decision: Decision) -> _Record:
    """The record once the person answered `request`: the files it listed join the trusted
    or the declined ones; the skills' decision changes only when it asked about them."""
    trusted, declined = _decide_each(
        before.files if before else {},
        before.declined_files if before else {},
        request.files,
        decision,
    )
    agents, declined_agents = _decide_each(
        before.agents if before else {},
        before.declined_agents if before else {},
        request.agent_digests,
        decision,
    )
    if before is not None and not request.decides_skills:
        return replace(
            before,
            files=trusted,
            declined_files=declined,
            agents=agents,
            declined_agents=declined_agents,
        )
    skills = {name: digest.sha256 for name, digest in request.digests.items()}
    files = {
        name: {file: [short, size] for file, short, size in digest.files}
        for name, digest in request.digests.items()
    }
    folders = {s.name: s.folder.to_json() for s in request.skills if s.folder is not None}
    fingerprint = _fingerprint(request.digests)
    return _Record(
        decision, fingerprint, skills, trusted, declined, files, folders, agents, declined_agents
    )


def _moved(record: _Record | None, skills: Sequence[Skill]) -> tuple[str, ...]:
    """The skills found in another folder than the one the record's decision was about."""
    if record is None:
        return ()
    return tuple(
        skill.name
        for skill in skills
        if skill.folder is not None
        and skill.name in record.folders
        and FolderPin.from_json(record.folders[skill.name]) != skill.folder
    )


class SkillTrustStore:
    """skills-trust.json in the config home: one record per project path."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or config_home() / TRUST_FILE_NAME

    def state(
        self,
        project: Path,
        skills: Sequence[Skill],
        instructions: Sequence[InstructionFile] = (),
        agents: Sequence[SubagentDefinition] = (),
    ) -> ProjectTrust:
        """What is decided about the project's skills, these instruction files and these
        subagent definitions."""
        record = self._load().get(str(project.resolve()))
        found = {name: digest.sha256 for name, digest in digests(skills).items()}
        return _assess(record, found, instructions, _moved(record, skills), agents)

    def status(
        self,
        project: Path,
        skills: Sequence[Skill],
        instructions: Sequence[InstructionFile] = (),
        agents: Sequence[SubagentDefinition] = (),
    ) -> Status:
        """none: no project skills or instruction files; ask: something is undecided; else
        the skills' decision (or, without skills, trusted when any file found is)."""
        return self.state(project, skills, instructions, agents).status

    def review(
        self,
        project: Path,
        skills: Sequence[Skill],
        instructions: Sequence[InstructionFile] = (),
        agents: Sequence[SubagentDefinition] = (),
    ) -> tuple[Status, SkillTrustRequest | None]:
        """The status, and the question when something is undecided (one hashing)."""
        trust, request = self.assess(project, skills, instructions, agents)
        return trust.status, request

    def assess(
        self,
        project: Path,
        skills: Sequence[Skill],
        instructions: Sequence[InstructionFile] = (),
        agents: Sequence[SubagentDefinition] = (),
    ) -> tuple[ProjectTrust, SkillTrustRequest | None]:
        """What is decided, and a question about only what is not (None when nothing is)."""
        record = self._load().get(str(project.resolve()))
        found = digests(skills)
        found_digests = {n: d.sha256 for n, d in found.items()}
        moved = _moved(record, skills)
        trust = _assess(record, found_digests, instructions, moved, agents)
        if trust.status != "ask":
            return trust, None
        asks_skills = trust.skills == "ask"
        request = self._request(
            project,
            skills if asks_skills else (),
            found if asks_skills else {},
            trust.undecided_files,
            record,
            trust.undecided_agents,
        )
        if not asks_skills:
            request = replace(request, decides_skills=False, skills_status=trust.skills)
        return trust, replace(
            request,
            trusted_before=trust.trusted_files,
            agents_trusted_before=trust.trusted_agents,
        )

    def question(
        self,
        project: Path,
        skills: Sequence[Skill],
        instructions: Sequence[InstructionFile] = (),
        agents: Sequence[SubagentDefinition] = (),
    ) -> SkillTrustRequest:
        """The question `agent skills trust` asks, by the chat's rule: an answer decides what
        the question lists. While anything is new or changed, that alone is asked about (as
        the chat asks: a no to a changed file keeps an unchanged file's earlier yes, shown as
        already trusted); with everything decided, it is everything found, decided again (a
        yes takes back a no, a no takes back a yes)."""
        _, request = self.assess(project, skills, instructions, agents)
        if request is not None:
            return request
        return self.request(project, skills, instructions, agents)

    def request(
        self,
        project: Path,
        skills: Sequence[Skill],
        instructions: Sequence[InstructionFile] = (),
        agents: Sequence[SubagentDefinition] = (),
    ) -> SkillTrustRequest:
        """The question about everything found, with the changes."""
        record = self._load().get(str(project.resolve()))
        return self._request(project, skills, digests(skills), instructions, record, agents)

    def _request(
        self,
        project: Path,
        skills: Sequence[Skill],
        found: Mapping[str, SkillDigest],
        instructions: Sequence[InstructionFile],
        record: _Record | None,
        agents: Sequence[SubagentDefinition] = (),
    ) -> SkillTrustRequest:
        now = {name: digest.sha256 for name, digest in found.items()}
        added, changed, removed = _changes(record.skills if record else {}, now)
        moved = _moved(record, skills)
        changed += tuple(name for name in moved if name not in changed)
        if not skills:
            removed = ()  # the skills are not asked about: nothing to say about them
        known = {**(record.declined_files if record else {}), **(record.files if record else {})}
        files_added, files_changed, _ = _changes(known, file_digests(instructions))
        known_agents = {
            **(record.declined_agents if record else {}),
            **(record.agents if record else {}),
        }
        agents_added, agents_changed, _ = _changes(
            known_agents, {definition.label: definition.sha256 for definition in agents}
        )
        return SkillTrustRequest(
            project=project,
            skills=tuple(skills),
            digests=found,
            instructions=tuple(instructions),
            agents=tuple(agents),
            added=files_added + added + agents_added,
            changed=files_changed + changed + agents_changed,
            removed=removed,
            moved=moved,
            asked_before=record is not None,
        )

    def decided(self, project: Path) -> SkillDecision | None:
        """What was last decided about the project's skills (for saying why one is off)."""
        record = self._load().get(str(project.resolve()))
        if record is None:
            return None
        return SkillDecision(record.decision, record.skills, record.skill_files)

    def record(self, request: SkillTrustRequest, decision: Decision) -> None:
        """Remember the person's decision for the skills exactly as the request showed them."""
        with file_lock(self.path):
            records = self._load()
            key = str(request.project.resolve())
            records[key] = _decided(records.get(key), request, decision)
            payload = {
                "version": TRUST_VERSION,
                "projects": {key: _record_json(r) for key, r in records.items()},
            }
            text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
            atomic_write(self.path, text.encode("utf-8"))

    def _load(self) -> dict[str, _Record]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except RecursionError:
            raise AgentError(
                f"{self.path}: cannot read skill trust records (nested too deeply); fix or "
                "move the file"
            ) from None
        except (OSError, UnicodeDecodeError, json.JSONDecodeError) as error:
            raise AgentError(
                f"{self.path}: cannot read skill trust records ({error}); fix or move the file"
            ) from None
        if not isinstance(data, dict) or data.get("version") != TRUST_VERSION:
            raise AgentError(f"{self.path}: not a version {TRUST_VERSION} skill trust file")
        records = {}
        for key, value in (data.get("projects") or {}).items():
            try:
                records[key] = _record_from(value)
            except (KeyError, TypeError, ValueError):
                raise AgentError(f"{self.path}: malformed record for {key}") from None
        return records


def _changes(
    before: Mapping[str, str], now: Mapping[str, str]
) -> tuple[tuple[str, ...], tuple[str, ...], tuple[str, ...]]:
    """Names added, changed and removed between two name -> digest maps."""
    return (
        tuple(n for n in now if n not in before),
        tuple(n for n in now if n in before and before[n] != now[n]),
        tuple(n for n in before if n not in now),
    )


def _record_from(value: dict[str, object]) -> _Record:
    """A record as stored; one written before files were decided one by one holds the set's
    files under its one decision: a declined set's files stay declined, each."""
    files = dict(value.get("files") or {})  # type: ignore[call-overload]
    declined = dict(value.get("declined_files") or {})  # type: ignore[call-overload]
    if not value.get("per_file") and value["decision"] == "declined":
        files, declined = {}, files
    if value["decision"] not in ("trusted", "declined"):
        raise ValueError(value["decision"])
    for label, digest in (*files.items(), *declined.items()):
        if not isinstance(label, str) or not isinstance(digest, str):
            raise TypeError(label)
    skill_files = value.get("skill_files") or {}
    folders = value.get("folders") or {}
    if not isinstance(skill_files, dict) or not isinstance(folders, dict):
        raise TypeError("skill_files")
    agents = dict(value.get("agents") or {})  # type: ignore[call-overload]
    declined_agents = dict(value.get("declined_agents") or {})  # type: ignore[call-overload]
    for label, digest in (*agents.items(), *declined_agents.items()):
        if not isinstance(label, str) or not isinstance(digest, str):
            raise TypeError(label)
    return _Record(
        value["decision"],
        str(value["fingerprint"]),
        dict(value["skills"]),  # type: ignore[call-overload]
        files,
        declined,
        skill_files,
        folders,
        agents,
        declined_agents,
    )


def _record_json(record: _Record) -> dict[str, object]:
    data: dict[str, object] = {
        "decision": record.decision,
        "fingerprint": record.fingerprint,
        "skills": record.skills,
    }
    # Absent without files: the record reads as before for skill-only projects. The marker
    # says the files are per file, not the set an older record's decision covered.
    if record.skill_files:
        data["skill_files"] = record.skill_files
    if record.folders:
        data["folders"] = record.folders
    if record.files or record.declined_files:
        data["per_file"] = True
        data["files"] = record.files
        data["declined_files"] = record.declined_files
    if record.agents or record.declined_agents:  # absent without any: records read as before
        data["agents"] = record.agents
        data["declined_agents"] = record.declined_agents
    return data


def usable_skills(
    all_skills: Sequence[Skill], hidden: Sequence[Skill], project_trusted: bool
) -> list[Skill]:
    """The effective skills once untrusted project skills are set aside.

    A project skill that is not trusted must not hide the user or bundled skill it shadowed,
    so the choice of winner is made again among what may be used.
    """
    candidates = [s for s in (*all_skills, *hidden) if project_trusted or s.scope != "project"]
    best: dict[str, Skill] = {}
    for skill in candidates:
        key = skill_key(skill.name)
        current = best.get(key)
        if current is None or SCOPE_PRECEDENCE.index(skill.scope) > SCOPE_PRECEDENCE.index(
            current.scope
        ):
            best[key] = skill
    return sorted(best.values(), key=lambda s: skill_key(s.name))
