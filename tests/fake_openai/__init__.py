"""A stdlib fake OpenAI-compatible chat server that litellm reaches over real HTTP.

    with FakeOpenAI([{"text": "Hello"}]) as fake:
        litellm.completion(model="openai/fake-model", api_base=fake.base_url, ...)
        assert fake.requests[0]["body"]["messages"] == [...]

The script format is described in server.py; `python -m tests.fake_openai` runs it as a
process for tests that drive the real `agent` binary.
"""

from tests.fake_openai.server import ERRORS, FakeOpenAI, Turn

__all__ = ["ERRORS", "FakeOpenAI", "Turn"]
