"""What `agent -p --output-format json` reports a run used (what scripts bill by) counts its
subagents' requests too (issue 41: their cost and tokens count into the turn's): a subagent's
request is a request of the run, not a cost that goes unreported."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

from tests import deadlines
from tests.pty_chat import AGENT, FakeModelProcess, model_args
from tests.ui.test_subagents_pty import delegate


def test_a_one_shot_runs_usage_counts_its_subagents_requests_once(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    turns = [
        {"when": "PARENT", "tool_calls": [delegate("d1", "general", "SUB-X: look")],
         "usage": {"prompt_tokens": 10, "completion_tokens": 1}},
        {"when": "SUB-X", "tool_calls": [delegate("d2", "explore", "SUB-Y: deeper")],
         "usage": {"prompt_tokens": 1000, "completion_tokens": 100}},
        {"when": "SUB-Y", "text": "deeper: nothing",
         "usage": {"prompt_tokens": 300, "completion_tokens": 30}},
        {"when": "SUB-X", "text": "found it",
         "usage": {"prompt_tokens": 2000, "completion_tokens": 200}},
        {"when": "PARENT", "text": "Done.", "usage": {"prompt_tokens": 20, "completion_tokens": 2}},
    ]  # fmt: skip
    fake = FakeModelProcess(tmp_path, turns)
    try:
        run = subprocess.run(
            [AGENT, *model_args(fake.base_url), "--output-format", "json", "-p", "PARENT: go"],
            input="", capture_output=True, text=True, env=chat_env, cwd=tmp_path,
            timeout=deadlines.PROCESS, start_new_session=True,
        )  # fmt: skip
    finally:
        fake.stop()
    result = json.loads(run.stdout)
    assert result["text"] == "Done."
    # The parent's two requests, its subagent's two and that one's subagent's one, each once.
    assert result["usage"]["prompt_tokens"] == 10 + 1000 + 300 + 2000 + 20
    assert result["usage"]["completion_tokens"] == 1 + 100 + 30 + 200 + 2
