"""@-mentions in one-shot mode: the real `agent -p` with no terminal, the scripted fake model
server, and resources_server.py (rs) trusted and enabled."""

from __future__ import annotations

from pathlib import Path

from tests.fake_openai import FakeOpenAI
from tests.fixtures.mcp_fixtures import save_trusted_resources_server
from tests.test_oneshot import model_args, oneshot_env, run_without_terminal  # noqa: F401


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
