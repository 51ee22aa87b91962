"""The official MCP conformance suite (npm @modelcontextprotocol/conformance), installed once.

Its dist bundle imports `fs.globSync` at load, which Node 22 added; this machine and CI have
Node 20. So the suite runs on a Node 22 that npm itself installs: the `node-linux-<arch>`
package ships the official node binary inside the registry package (no download step of its
own), so a fresh CI machine with npm needs nothing else. Both are pinned.

The install goes to $XDG_CACHE_HOME (or ~/.cache)/agent-tests/conformance-<versions>/, never
global, so a test run installs at most once. Concurrent workers or runs take turns under a file
lock and install into a folder of their own renamed into place (as tests/fixtures/everything.py).
"""

from __future__ import annotations

import contextlib
import os
import platform
import shutil
import subprocess
import tempfile
from dataclasses import dataclass
from pathlib import Path

import pytest

from tests.fixtures.install_lock import install_lock

PACKAGE = "@modelcontextprotocol/conformance"
VERSION = "0.2.0-alpha.12"
NODE_VERSION = "22.23.5"
INSTALL_TIMEOUT = 600  # seconds: the suite is ~120 small packages, node itself ~30 MB
NODE_ARCH = {"x86_64": "x64", "amd64": "x64", "aarch64": "arm64", "arm64": "arm64"}


@dataclass(frozen=True)
class Suite:
    """An installed conformance suite and the Node that can run it."""

    node: Path
    script: Path

    def command(self, *args: str) -> list[str]:
        """The argv that runs the suite's CLI."""
        return [str(self.node), str(self.script), *args]


def node_package() -> str:
    """The npm package that carries a node binary for this machine."""
    system = platform.system().lower()
    arch = NODE_ARCH.get(platform.machine().lower())
    if system not in ("linux", "darwin") or arch is None:
        pytest.skip(f"no node package for {platform.system()} {platform.machine()}")
    return f"node-{system}-{arch}"


def cache_dir() -> Path:
    """Where the pinned suite and node are installed."""
    base = Path(os.environ.get("XDG_CACHE_HOME") or Path.home() / ".cache")
    return base / "agent-tests" / f"conformance-{VERSION}-node-{NODE_VERSION}"


def installed(root: Path) -> Suite:
    """The suite as laid out under root."""
    return Suite(
        node=root / "node_modules" / node_package() / "bin" / "node",
        script=root / "node_modules" / PACKAGE / "dist" / "index.js",
    )


def install_suite() -> Suite:
    """The installed suite, installing it with npm first when it is not cached."""
    root = cache_dir()
    suite = installed(root)
    if suite.node.is_file() and suite.script.is_file():
        return suite
    npm = shutil.which("npm")
    if npm is None or shutil.which("node") is None:
        pytest.skip("the conformance suite needs node and npm on PATH")
    with install_lock(root):
        suite = installed(root)
        if not (suite.node.is_file() and suite.script.is_file()):  # no earlier holder did
            npm_install(npm, root)
    suite = installed(root)
    assert suite.node.is_file() and suite.script.is_file(), f"npm did not install into {root}"
    return suite


def npm_install(npm: str, root: Path) -> None:
    """Install the pinned suite and node into root (through a staging folder, renamed)."""
    staging = Path(tempfile.mkdtemp(prefix="install-", dir=root.parent))
    try:
        subprocess.run(
            [npm, "install", "--no-audit", "--no-fund", "--prefix", str(staging),
             f"{PACKAGE}@{VERSION}", f"{node_package()}@{NODE_VERSION}"],
            check=True,
            capture_output=True,
            timeout=INSTALL_TIMEOUT,
        )  # fmt: skip
        with contextlib.suppress(OSError):  # another run got there first; its copy will do
            staging.rename(root)
    finally:
        shutil.rmtree(staging, ignore_errors=True)
