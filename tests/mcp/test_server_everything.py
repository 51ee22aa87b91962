"""Resources, templates, completion and prompts against a second, independent server: the
reference @modelcontextprotocol/server-everything (Node, the TypeScript SDK), from npm."""

from __future__ import annotations

import os
from pathlib import Path

import pytest

from agent.mcp.catalog.contents import (
    PromptMedia,
    PromptMessage,
    PromptText,
    ResourceBlob,
    ResourceText,
)
from agent.mcp.catalog.entries import CompletionRef, PromptArgumentInfo
from agent.mcp.store import McpStore
from tests.commands.test_cli_mcp_console import agent, at_terminal, import_servers
from tests.fixtures.everything import everything_definition, install_everything
from tests.fixtures.mcp_fixtures import trust_launch
from tests.mcp.runtime_helpers import enable, runtime, save


@pytest.fixture(scope="session")
def everything() -> dict[str, object]:
    """The pinned server's mcpServers entry (installed into the test cache once)."""
    return everything_definition(install_everything())


@pytest.fixture
def store(agent_home: Path, tmp_path: Path, everything: dict[str, object]) -> McpStore:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"ev": everything})  # type: ignore[dict-item]
    trust_launch(store, "ev", tmp_path)
    enable(store, "ev")
    return store


@pytest.mark.anyio
async def test_all_hundred_resources_are_listed_across_ten_pages(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    pages: list[str] = []

    def observe(server: str, direction: str, text: str) -> None:
        if direction == "send" and '"resources/list"' in text:
            pages.append(text)

    async with runtime(store, agent_home, tmp_path, observe=observe) as rt:
        listing = await rt.resources("ev")
    assert [item.uri for item in listing.items] == [
        f"test://static/resource/{i}" for i in range(1, 101)
    ]
    assert listing.note is None
    assert len(pages) == 10


@pytest.mark.anyio
async def test_text_and_blob_resources_read_as_text_and_bytes(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    async with runtime(store, agent_home, tmp_path) as rt:
        text = await rt.read_resource("ev", "test://static/resource/1")
        blob = await rt.read_resource("ev", "test://static/resource/2")
    assert text == (
        ResourceText(
            "test://static/resource/1", "text/plain", "Resource 1: This is a plaintext resource"
        ),
    )
    assert blob == (
        ResourceBlob(
            "test://static/resource/2",
            "application/octet-stream",
            b"Resource 2: This is a base64 blob",
        ),
    )


@pytest.mark.anyio
async def test_the_template_and_prompt_arguments_complete_through_the_server(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    async with runtime(store, agent_home, tmp_path) as rt:
        [template] = (await rt.resource_templates("ev")).items
        ids = await rt.complete("ev", CompletionRef("template", template.uri_template), "id", "")
        styles = await rt.complete("ev", CompletionRef("prompt", "complex_prompt"), "style", "f")
    assert template.uri_template == "test://static/resource/{id}"
    assert ids == ("1", "2", "3", "4", "5")
    assert styles == ("formal", "friendly")


@pytest.mark.anyio
async def test_a_prompt_with_arguments_returns_text_and_a_real_image(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    async with runtime(store, agent_home, tmp_path) as rt:
        prompts = {prompt.name: prompt for prompt in (await rt.prompts("ev")).items}
        result = await rt.get_prompt("ev", "complex_prompt", {"temperature": "0.7"})

    assert prompts["complex_prompt"].arguments == (
        PromptArgumentInfo("temperature", None, "Temperature setting", True),
        PromptArgumentInfo("style", None, "Output style", False),
    )
    first, second, third = result.messages
    assert first == PromptMessage(
        "user",
        PromptText("This is a complex prompt with arguments: temperature=0.7, style=undefined"),
    )
    assert second.role == "assistant" and isinstance(second.content, PromptText)
    assert third.role == "user" and isinstance(third.content, PromptMedia)
    assert (third.content.kind, third.content.mime_type) == ("image", "image/png")
    assert third.content.image_type == "image/png"  # the bytes are a PNG, not just the claim


def test_the_console_saves_a_blob_and_lists_prompts_from_server_everything(
    everything: dict[str, object], agent_home: Path, tmp_path: Path
) -> None:
    env = dict(os.environ)
    import_servers({"ev": everything}, env=env)
    status, shown = at_terminal("mcp", "trust", "ev", answers=[("[y/N] ", "y")], env=env)
    assert status == 0, shown

    target = tmp_path / "blob.bin"
    saved = agent("mcp", "read", "ev", "test://static/resource/4", "--output", str(target))
    prompts = agent("mcp", "prompts", "ev")
    listed = agent("mcp", "resources", "ev")

    assert saved.returncode == 0, saved.stderr
    assert target.read_bytes() == b"Resource 4: This is a base64 blob"
    assert "  temperature (required): Temperature setting" in prompts.stdout.splitlines()
    assert "100 resources on MCP server 'ev'." in listed.stdout.splitlines()
