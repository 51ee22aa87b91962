"""The driver's steps for the Skills extension scenarios (SEP-2640, `sep-2640-client-*`).

As a person would, through the CLI: `agent mcp skills conformance` lists the server's skills
(the listing only: no-prefetch checks that no skill file is read then); for the verify-*
scenarios, `agent mcp skills conformance SKILL` then loads the first listed skill (reads its
SKILL.md and verifies it), which the suite serves tampered: the command must refuse it and
never go on to the skill's other files. The refusal is the expected outcome there (exit 1).
"""

from __future__ import annotations

import subprocess
from collections.abc import Callable

Agent = Callable[..., subprocess.CompletedProcess[str]]


def skill_names(listing: str) -> list[str]:
    """The SKILL column of `agent mcp skills NAME` output."""
    lines = listing.splitlines()
    if not lines or not lines[0].startswith("SKILL"):
        return []
    return [line.split()[0] for line in lines[1:] if line.split()]


def skill_steps(agent: Agent, env: dict[str, str], server: str, scenario: str) -> int:
    """List the skills; for a verify scenario, load the first one as a person would."""
    listing = agent(env, "mcp", "skills", server)
    if listing.returncode != 0 or not scenario.startswith("sep-2640-client-verify-"):
        return listing.returncode
    names = skill_names(listing.stdout)
    if not names:
        return 1
    return agent(env, "mcp", "skills", server, names[0]).returncode
