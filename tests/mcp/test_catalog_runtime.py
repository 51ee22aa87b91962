"""McpRuntime's resources, templates, prompts and completion against resources_server.py."""

from __future__ import annotations

import os
import signal
from pathlib import Path

import anyio
import pytest

from agent.errors import McpServerError, NotTrustedError
from agent.mcp.catalog.contents import (
    PromptMedia,
    PromptMessage,
    PromptResource,
    PromptResult,
    PromptText,
    ResourceBlob,
    ResourceText,
)
from agent.mcp.catalog.entries import CompletionRef, Listing, PromptArgumentInfo, PromptInfo
from agent.mcp.store import McpStore
from tests.fixtures.mcp_fixtures import trust_launch
from tests.fixtures.servers.tools_server import tiny_png
from tests.mcp.runtime_helpers import (
    ScriptedTrust,
    enable,
    logged_pids,
    resources_server,
    runtime,
    save,
    stdio_server,
)

pytestmark = pytest.mark.anyio

REVIEW = PromptInfo(
    name="review",
    title=None,
    description="Review some code.",
    arguments=(
        PromptArgumentInfo(name="code", title=None, description="The code", required=True),
        PromptArgumentInfo(
            name="style", title=None, description="concise or detailed", required=False
        ),
    ),
)
HELLO = PromptInfo(name="hello", title=None, description="Say hello.", arguments=())


@pytest.fixture
def store(agent_home: Path, tmp_path: Path) -> McpStore:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"rs": resources_server()})
    trust_launch(store, "rs", tmp_path)
    enable(store, "rs")
    return store


