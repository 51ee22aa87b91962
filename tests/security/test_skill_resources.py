"""read_skill_resource reads regular files only, off the event loop: a FIFO planted in a
skill's folder gives a clear error at once instead of freezing the chat.

Attack: a skill folder (user or trusted project skill from someone else) holds a named pipe;
the model asks to read it, and the open blocks forever waiting for a writer.
"""

from __future__ import annotations

import os
from pathlib import Path

from tests import deadlines
from tests.security.inputs_helpers import agent_env, one_shot, tool_results


def test_reading_a_fifo_in_a_skill_folder_is_a_prompt_error_not_a_frozen_chat(
    tmp_path: Path,
) -> None:
    person = tmp_path / "person"
    skill = person / ".agents" / "skills" / "guide"
    skill.mkdir(parents=True)
    (skill / "SKILL.md").write_text("---\nname: guide\ndescription: Guides.\n---\nRead pipe.\n")
    (skill / "notes.md").write_text("plain notes\n")
    os.mkfifo(skill / "pipe")
    project = tmp_path / "project"
    project.mkdir()
    turns = [
        {
            "tool_calls": [
                {
                    "id": "c1",
                    "name": "read_skill_resource",
                    "arguments": {"name": "guide", "path": "pipe"},
                },
                {
                    "id": "c2",
                    "name": "read_skill_resource",
                    "arguments": {"name": "guide", "path": "notes.md"},
                },
            ]
        },
        {"text": "done"},
    ]

    # Before the fix the run never ends: the bounded wait turns that into a failure.
    done, requests = one_shot(
        turns,
        "use the guide",
        agent_env(person, tmp_path / "agent-home"),
        project,
        timeout=deadlines.PROCESS,
    )

    assert done.returncode == 0, done.stderr
    assert tool_results(requests[1]) == {
        "c1": "Error: 'pipe' is not a regular file (a pipe, socket or device)",
        "c2": "plain notes\n",
    }
