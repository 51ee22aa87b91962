"""Attack: a hostile answer (or a README it read) asks for a skill's credential files with
`read_skill_resource`, which needs no approval. A skill the person installed in
`~/.agents/skills` keeps the API key its scripts use in the skill's own `.env` (or an `.aws`
folder, a `.netrc`): the file tools refuse those names wherever they are, and reading them
through the skill tool instead must not send them to the model either. Through the real
`agent -p` and the scripted model."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.security.inputs_helpers import agent_env, one_shot, tool_results

SKILL = "---\nname: deploy\ndescription: Deploys the app.\n---\nRun scripts/deploy.sh.\n"
CANARY = "sk-live-canary-6613"


@pytest.mark.parametrize("relative", [".env", ".aws/credentials", "scripts/.netrc"])
def test_read_skill_resource_refuses_a_skills_credential_files(
    tmp_path: Path, agent_home: Path, relative: str
) -> None:
    home = tmp_path / "home"
    skill = home / ".agents" / "skills" / "deploy"
    (skill / "scripts").mkdir(parents=True)
    (skill / "SKILL.md").write_text(SKILL)
    (skill / "scripts" / "deploy.sh").write_text("echo deploy\n")
    secret_file = skill / relative
    secret_file.parent.mkdir(parents=True, exist_ok=True)
    secret_file.write_text(f"API_KEY={CANARY}\n")
    project = tmp_path / "project"
    project.mkdir()
    read = {
        "id": "r1",
        "name": "read_skill_resource",
        "arguments": {"name": "deploy", "path": relative},
    }

    done, requests = one_shot(
        [{"tool_calls": [read]}, {"text": "ok"}], "go", agent_env(home, agent_home), project
    )

    assert done.returncode == 0, done.stderr
    answer = tool_results(requests[1])["r1"]
    assert CANARY not in answer, answer
    assert "never read" in answer
