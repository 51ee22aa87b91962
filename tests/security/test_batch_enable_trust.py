"""`agent mcp enable a b` / `--all`: one question trusts several local servers, and only a
person answers it. A pipe is not a person, a line typed before the question appeared does not
answer it, and the one question shows every server's exact launch, as `agent mcp trust` does."""

from __future__ import annotations

import json
import os
import shlex
import sys
from pathlib import Path

import pexpect
import pytest

from tests import deadlines
from tests.commands.test_cli_mcp_console import (
    AGENT,
    CANARY,
    TOOLS_SERVER,
    agent,
    at_terminal,
    import_servers,
    list_row,
    server_pids,
)

TIMEOUT = deadlines.PROCESS  # seconds: a loaded machine starts two servers and the agent slowly
PROMPT = "shell$ "


@pytest.fixture(autouse=True)
def beta_token(monkeypatch: pytest.MonkeyPatch) -> None:
    """The variable beta's TOKEN is taken from (the question shows the reference only)."""
    monkeypatch.setenv("BETA_TOKEN", "canary-beta-token-value")


def two_servers(tmp_path: Path) -> dict[str, dict[str, object]]:
    """Two local servers whose launches differ in every part the question shows."""
    return {
        "alpha": {
            "command": sys.executable,
            "args": [TOOLS_SERVER, "--name", "alpha server"],
            "cwd": str(tmp_path),
        },
        "beta": {
            "command": sys.executable,
            "args": [TOOLS_SERVER, "--name", "beta", "--tools", "2"],
            "cwd": str(tmp_path),
            "env": {"CANARY": CANARY, "TOKEN": "${BETA_TOKEN}"},
        },
    }


def trusted(home: Path, name: str) -> bool:
    saved = json.loads((home / "mcp-servers.json").read_text(encoding="utf-8"))
    return bool(saved["runtime"][name]["trusted_launches"])


def test_a_piped_yes_never_trusts_servers_through_batch_enable_and_says_what_to_do(
    tmp_path: Path, agent_home: Path
) -> None:
    import_servers(two_servers(tmp_path))
    before = (agent_home / "mcp-servers.json").read_bytes()

    piped = agent("mcp", "enable", "alpha", "beta", stdin="y\ny\n")
    every = agent("mcp", "enable", "--all", stdin="y\n")

    assert (piped.returncode, piped.stdout) == (1, "")
    assert piped.stderr == (
        "agent: MCP servers 'alpha', 'beta' are not trusted here and there is no terminal to "
        "ask: trust is never read from a pipe or a file. Nothing was enabled. Run `agent mcp "
        "enable alpha beta` on a terminal: one question lists them all.\n"
    )
    assert every.stderr.endswith("Run `agent mcp enable --all` on a terminal: one question "
                                 "lists them all.\n")  # fmt: skip
    assert (agent_home / "mcp-servers.json").read_bytes() == before
    assert server_pids(agent_home) == []


def test_a_yes_typed_with_the_command_does_not_answer_the_batch_question(
    tmp_path: Path, agent_home: Path
) -> None:
    import_servers(two_servers(tmp_path))
    # `agent mcp enable alpha beta⏎y⏎` pasted into a shell: the y waits in the terminal while
    # the agent starts, so it was typed before the question existed.
    shell = pexpect.spawn(
        "/bin/sh", cwd=str(tmp_path), env={**os.environ, "PS1": PROMPT}, encoding="utf-8",
        timeout=TIMEOUT,
    )  # fmt: skip
    shell.expect_exact(PROMPT)
    shell.send(f"{AGENT} mcp enable alpha beta\ry\r")
    shell.expect_exact("[y/N] ")
    shell.send("n\r")
    shell.expect_exact("Nothing was enabled.")
    shell.expect_exact(PROMPT)
    assert server_pids(agent_home) == []
    assert not trusted(agent_home, "alpha") and not trusted(agent_home, "beta")
    shell.send(f"{AGENT} mcp enable alpha beta\r")
    shell.expect_exact("[y/N] ")
    shell.send("y\r")
    shell.expect_exact("Enabled beta")
    shell.expect_exact(PROMPT)
    shell.send("exit\r")
    shell.expect(pexpect.EOF)
    assert trusted(agent_home, "alpha") and trusted(agent_home, "beta")
    assert (list_row("alpha")["ENABLED"], list_row("beta")["ENABLED"]) == ("yes", "yes")


def test_the_batch_question_shows_each_servers_exact_launch(
    tmp_path: Path, agent_home: Path
) -> None:
    import_servers(two_servers(tmp_path))

    status, shown = at_terminal("mcp", "enable", "--all", answers=[("[y/N] ", "n")])

    python = sys.executable
    question = shown[: shown.index("[y/N] ")]
    assert question == (
        "2 MCP servers run programs on this computer; a yes trusts exactly these launches, "
        "here:\n"
        "MCP server 'alpha' runs a program on this computer.\n"
        f"  executable:  {python}  ({python})\n"
        f"  script:      {TOOLS_SERVER}\n"
        f"  arguments:   {shlex.quote(TOOLS_SERVER)} --name 'alpha server'\n"
        f"  command:     {shlex.join([python, TOOLS_SERVER])} --name 'alpha server'\n"
        f"  working dir: {tmp_path}\n"
        "  environment: (no extra variables)\n"
        "MCP server 'beta' runs a program on this computer.\n"
        f"  executable:  {python}  ({python})\n"
        f"  script:      {TOOLS_SERVER}\n"
        f"  arguments:   {shlex.quote(TOOLS_SERVER)} --name beta --tools 2\n"
        f"  command:     {shlex.join([python, TOOLS_SERVER])} --name beta --tools 2\n"
        f"  working dir: {tmp_path}\n"
        "  environment: CANARY (a literal value), TOKEN=${BETA_TOKEN}\n"
        "Start these 2 servers and trust what they run here? "
    )
    assert status == 1
    assert CANARY not in shown and "canary-beta-token-value" not in shown
    assert server_pids(agent_home) == []
