"""Start-up stays cheap: answering --help, --version or `agent mcp ...` imports nothing heavy."""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import sysconfig
from pathlib import Path

import pytest

from agent import __version__
from tests import deadlines

HEAVY = ("litellm", "mcp", "rich", "pydantic", "prompt_toolkit", "openai", "httpx")
HEAVY += ("starlette", "uvicorn")  # the web console's

# Runs the real entry point in a fresh interpreter, then reports which heavy modules it loaded.
_PROBE = """
import json, sys
import agent.cli
try:
    status = agent.cli.main(json.loads(sys.argv[1]))
except SystemExit as exit:
    status = exit.code
loaded = [name for name in json.loads(sys.argv[2]) if name in sys.modules]
with open(sys.argv[3], "w") as report:
    json.dump({"status": status, "loaded": loaded}, report)
"""


def imports_after(argv: list[str], tmp_path: Path, stdin: str = "") -> tuple[int, list[str]]:
    """Exit status of `agent ARGV` and the heavy modules it had imported by then."""
    report = tmp_path / "report.json"
    subprocess.run(
        [sys.executable, "-c", _PROBE, json.dumps(argv), json.dumps(HEAVY), str(report)],
        input=stdin,
        capture_output=True,
        text=True,
        timeout=deadlines.PROCESS,
        check=True,
    )
    result = json.loads(report.read_text())
    return result["status"], result["loaded"]


@pytest.mark.parametrize(
    "argv", [["--help"], ["--version"], ["mcp", "--help"], ["mcp", "console", "--help"]]
)
def test_help_and_version_import_nothing_heavy(argv: list[str], tmp_path: Path) -> None:
    assert imports_after(argv, tmp_path) == (0, [])


def test_the_chat_without_a_model_says_how_to_choose_one_and_loads_no_model_code(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv("AGENT_MODEL", raising=False)
    status, loaded = imports_after([], tmp_path)
    assert status == 2
    assert [name for name in loaded if name in ("litellm", "openai", "mcp")] == []

    completed = subprocess.run(
        [sys.executable, "-m", "agent"], capture_output=True, text=True, timeout=deadlines.PROCESS
    )
    assert completed.returncode == 2
    assert completed.stderr.startswith("agent: no model is configured. Choose one of:\n")
    assert "agent --model openai/gpt-4.1-mini" in completed.stderr
    assert "AGENT_MODEL=anthropic/claude-sonnet-4-5" in completed.stderr


@pytest.mark.parametrize(
    "argv",
    [
        ["mcp", "list"],
        ["mcp", "export"],
        ["mcp", "import", "-"],
        ["mcp", "import", "--merge", "-"],
        ["mcp", "remove", "fetch"],
        ["skills", "validate", str(Path(__file__).resolve().parent.parent / "skills")],
        ["sessions", "list", "--all"],
    ],
)
def test_configuration_commands_never_import_litellm_pydantic_or_the_mcp_sdk(
    argv: list[str], tmp_path: Path
) -> None:
    document = '{"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}}'
    subprocess.run(
        [sys.executable, "-m", "agent", "mcp", "import", "-"],
        input=document,
        capture_output=True,
        text=True,
        timeout=deadlines.PROCESS,
        check=True,
    )

    status, loaded = imports_after(argv, tmp_path, stdin=document)

    assert status == 0
    # Each costs 0.1 to 1.5 s; these commands answer in well under 0.1 s (bench/oneshot.py).
    assert [name for name in loaded if name in ("litellm", "openai", "pydantic", "mcp")] == []


def test_the_console_script_answers_version() -> None:
    script = shutil.which("agent", path=sysconfig.get_path("scripts"))
    assert script is not None, "the `agent` console script is not installed"

    result = subprocess.run(
        [script, "--version"],
        capture_output=True,
        text=True,
        timeout=deadlines.PROCESS,
        check=False,
    )

    assert (result.returncode, result.stdout, result.stderr) == (0, f"agent {__version__}\n", "")


def test_python_dash_m_agent_shows_help() -> None:
    result = subprocess.run(
        [sys.executable, "-m", "agent", "--help"],
        capture_output=True,
        text=True,
        timeout=deadlines.PROCESS,
        check=False,
    )

    assert result.returncode == 0
    assert result.stdout.startswith("usage: agent [-h] [--version] [--model MODEL]")
    assert "mcp" in result.stdout


def test_the_chat_draws_its_prompt_before_any_yaml_is_loaded() -> None:
    """What `agent` imports before its prompt is drawn (agent.ui.chat) loads no yaml: the
    skills' and subagent definitions' parser comes up behind the prompt (a type import in
    the trust store once put 20 ms of yaml before it)."""
    probe = "import sys, agent.ui.chat; print(sorted(m for m in sys.modules if m == 'yaml'))"
    shown = subprocess.run(
        [sys.executable, "-c", probe], capture_output=True, text=True, check=True, timeout=120
    )
    assert shown.stdout.strip() == "[]"
