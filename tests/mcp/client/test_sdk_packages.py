"""The SDK's package __init__ files run on the first name asked of them, with the same result.

Each check runs in a fresh interpreter: the test process has long imported the SDK.
"""

from __future__ import annotations

import json
import subprocess
import sys

# What the mcp and mcp.client packages offer by name: each public name with where its object
# comes from, then whether a name neither has is still an error.
_NAMES = """
import json, sys
{setup}
import mcp, mcp.client

def offered(package):
    return {{name: f"{{getattr(package, name).__module__}}.{{name}}"
             if hasattr(getattr(package, name), "__module__") else repr(getattr(package, name))
             for name in package.__all__}}

report = {{"server_side_before": server_side_before, "mcp": offered(mcp),
          "client": offered(mcp.client)}}
try:
    from mcp import NoSuchName  # noqa: F401
    report["missing"] = "imported"
except ImportError as error:
    report["missing"] = str(error).split(" (")[0]
print(json.dumps(report))
"""

_WITH_AGENT = """
import agent.mcp  # installs the finder, as any import of ours does
import mcp.client.session, mcp.client.stdio, mcp.shared.message  # what a client of ours imports
server_side_before = sorted(m for m in sys.modules if m.startswith(("mcp.server", "starlette")))
"""

_PLAIN = """
server_side_before = None
"""


def _report(setup: str) -> dict[str, object]:
    done = subprocess.run(
        [sys.executable, "-c", _NAMES.format(setup=setup)],
        capture_output=True,
        text=True,
        timeout=60,
    )
    assert done.returncode == 0, done.stderr
    result: dict[str, object] = json.loads(done.stdout)
    return result


def test_a_client_import_runs_no_server_side_and_the_packages_offer_what_a_plain_import_does() -> (
    None
):
    deferred = _report(_WITH_AGENT)
    plain = _report(_PLAIN)

    assert deferred.pop("server_side_before") == []
    plain.pop("server_side_before")
    assert deferred == plain
    assert deferred["missing"] == "cannot import name 'NoSuchName' from 'mcp'"


def test_two_threads_asking_the_package_for_names_at_once_both_get_them() -> None:
    probe = """
import threading
import agent.mcp
import mcp.client.session

got = []

def ask():
    from mcp import Client, ClientSession
    got.append((Client.__module__, ClientSession.__module__))

threads = [threading.Thread(target=ask) for _ in range(2)]
for thread in threads:
    thread.start()
for thread in threads:
    thread.join(30)
print(sorted(got))
"""
    done = subprocess.run([sys.executable, "-c", probe], capture_output=True, text=True, timeout=60)

    assert done.returncode == 0, done.stderr
    pair = ("mcp.client.client", "mcp.client.session")
    assert done.stdout == f"{sorted([pair, pair])}\n"
