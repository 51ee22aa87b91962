"""The conformance suite's Skills extension scenarios (SEP-2640), run against our real CLI.

The suite lists them as extension scenarios (`list --client`), run one by one with --scenario.
The driver (tests/conformance/skills_driver.py) lists the server's skills with `agent mcp
skills`, and for the verify-* ones loads a skill as a person would; the suite serves it with a
wrong digest, a wrong size or a frontmatter that differs from the listing, and checks that we
refuse it (never reading the skill's other files), or, for no-prefetch, that listing reads none.
"""

from __future__ import annotations

import json
import shlex
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from tests.conformance.suite import Suite, install_suite

DRIVER = Path(__file__).resolve().parent / "client_driver.py"
SCENARIO_TIMEOUT = 240
SUITE_TIMEOUT_MS = "180000"
SKILL_SCENARIOS = [
    "sep-2640-client-no-prefetch",
    "sep-2640-client-verify-digest",
    "sep-2640-client-verify-size",
    "sep-2640-client-verify-frontmatter",
]


@pytest.fixture(scope="module")
def suite() -> Suite:
    """The pinned conformance suite (installed on first use)."""
    return install_suite()


def test_the_suite_offers_exactly_these_skill_scenarios(suite: Suite) -> None:
    listing = subprocess.run(
        suite.command("list", "--client"), capture_output=True, text=True, timeout=60, check=True
    ).stdout
    offered = [line.split()[1] for line in listing.splitlines() if "sep-2640-client-" in line]

    assert sorted(offered) == sorted(SKILL_SCENARIOS)


@pytest.mark.parametrize("scenario", SKILL_SCENARIOS)
def test_skill_scenario_passes_through_our_cli(suite: Suite, scenario: str, tmp_path: Path) -> None:
    command = shlex.join([sys.executable, str(DRIVER)])  # the suite runs it through a shell
    run = subprocess.run(
        suite.command("client", "--command", command, "--scenario", scenario,
                      "--timeout", SUITE_TIMEOUT_MS, "-o", str(tmp_path / "results")),
        capture_output=True,
        text=True,
        timeout=SCENARIO_TIMEOUT,
        check=False,
        cwd=tmp_path,
    )  # fmt: skip

    [checks_file] = (tmp_path / "results").rglob("checks.json")
    checks: list[dict[str, Any]] = json.loads(checks_file.read_text())
    outcome = [(c["id"], c["status"]) for c in checks if c["id"].startswith("sep-2640-")]
    client_stderr = (checks_file.parent / "stderr.txt").read_text()[-4000:]
    assert (run.returncode, [status for _id, status in outcome]) == (0, ["SUCCESS"]), (
        f"{scenario}: the suite exited {run.returncode}; checks: {outcome}\n"
        f"--- our client's stderr (end) ---\n{client_stderr}"
    )
