"""/model in the real chat between a model spoken to directly (`openai/NAME` at an address:
agent/model/openai_compatible.py) and one sent through litellm (`hosted_vllm/NAME` at another
address), and back: each request goes to the address of the model in use, with that model's key
only (the chat's OPENAI_API_KEY never to the vLLM server, which gets litellm's stand-in for no
key), and the conversation carries over."""

from __future__ import annotations

from pathlib import Path

from tests.fake_openai import FakeOpenAI
from tests.pty_chat import finish, spawn_chat


def test_switching_between_a_direct_and_a_litellm_model_sends_each_request_to_its_own_server(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    for name in ("HOSTED_VLLM_API_KEY", "HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY"):
        chat_env.pop(name, None)
    direct_turns = [{"text": "First from direct."}, {"text": "Again from direct."}]
    with FakeOpenAI(direct_turns) as direct, FakeOpenAI([{"text": "Now from vLLM."}]) as vllm:
        chat = spawn_chat(direct.base_url, chat_env, tmp_path)
        try:
            chat.expect("›")
            chat.send("one\r")
            chat.expect("First from direct.")
            chat.send(f"/model hosted_vllm/served {vllm.base_url}\r")
            chat.expect("Model changed from openai/fake-model to hosted_vllm/served")
            chat.send("two\r")
            chat.expect("Now from vLLM.")
            chat.send(f"/model openai/fake-model {direct.base_url}\r")
            chat.expect("Model changed from hosted_vllm/served to openai/fake-model")
            chat.send("three\r")
            chat.expect("Again from direct.")
            finish(chat)
        finally:
            chat.close(force=True)
        direct_requests, vllm_requests = list(direct.requests), list(vllm.requests)

    assert [r["headers"]["authorization"] for r in direct_requests] == ["Bearer sk-test"] * 2
    assert [r["headers"]["authorization"] for r in vllm_requests] == ["Bearer fake-api-key"]
    assert vllm_requests[0]["body"]["model"] == "served"
    said = [m["content"] for m in direct_requests[1]["body"]["messages"] if m["role"] != "system"]
    assert said[:4] == ["one", "First from direct.", "two", "Now from vLLM."]
    assert said[-1] == "three"