async def test_resources_follow_every_page_and_are_cached_for_the_run(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    requests: list[str] = []

    def observe(server: str, direction: str, text: str) -> None:
        if direction == "send" and '"resources/list"' in text:
            requests.append(text)

    async with runtime(store, agent_home, tmp_path, observe=observe) as rt:
        assert rt.cached_catalog("rs").resources is None
        listing = await rt.resources("rs")
        again = await rt.resources("rs")
        snapshot = rt.cached_catalog("rs")

    uris = [item.uri for item in listing.items]
    assert uris == [f"fixture://notes/{i}" for i in range(1, 26)] + [
        "fixture://image.png",
        "fixture://data.bin",
    ]
    assert listing.note is None
    assert len(requests) == 3  # 27 resources, 10 a page; the second call used the cache
    assert again == listing and snapshot.resources == listing


async def test_templates_and_prompts_are_listed_with_their_arguments(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    async with runtime(store, agent_home, tmp_path) as rt:
        templates = await rt.resource_templates("rs")
        prompts = await rt.prompts("rs")
        snapshot = rt.cached_catalog("rs")

    assert [(t.uri_template, t.name) for t in templates.items] == [
        ("fixture://greeting/{name}", "greeting")
    ]
    assert prompts == Listing((REVIEW, HELLO))
    assert REVIEW.required == ("code",)
    assert snapshot.templates == templates and snapshot.prompts == prompts


async def test_template_and_prompt_arguments_complete_through_the_server(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    async with runtime(store, agent_home, tmp_path) as rt:
        names = await rt.complete(
            "rs", CompletionRef("template", "fixture://greeting/{name}"), "name", "al"
        )
        styles = await rt.complete("rs", CompletionRef("prompt", "review"), "style", "")
        none = await rt.complete("rs", CompletionRef("prompt", "review"), "code", "x")
    assert names == ("alice", "albert")
    assert styles == ("concise", "detailed")
    assert none == ()


async def test_a_server_without_completions_completes_nothing(
    agent_home: Path, tmp_path: Path
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"fx": stdio_server()})
    trust_launch(store, "fx", tmp_path)
    enable(store, "fx")
    async with runtime(store, agent_home, tmp_path) as rt:
        connection = await rt.connection("fx")
        assert connection.info is not None and "completions" not in connection.info.capabilities
        values = await rt.complete("fx", CompletionRef("prompt", "any"), "x", "")
        resources = await rt.resources("fx")
    assert values == ()
    assert resources == Listing(())


async def test_reading_gives_text_and_blob_parts_with_their_bytes(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    async with runtime(store, agent_home, tmp_path) as rt:
        note = await rt.read_resource("rs", "fixture://notes/7")
        image = await rt.read_resource("rs", "fixture://image.png")
        data = await rt.read_resource("rs", "fixture://data.bin")
        greeting = await rt.read_resource("rs", "fixture://greeting/alice")

    assert note == (ResourceText("fixture://notes/7", "text/plain", "Note 7."),)
    assert image == (ResourceBlob("fixture://image.png", "image/png", tiny_png()),)
    assert image[0].image_type == "image/png"  # type: ignore[union-attr]
    assert data == (
        ResourceBlob("fixture://data.bin", "application/octet-stream", bytes(range(256))),
    )
    assert data[0].size == 256 and data[0].image_type is None  # type: ignore[union-attr]
    assert greeting == (ResourceText("fixture://greeting/alice", "text/plain", "Hello, alice!"),)


async def test_reading_a_missing_resource_is_the_servers_error_naming_it(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    async with runtime(store, agent_home, tmp_path) as rt:
        with pytest.raises(
            McpServerError,
            match=r"'rs' returned an error while reading a resource: no resource fixture://nope",
        ):
            await rt.read_resource("rs", "fixture://nope")
        # the connection is fine afterwards
        assert (await rt.read_resource("rs", "fixture://notes/1"))[0] == ResourceText(
            "fixture://notes/1", "text/plain", "Note 1."
        )


async def test_a_prompt_gives_text_image_and_embedded_resource_messages(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    async with runtime(store, agent_home, tmp_path) as rt:
        result = await rt.get_prompt("rs", "review", {"code": "x = 1", "style": "detailed"})

    assert result == PromptResult(
        description="A code review",
        messages=(
            PromptMessage("user", PromptText("Review this code (detailed):\nx = 1")),
            PromptMessage("user", PromptMedia("image", "image/png", tiny_png())),
            PromptMessage(
                "assistant",
                PromptResource(ResourceText("fixture://notes/1", "text/plain", "Note 1.")),
            ),
        ),
    )


@pytest.mark.parametrize(
    ("name", "arguments", "message"),
    [
        ("nope", {}, r"MCP server 'rs' has no prompt 'nope' \(its prompts: review, hello\)"),
        ("review", {}, r"prompt 'review' of MCP server 'rs' needs the argument 'code'"),
        (
            "review",
            {"code": "x", "colour": "red"},
            r"prompt 'review' of MCP server 'rs' takes no argument 'colour' "
            r"\(its arguments: code, style\)",
        ),
    ],
)
async def test_bad_prompt_requests_are_refused_before_anything_is_sent(
    store: McpStore,
    agent_home: Path,
    tmp_path: Path,
    name: str,
    arguments: dict[str, str],
    message: str,
) -> None:
    sent: list[str] = []
    async with runtime(
        store, agent_home, tmp_path, observe=lambda _s, d, text: sent.append(text)
    ) as rt:
        with pytest.raises(McpServerError, match=message):
            await rt.get_prompt("rs", name, arguments)
    assert not [text for text in sent if '"prompts/get"' in text]


async def test_list_changed_refreshes_the_cached_resources_and_prompts(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    changes: list[tuple[str, str]] = []
    seen = {"resources": anyio.Event(), "templates": anyio.Event(), "prompts": anyio.Event()}

    def listener(server: str, kind: str) -> None:
        changes.append((server, kind))
        seen[kind].set()

    async with runtime(store, agent_home, tmp_path) as rt:
        rt.add_catalog_listener(listener)
        await rt.resources("rs")
        await rt.resource_templates("rs")
        await rt.prompts("rs")
        await rt.call_tool("rs", "add_resource", {"name": "late"})
        await rt.call_tool("rs", "add_prompt", {"name": "late_prompt"})
        with anyio.fail_after(10):
            for event in seen.values():
                await event.wait()
        snapshot = rt.cached_catalog("rs")

    assert sorted(changes) == [("rs", "prompts"), ("rs", "resources"), ("rs", "templates")]
    assert snapshot.resources is not None and snapshot.prompts is not None
    assert snapshot.resources.items[-1].uri == "fixture://added/late"
    assert snapshot.prompts.items[-1].name == "late_prompt"


async def test_a_disabled_server_is_refused_and_an_untrusted_one_never_starts(
    agent_home: Path, tmp_path: Path
) -> None:
    store = McpStore(agent_home / "mcp-servers.json")
    save(store, {"off": resources_server(), "new": resources_server()})
    trust_launch(store, "off", tmp_path)
    enable(store, "new")
    trust = ScriptedTrust(answer=True)
    async with runtime(store, agent_home, tmp_path, trust=trust) as rt:
        with pytest.raises(
            McpServerError, match="'off' is disabled; enable it with: agent mcp enable off"
        ):
            await rt.resources("off")
        with pytest.raises(NotTrustedError, match="agent mcp trust new"):
            await rt.read_resource("new", "fixture://notes/1")
        with pytest.raises(NotTrustedError):
            await rt.get_prompt("new", "hello", {})
        with pytest.raises(NotTrustedError):
            await rt.complete("new", CompletionRef("prompt", "review"), "style", "")
        listing = await rt.resources("off", allow_disabled=True)  # the person's console
    assert trust.requests == []  # nothing asked: the chat and the model never ask for trust
    assert not (agent_home / "mcp" / "new.log").exists()
    assert len(listing.items) == 27


async def test_after_a_crash_the_lists_stay_on_offer_and_are_listed_again_on_next_use(
    store: McpStore, agent_home: Path, tmp_path: Path
) -> None:
    listings: list[str] = []

    def observe(server: str, direction: str, text: str) -> None:
        if direction == "send" and '"prompts/list"' in text:
            listings.append(text)

    async with runtime(store, agent_home, tmp_path, observe=observe) as rt:
        before = await rt.prompts("rs")
        [pid] = logged_pids(agent_home, "rs")
        os.kill(pid, signal.SIGKILL)
        with anyio.fail_after(10), pytest.raises(McpServerError, match="closed the connection"):
            await rt.read_resource("rs", "fixture://notes/1")  # the call that finds it gone
        kept = rt.cached_catalog("rs").prompts
        again = await rt.prompts("rs")  # restarts it (once) and lists again
        await rt.stop("rs")
        stopped = rt.cached_catalog("rs")

    assert kept == before and again == before
    assert len(listings) == 2
    assert stopped.prompts is None and stopped.resources is None
