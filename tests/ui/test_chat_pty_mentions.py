"""`@path` and `@server:` as a person meets them: the real `agent` in a pseudo-terminal, Tab
pressed as people press it, the scripted fake model server (what it received is checked), and
resources_server.py (rs) started by the chat."""

from __future__ import annotations

import io
from pathlib import Path

import pexpect

from tests.fixtures.mcp_fixtures import save_trusted_resources_server
from tests.pty_chat import finish, scripted_chat
from tests.ui.test_chat_pty_resources import user_text

PASTE_START, PASTE_END = "\x1b[200~", "\x1b[201~"


def menu_once_ready(chat: pexpect.spawn, last: str, entry: str) -> None:
    """Wait for `entry` in the completion menu. The chat is built behind the prompt, and
    paths complete once it is: until then, the last character is typed again (as a person
    would see the menu at their next key)."""
    for _ in range(30):
        if chat.expect([entry, pexpect.TIMEOUT], timeout=1) == 0:
            return
        chat.send("\x7f" + last)
    raise AssertionError(f"{entry!r} never showed in the completion menu")


def test_a_second_tab_after_a_server_lists_its_resources(
    tmp_path: Path, agent_home: Path, chat_env: dict[str, str]
) -> None:
    save_trusted_resources_server(agent_home, chat_env)
    project = tmp_path / "project"  # no file of its own starts with r: one entry, rs:
    project.mkdir()
    with scripted_chat(tmp_path, [{"text": "Summed up."}], chat_env, project) as (chat, fake):
        chat.expect("MCP server rs ready")
        chat.expect("›")
        chat.send("sum up @r")
        chat.expect("MCP server")  # the menu, drawn while typing: one entry, rs:
        chat.send("\t")  # takes @rs:
        chat.send("\t")  # lists rs's resources (it used to go back to @r)
        chat.expect("fixture://notes/1")
        chat.send("notes/4\r")
        chat.expect("attached @rs:fixture://notes/4")
        chat.expect("Summed up.")
        chat.expect("›")
        finish(chat)
        (request,) = fake.requests()
    assert user_text(request).startswith("sum up @rs:fixture://notes/4")
    assert "\nNote 4.\n</attachment" in user_text(request)


def test_tab_completes_a_path_and_the_file_reaches_the_model(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    (tmp_path / "guides").mkdir()
    (tmp_path / "guides" / "setup.md").write_text("Run make install.\n")
    with scripted_chat(tmp_path, [{"text": "Read it."}], chat_env) as (chat, fake):
        chat.expect("›")
        chat.send("sum up @gui")
        menu_once_ready(chat, "i", "folder")  # the menu: guides/ and what it is
        chat.send("\t")  # takes guides/
        chat.send("\t")  # goes into it: its one file
        chat.expect("setup.md")
        chat.send(" please\r")
        chat.expect("attached @guides/setup.md \\(1 line\\)")
        chat.expect("Read it.")
        chat.expect("›")
        finish(chat)
        (request,) = fake.requests()
    sent = user_text(request)
    assert sent.startswith("sum up @guides/setup.md please")
    assert 'file="guides/setup.md"' in sent and "\nRun make install.\n</attachment" in sent


def test_a_refused_mention_sends_nothing_and_gives_the_message_back(
    tmp_path: Path, chat_env: dict[str, str]
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("my notes\n")
    (tmp_path / "secret.txt").write_text("s3cret\n")
    evil = "\x1b[2Jevil.txt"
    (project / evil).write_text("x\n")
    with scripted_chat(tmp_path, [{"text": "Fine."}], chat_env, project) as (chat, fake):
        chat.expect("›")
        chat.send("compare @notes.txt with @../secret.txt\r")
        chat.expect("@../secret.txt was not attached: it is outside the project")
        chat.expect("Nothing was sent")
        chat.expect("› compare @notes.txt with @../secret.txt")  # back, to correct
        chat.send("\x15")  # Ctrl-U: clear it
        chat.send(f"{PASTE_START}and @{evil}{PASTE_END}\r")  # pasted: ESC cannot be typed
        chat.expect("attached @\\\\x1b\\[2Jevil.txt")  # the name's escape shown, not run
        chat.expect("Fine.")
        chat.expect("›")
        chat.send("/exit\r")
        chat.expect(pexpect.EOF)
        requests = fake.requests()
    assert len(requests) == 1  # the refused message never reached the model
    sent = user_text(requests[0])
    assert "s3cret" not in sent and "my notes" not in sent
    assert sent.startswith(f"and @{evil}")


def test_the_menu_never_draws_a_hostile_file_name(tmp_path: Path, chat_env: dict[str, str]) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "notes.txt").write_text("my notes\n")
    (project / "\x1b]0;pwned\x07title.txt").write_text("x\n")
    (project / "new\nline-pwned.txt").write_text("x\n")
    with scripted_chat(tmp_path, [], chat_env, project) as (chat, _):
        chat.logfile_read = seen = io.StringIO()  # all that is drawn, not only since a match
        chat.expect("›")
        chat.send("see @")  # the menu of a bare @: every entry of the project
        menu_once_ready(chat, "@", "notes.txt")
        chat.expect(pexpect.TIMEOUT, timeout=1)  # the whole menu drawn
        drawn = seen.getvalue()
        chat.send("\x15/exit\r")
        chat.expect(pexpect.EOF)
    assert "pwned" not in drawn
