"""The official MCP conformance suite's client scenarios, run against our real CLI.

For each scenario the suite starts its own servers on localhost and runs
`python tests/conformance/client_driver.py <server-url>`, which imports the URL into a
throwaway home, logs in with `agent mcp login` (a follow-redirect helper as $BROWSER) and
calls a tool.

The suite's 0.2 line has requirement sets: `client --requirements REVISION` runs exactly the
scenarios a revision requires, each at that revision's wire (2025-11-25: the initialize
handshake; 2026-07-28: stateless, `_meta` on every request), and scores only those; it also
runs the revision's `not_scored` scenarios (extensions, added after the release) for
visibility. A scenario in both sets is run once under each. We run the same thing one
scenario per test, so xdist spreads it and a failure names its scenario: the suite's
`client --scenario S --spec-version REVISION --force` is the very call its requirements run
makes for S (dist/index.js: `Nc(command, S, timeout, out, yc(REVISION), force=true)`), and a
scenario passes as the requirements run scores it: no check with status FAILURE (a WARNING is a
SHOULD and does not count). The 2026-07-28 set needs the dual-era client (issue 25, branch
era): without it every scenario of that wire fails at the first request.

`REQUIRED` must equal the suite's own sets (a test compares them): every scored scenario
passes, no exceptions. `NOT_SCORED` holds the rest each set runs; of those only scenarios the
sets mark `extension` may be expected failures (a strict xfail with the reason, so a fix shows
as XPASS until the list is updated). Nothing is skipped except when node or npm are missing
(tests/conformance/suite.py installs the pinned suite and a Node 22 from npm).
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
from tests.conformance.test_conformance_skills import SKILL_SCENARIOS

DRIVER = Path(__file__).resolve().parent / "client_driver.py"
SCENARIO_TIMEOUT = 240  # seconds; a scenario takes a few CLI start-ups, and the suite's own
SUITE_TIMEOUT_MS = "180000"  # limit on the client command stays under ours
LISTING_TIMEOUT = 180  # seconds; a listing takes about 2 s, but one loaded CI run saw Node miss 60

LEGACY = "2025-11-25"
MODERN = "2026-07-28"

# The scored client scenarios of each requirement set (the package's requirements/*.yaml).
AUTH_BOTH = [
    "auth/metadata-default",
    "auth/metadata-var1",
    "auth/metadata-var2",
    "auth/metadata-var3",
    "auth/basic-cimd",
    "auth/scope-from-www-authenticate",
    "auth/scope-from-scopes-supported",
    "auth/scope-omitted-when-undefined",
    # The server 403s insufficient_scope on tools/call: a login that asks for the union of the
    # scopes, once; and a server that keeps answering 403 gets no login loop.
    "auth/scope-step-up",
    "auth/scope-retry-limit",
    "auth/token-endpoint-auth-basic",
    "auth/token-endpoint-auth-post",
    "auth/token-endpoint-auth-none",
    "auth/pre-registration",
]
REQUIRED: dict[str, list[str]] = {
    LEGACY: [
        "initialize",
        "tools_call",
        # On a pty: the driver accepts the form and presses Enter at each field (keeps defaults).
        "elicitation-sep1034-client-defaults",
        "sse-retry",
        *AUTH_BOTH,
    ],
    MODERN: [
        "tools_call",
        "request-metadata",
        *AUTH_BOTH,
        # The client must refuse a protected resource whose metadata names another resource
        # (RFC 8707 / RFC 9728): it must never obtain a token for it.
        "auth/resource-mismatch",
        "auth/offline-access-scope",
        "auth/offline-access-not-supported",
        # The resource's metadata moves to a new authorization server: log in there, anew.
        "auth/authorization-server-migration",
        "auth/iss-supported",
        "auth/iss-not-advertised",
        "auth/iss-supported-missing",
        "auth/iss-wrong-issuer",
        "auth/iss-unexpected",
        "auth/iss-normalized",
        "auth/metadata-issuer-mismatch",
        "sep-2322-client-request-state",
        "http-standard-headers",
        "http-custom-headers",
        "http-invalid-tool-headers",
        "json-schema-ref-no-deref",
    ],
}

EXTENSIONS = [
    "auth/client-credentials-jwt",
    "auth/client-credentials-basic",
    "auth/enterprise-managed-authorization",
    "auth/dpop",
    "auth/dpop-nonce",
    "auth/wif-jwt-bearer",
]
# What each set runs without scoring: scenario -> the reason the set gives.
NOT_SCORED: dict[str, dict[str, str]] = {
    revision: {
        **dict.fromkeys(EXTENSIONS, "extension"),
        "json-schema-2020-12-preservation": "added-after-release",
    }
    for revision in (LEGACY, MODERN)
}

# Extension scenarios the suite lists (`list --client`, tagged [extension]) but no requirement
# set runs: the Skills extension's (SEP-2640), run by tests/conformance/test_conformance_skills.py
# with a driver that activates the server's skills through `agent mcp skills`, as a person would.
EXTENSION_SCENARIOS = SKILL_SCENARIOS

# Extension scenarios we do not pass -> why. Only `extension` scenarios may be listed here.
EXPECTED_FAILURES: dict[str, str] = {
    "auth/enterprise-managed-authorization": (
        "enterprise-managed authorization (SEP-990: ID-JAG token exchange at an identity "
        "provider) is an extension we do not implement"
    ),
    "auth/dpop": "DPoP-bound tokens (SEP-1932, RFC 9449) are an extension we do not implement",
    "auth/dpop-nonce": "DPoP nonces (SEP-1932, RFC 9449): DPoP is not implemented",
    "auth/wif-jwt-bearer": (
        "workload identity federation (SEP-1933, RFC 7523 JWT bearer grant) is an extension "
        "we do not implement"
    ),
}

# Scenarios tagged only with revisions before 2025-11-25 (no requirement set runs them); we
# keep passing them at their own wire, as the suite runs them by --scenario.
OLDER: dict[str, str] = {
    "auth/2025-03-26-oauth-metadata-backcompat": "2025-03-26",
    "auth/2025-03-26-oauth-endpoint-fallback": "2025-03-26",
}


def expected(scenario: str) -> list[Any]:
    """The pytest marks for a scenario: a strict xfail when it is an expected failure."""
    if scenario in EXPECTED_FAILURES:
        return [pytest.mark.xfail(reason=EXPECTED_FAILURES[scenario], strict=True)]
    return []


RUNS = [
    *(
        pytest.param(rev, name, id=f"{rev}:{name}")
        for rev, names in REQUIRED.items()
        for name in names
    ),
    *(
        pytest.param(rev, name, id=f"{rev}:{name}", marks=expected(name))
        for rev, names in NOT_SCORED.items()
        for name in names
    ),
    *(pytest.param(rev, name, id=f"{rev}:{name}") for name, rev in OLDER.items()),
]


@pytest.fixture(scope="module")
def suite() -> Suite:
    """The pinned conformance suite (installed on first use)."""
    return install_suite()


def suite_output(suite: Suite, *args: str) -> str:
    """What one of the suite's listing commands prints."""
    return subprocess.run(
        suite.command(*args), capture_output=True, text=True, timeout=LISTING_TIMEOUT, check=True
    ).stdout


