"""Trust of the skills an MCP server serves: one decision per server, on the skills as listed.

Recorded in the config home (served-skills-trust.json) per server name: what the server is (its
URL or launch, so another server given the same name is asked about afresh), each skill's digest
(over its URI, its listed frontmatter and its files' digests and sizes, as listed) and the
decision. A new, changed or removed skill asks again; a declined set stays off and is not
asked about until it changes. The decision binds the listing the person was shown, not a later
one.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path
from typing import Literal, Protocol

from agent.errors import AgentError
from agent.home import atomic_write, config_home, file_lock
from agent.skills.served import ServedSkill, ServerSkills
from agent.text import plural

TRUST_FILE_NAME = "served-skills-trust.json"
TRUST_VERSION = 1
Decision = Literal["trusted", "declined"]
Status = Literal["none", "trusted", "declined", "ask"]


@dataclass(frozen=True)
class ServedSkillTrustRequest:
    """What the person is shown about one server's skills, and what changed since."""

    server: str
    identity: str
    skills: tuple[ServedSkill, ...]
    added: tuple[str, ...] = ()
    changed: tuple[str, ...] = ()
    removed: tuple[str, ...] = ()
    asked_before: bool = False

    @property
    def digests(self) -> dict[str, str]:
        """Each skill's digest as shown, by its name (`server:skill`)."""
        return {skill.qualified: skill.digest for skill in self.skills}

    @property
    def question(self) -> str:
        """The yes/no question of the dialog."""
        return f"Use the skills of MCP server {self.server}?"

    def describe(self) -> list[str]:
        """Lines for a dialog: each skill, its description and digest, and the changes."""
        if self.asked_before:
            head = f"The skills MCP server {self.server} serves changed since you last decided."
        else:
            head = (
                f"MCP server {self.server} serves skills; an activated one's instructions go "
                "into the model's prompt."
            )
        lines = [head, f"  server: {self.identity}"]
        for label, names in (
            ("new", self.added),
            ("changed", self.changed),
            ("removed", self.removed),
        ):
            if names:
                lines.append(f"  {label}: {', '.join(names)}")
        for skill in self.skills:
            size = sum(f.size for f in skill.files)
            lines.append(f"  {skill.qualified}: {skill.description}")
            lines.append(
                f"      {skill.uri}  sha256:{skill.digest[:16]}  "
                f"({plural(len(skill.files), 'file')}, {plural(size, 'byte')})"
            )
        return lines


class ServedSkillTrustPrompt(Protocol):
    """Asks whether a server's skills may be used; False (or no person) keeps them off."""

    async def confirm(self, request: ServedSkillTrustRequest) -> bool: ...


@dataclass(frozen=True)
class _Record:
    identity: str
    decision: Decision
    skills: dict[str, str]  # `server:skill` -> digest, as shown when decided


class ServedSkillTrustStore:
    """served-skills-trust.json in the config home: one record per server name."""

    def __init__(self, path: Path | None = None) -> None:
        self.path = path or config_home() / TRUST_FILE_NAME

    def assess(self, listing: ServerSkills) -> tuple[Status, ServedSkillTrustRequest | None]:
        """What is decided about this listing, and the question when it is not."""
        if not listing.skills:
            return "none", None
        record = self._load().get(listing.server)
        now = {skill.qualified: skill.digest for skill in listing.skills}
        if record is not None and record.identity == listing.identity and record.skills == now:
            return record.decision, None
        before = record.skills if record is not None and record.identity == listing.identity else {}
        request = ServedSkillTrustRequest(
            server=listing.server,
            identity=listing.identity,
            skills=listing.skills,
            added=tuple(n for n in now if n not in before),
            changed=tuple(n for n in now if n in before and before[n] != now[n]),
            removed=tuple(n for n in before if n not in now),
            asked_before=record is not None,
        )
        return "ask", request

    def trusted(self, listing: ServerSkills) -> bool:
        """Whether these skills, exactly as listed, were trusted."""
        return self.assess(listing)[0] == "trusted"

    def record(self, request: ServedSkillTrustRequest, decision: Decision) -> None:
        """Remember the decision for the skills exactly as the request showed them."""
        with file_lock(self.path):
            records = self._load()
            records[request.server] = _Record(request.identity, decision, request.digests)
            payload = {
                "version": TRUST_VERSION,
                "servers": {
                    name: {"identity": r.identity, "decision": r.decision, "skills": r.skills}
                    for name, r in records.items()
                },
            }
            text = json.dumps(payload, indent=2, ensure_ascii=False) + "\n"
            atomic_write(self.path, text.encode("utf-8"))

    def _load(self) -> dict[str, _Record]:
        try:
            data = json.loads(self.path.read_text(encoding="utf-8"))
        except FileNotFoundError:
            return {}
        except (OSError, UnicodeDecodeError, ValueError, RecursionError) as error:
            raise AgentError(
                f"{self.path}: cannot read the trust of served skills ({error}); fix or move "
                "the file"
            ) from None
        if not isinstance(data, dict) or data.get("version") != TRUST_VERSION:
            raise AgentError(f"{self.path}: not a version {TRUST_VERSION} served skills file")
        records: dict[str, _Record] = {}
        servers = data.get("servers")
        for name, value in (servers if isinstance(servers, dict) else {}).items():
            try:
                records[name] = _record_from(value)
            except (KeyError, TypeError, ValueError):
                raise AgentError(f"{self.path}: malformed record for server {name!r}") from None
        return records


def _record_from(value: Mapping[str, object]) -> _Record:
    decision = value["decision"]
    if decision not in ("trusted", "declined"):
        raise ValueError(decision)
    skills = value["skills"]
    if not isinstance(skills, dict) or not all(
        isinstance(k, str) and isinstance(v, str) for k, v in skills.items()
    ):
        raise TypeError("skills")
    return _Record(str(value["identity"]), decision, dict(skills))
