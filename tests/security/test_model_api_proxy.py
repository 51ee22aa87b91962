"""With HTTP_PROXY set, the model API key never goes in clear text to the proxy.

A local model server (Ollama, LM Studio, vLLM) at http://127.0.0.1 gets the API key as a
bearer header and the whole conversation: a plain-http loopback connection must go direct,
as every MCP and OAuth client does (agent/mcp/http_client.py).
"""

from __future__ import annotations

from pathlib import Path

from tests.security.inputs_helpers import agent_env, one_shot
from tests.security.test_oauth_proxy import proxied, recording_proxy


def test_a_loopback_model_apis_key_and_conversation_never_go_to_the_proxy(tmp_path: Path) -> None:
    with recording_proxy() as (proxy, seen):
        env = agent_env(tmp_path, tmp_path / "agent-home") | proxied(proxy)
        done, requests = one_shot([{"text": "ok"}], "hi", env, tmp_path)

    assert seen == []
    assert done.returncode == 0, done.stderr
    assert len(requests) == 1
