"""Numbers a person can trust, as they meet them: the real `agent` in a pseudo-terminal, the
scripted fake model server recording each request, resources_server.py (rs) started by the chat.

`/context`'s rows add up to its total, the total is the count of the request the model then
gets, and the toolbar says the same; a window nobody knows is said to be unknown, with the
setting that states it; the token line of a turn counts every request the turn made."""

from __future__ import annotations

import re
from pathlib import Path
from typing import Any

import pexpect

from tests.fixtures.mcp_fixtures import save_trusted_resources_server
from tests.pty_chat import scripted_chat

MODEL = "openai/fake-model"  # a model litellm does not know: its window is unknown
ROW = re.compile(r"^(  |    )(\S[^\r\n]*?)\s+([\d,]+) tokens?\b([^\r\n]*)", re.MULTILINE)
TOOLBAR = re.compile(r"context ([\d,]+) tokens?( \((\d+)%\))?")


CURSOR_QUERY = re.compile(r"\x1b\[6n")


def see(chat: pexpect.spawn, pattern: Any, timeout: float = 30) -> int:
    """Expect `pattern` (or one of a list: its index) on a terminal that answers prompt_toolkit's
    cursor position queries, as a real one does: only then does it draw the bottom toolbar."""
    patterns = pattern if isinstance(pattern, list) else [pattern]
    while True:
        index = chat.expect([CURSOR_QUERY, *patterns], timeout=timeout)
        if index:
            return index - 1
        chat.send("\x1b[40;1R")


def toolbar_figure(chat: pexpect.spawn) -> re.Match[str]:
    """The toolbar's context figure once counted. It is counted in a thread and drawn at the
    next refresh, which redraws only the cells that changed: Ctrl-L draws it whole."""
    for _attempt in range(20):
        chat.send("\x0c")
        if see(chat, [TOOLBAR, pexpect.TIMEOUT], timeout=1.5) == 0:
            assert chat.match is not None
            return chat.match
    raise AssertionError("the toolbar never showed the next request's tokens")


def context_rows(screen: str) -> list[tuple[int, str, int, str]]:
    """`/context`'s rows as drawn: (indent, name, tokens, the rest of the line)."""
    text = re.sub(r"\x1b\[[0-9;?]*[A-Za-z]", "", screen)
    return [
        (len(indent), name, int(number.replace(",", "")), rest.strip())
        for indent, name, number, rest in ROW.findall(text)
    ]


def count_request(body: dict[str, Any], drop_last: bool) -> int:
    """The request the model got, counted as agent counts (litellm's token counter)."""
    import litellm

    messages = body["messages"][:-1] if drop_last else body["messages"]
    # Another test may have loaded litellm through agent's loader, which turns it off.
    was, litellm.disable_token_counter = litellm.disable_token_counter, False
    try:
        return int(litellm.token_counter(model=MODEL, messages=messages, tools=body["tools"]))
    finally:
        litellm.disable_token_counter = was


def check_sums(rows: list[tuple[int, str, int, str]]) -> dict[str, int]:
    """Each top row is the sum of the rows under it, and the top rows sum to the total."""
    top: dict[str, int] = {}
    under: dict[str, int] = {}
    current = ""
    for indent, name, tokens, _rest in rows:
        if indent == 2:
            top[name] = tokens
            current = name
        else:
            under[current] = under.get(current, 0) + tokens
    assert list(top) == ["system prompt", "tools", "messages", "attachments", "total"]
    assert under["system prompt"] == top["system prompt"]
    assert under["tools"] == top["tools"]
    assert (
        sum(top[name] for name in ("system prompt", "tools", "messages", "attachments"))
        == (top["total"])
    )
    return top


def test_context_rows_add_up_to_the_request_the_model_gets_and_the_toolbar_agrees(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    project = tmp_path / "proj"
    (project / ".git").mkdir(parents=True)
    (project / "AGENTS.md").write_text("RULE: answer briefly\n")
    save_trusted_resources_server(agent_home, chat_env)
    read = {"id": "c1", "name": "read_file", "arguments": {"path": "AGENTS.md"}}
    turns = [
        {"tool_calls": [read], "usage": {"prompt_tokens": 1000, "completion_tokens": 7}},
        {"text": "Read it.", "usage": {"prompt_tokens": 2000, "completion_tokens": 23}},
        {"text": "Again."},
    ]
    chat_env.pop("PROMPT_TOOLKIT_NO_CPR")  # the toolbar is drawn where the height is known
    with scripted_chat(tmp_path, turns, chat_env, project) as (chat, fake):
        see(chat, "MCP server rs ready")
        see(chat, "›")
        chat.send("look at @rs:fixture://notes/7 and AGENTS.md\r")
        see(chat, r"Use these instruction files in this project\?")
        chat.send("y")
        see(chat, "Read it.")
        # Both requests of the turn: 1,000 + 2,000 in, 7 + 23 out.
        see(chat, "tokens 3,000 in · 30 out over 2 requests")
        see(chat, "›")
        figure = toolbar_figure(chat)
        toolbar = int(figure.group(1).replace(",", ""))
        assert figure.group(2) is None  # no share of a window nobody knows

        chat.send("/context\r")
        see(chat, r"total\s+[\d,]+ tokens? +context window unknown")
        rows = context_rows(chat.before + chat.after)
        see(chat, "openai/fake-model's context window is unknown")
        see(chat, "set model_limits.context_window_tokens in settings.yaml")
        see(chat, "›")
        chat.send("again\r")
        see(chat, "Again.")
        see(chat, "›")
        chat.send("/exit\r")
        see(chat, pexpect.EOF)
        requests = fake.requests()

    top = check_sums(rows)
    assert top["total"] == count_request(requests[2]["body"], drop_last=True)
    assert toolbar == top["total"]
    assert all(value > 0 for value in top.values())  # the attached note counts too
    named = {name: rest for _indent, name, _tokens, rest in rows}
    assert named["messages"] == "4 messages"  # question, tool call, its result, answer
    assert named["attachments"] == "1 resource"
    assert named["instruction files"] == "./AGENTS.md"
    assert named["tools"] == f"{len(requests[2]['body']['tools'])} tools"  # all of them


def test_a_window_set_in_settings_is_the_one_shown_with_its_share(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    agent_home.mkdir(exist_ok=True)
    (agent_home / "settings.yaml").write_text("model_limits:\n  context_window_tokens: 2048\n")
    chat_env.pop("PROMPT_TOOLKIT_NO_CPR")
    with scripted_chat(tmp_path, [{"text": "Hi."}], chat_env) as (chat, fake):
        see(chat, "›")
        chat.send("hello\r")
        see(chat, "Hi.")
        see(chat, "tokens [\\d,]+ in · [\\d,]+ out \\(session")  # one request: no count
        figure = toolbar_figure(chat)
        toolbar, share = int(figure.group(1).replace(",", "")), figure.group(3)
        chat.send("/context\r")
        see(
            chat,
            r"total\s+([\d,]+) tokens +([\d.]+)% of the context window \(2,048 tokens, "
            r"model_limits.context_window_tokens in settings.yaml\)",
        )
        total, percent = int(chat.match.group(1).replace(",", "")), float(chat.match.group(2))
        see(chat, "›")
        chat.send("/exit\r")
        see(chat, pexpect.EOF)
        fake.requests()

    assert toolbar == total
    assert percent == round(total / 2048 * 100, 1)
    assert share == f"{total / 2048:.0%}".rstrip("%")
