"""@-mentions in one-shot mode: the real `agent -p` with no terminal, the scripted fake model
server, and resources_server.py (rs) trusted and enabled."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

from tests import deadlines
from tests.fake_openai import FakeOpenAI
from tests.fixtures.mcp_fixtures import save_trusted_resources_server
from tests.ui.test_oneshot import (  # noqa: F401
    _mcp_modules,
    model_args,
    oneshot_env,
    run_without_terminal,
)


def test_a_one_shot_prompt_attaches_the_resources_it_mentions(
    tmp_path: Path,
    agent_home: Path,
    oneshot_env: dict[str, str],  # noqa: F811
) -> None:
    save_trusted_resources_server(agent_home, oneshot_env)
    with FakeOpenAI([{"text": "Done."}]) as fake:
        args = [*model_args(fake), "-p", "check @rs:fixture://notes/4 and @rs:fixture://nope"]
        done = run_without_terminal(oneshot_env, tmp_path, args)
        request = fake.requests[0]["body"]
    assert done.returncode == 0, done.stderr
    content = request["messages"][-1]["content"]
    assert content[0] == {
        "type": "text",
        "text": "check @rs:fixture://notes/4 and @rs:fixture://nope",
    }
    assert "\nNote 4.\n</attachment" in content[1]["text"]
    assert "(not attached: MCP server 'rs' returned an error" in content[2]["text"]
    assert "@rs:fixture://nope was not attached" in done.stderr


def test_a_mention_of_a_disabled_server_gets_the_chats_note_without_loading_the_mcp_sdk(
    tmp_path: Path,
    agent_home: Path,
    oneshot_env: dict[str, str],  # noqa: F811
) -> None:
    document = '{"mcpServers": {"fx": {"command": "python3", "args": ["-c", "pass"]}}}'
    subprocess.run(
        [sys.executable, "-m", "agent", "mcp", "import", "-"],
        input=document, env=oneshot_env, capture_output=True, text=True,
        timeout=deadlines.PROCESS, check=True,
    )  # fmt: skip
    prompt = "read @fx:file:///notes.txt please"
    with FakeOpenAI([{"text": "Done."}]) as fake:
        done = subprocess.run(
            [sys.executable, "-X", "importtime", "-m", "agent", *model_args(fake), "-p", prompt],
            stdin=subprocess.DEVNULL, capture_output=True, text=True, env=oneshot_env,
            cwd=tmp_path, timeout=60, start_new_session=True,
        )  # fmt: skip
        request = fake.requests[0]["body"]
    assert done.returncode == 0, done.stderr
    why = "MCP server 'fx' is disabled; enable it with: agent mcp enable fx"
    assert f"@fx:file:///notes.txt was not attached: {why}" in done.stderr
    content = request["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": prompt}
    assert f"(not attached: {why})" in content[1]["text"]
    loaded = {line.rsplit("|", 1)[-1].strip() for line in done.stderr.splitlines()}
    assert _mcp_modules(loaded) == {"agent.mcp.store"}  # the store says it is disabled; no SDK


def test_a_one_shot_prompt_attaches_project_files_and_a_refused_one_sends_nothing(
    tmp_path: Path,
    oneshot_env: dict[str, str],  # noqa: F811
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("my notes\n")
    (tmp_path / "secret.txt").write_text("s3cret\n")
    with FakeOpenAI([{"text": "Done."}, {"text": "Done."}]) as fake:
        args = [*model_args(fake), "-p", "check @notes.txt"]
        done = run_without_terminal(oneshot_env, project, args)
        refused = run_without_terminal(
            oneshot_env, project, [*model_args(fake), "-p", "check @notes.txt @../secret.txt"]
        )
        # A mention inside piped text stays text: the file is not read.
        piped = run_without_terminal(
            oneshot_env, project, [*model_args(fake), "-p", "check"], stdin="@notes.txt"
        )
        requests = [request["body"] for request in fake.requests]
    assert done.returncode == 0, done.stderr
    content = requests[0]["messages"][-1]["content"]
    assert content[0] == {"type": "text", "text": "check @notes.txt"}
    assert (
        'file="notes.txt"' in content[1]["text"]
        and "\nmy notes\n</attachment" in content[1]["text"]
    )
    assert refused.returncode == 1
    assert "@../secret.txt was not attached: it is outside the project" in refused.stderr
    assert len(requests) == 2  # the refused prompt never reached the model
    assert requests[1]["messages"][-1]["content"] == "check\n\n@notes.txt"  # piped: text
    assert piped.returncode == 0, piped.stderr