def listed_under(listing: str, heading: str) -> list[str]:
    """The `  - name` lines of one section of a listing, up to its next blank line."""
    section = listing.split(heading, 1)[1].split("\n\n", 1)[0]
    return [line.split()[1] for line in section.splitlines() if line.strip().startswith("- ")]


@pytest.mark.parametrize("revision", [LEGACY, MODERN])
def test_our_lists_are_the_suites_requirement_set(suite: Suite, revision: str) -> None:
    listing = suite_output(suite, "list", "--requirements", revision)
    client_not_scored = {}
    reason = ""
    for line in listing.split("never scored:", 1)[1].splitlines():
        words = line.split()
        if len(words) == 2 and words[1].startswith("("):  # "  extension (6):"
            reason = words[0]
        elif len(words) == 3 and words[2] == "[client]":  # "    - name [client]"
            client_not_scored[words[1]] = reason

    assert (sorted(listed_under(listing, "Client scenarios")), client_not_scored) == (
        sorted(REQUIRED[revision]),
        NOT_SCORED[revision],
    )


def test_every_client_scenario_of_the_suite_is_run(suite: Suite) -> None:
    offered = listed_under(suite_output(suite, "list", "--client"), "Client scenarios")
    ours = {*REQUIRED[LEGACY], *REQUIRED[MODERN], *NOT_SCORED[MODERN], *EXTENSION_SCENARIOS, *OLDER}

    assert sorted(offered) == sorted(ours)


def test_only_extensions_may_be_expected_to_fail() -> None:
    extensions = {n for s in NOT_SCORED.values() for n, r in s.items() if r == "extension"}

    assert set(EXPECTED_FAILURES) <= extensions | set(EXTENSION_SCENARIOS)


@pytest.mark.parametrize(("revision", "scenario"), RUNS)
def test_client_scenario_passes_through_our_cli(
    suite: Suite, revision: str, scenario: str, tmp_path: Path
) -> None:
    command = shlex.join([sys.executable, str(DRIVER)])  # the suite runs it through a shell
    run = subprocess.run(
        suite.command("client", "--command", command, "--scenario", scenario,
                      "--spec-version", revision, "--force",
                      "--timeout", SUITE_TIMEOUT_MS, "-o", str(tmp_path / "results")),
        capture_output=True,
        text=True,
        timeout=SCENARIO_TIMEOUT,
        check=False,
        cwd=tmp_path,
    )  # fmt: skip

    checks_files = list((tmp_path / "results").rglob("checks.json"))
    assert len(checks_files) == 1, f"{scenario}: the suite wrote no results\n{run.stderr[-4000:]}"
    checks: list[dict[str, Any]] = json.loads(checks_files[0].read_text())
    failed = [f"{c['id']}: {c.get('errorMessage') or c['description']}"
              for c in checks if c["status"] == "FAILURE"]  # fmt: skip
    client_stderr = (checks_files[0].parent / "stderr.txt").read_text()[-6000:]
    assert checks and failed == [], (
        f"{revision} {scenario}: the suite exited {run.returncode}; failed checks: {failed}\n"
        f"--- our client's stderr (end) ---\n{client_stderr}"
    )
