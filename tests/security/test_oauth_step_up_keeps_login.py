"""One 403 insufficient_scope fails that call only; the login and every other tool stay.

Review finding 5: a step-up answer on one tool dropped the whole login (tokens thrown away,
not revoked), so a hostile server or one attempt by the model at an admin tool logged the
person out of every tool. Through the real CLI and fixture (scoped_echo needs mcp:admin).
"""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import running_oauth_server


def test_a_step_up_fails_that_call_and_keeps_the_tokens_for_the_other_tools(
    tmp_path: Path,
) -> None:
    with running_oauth_server() as server:
        cli = OAuthCli(tmp_path, server)
        cli.login()
        before = cli.tokens()["servers"]["fx"]["tokens"]

        denied = cli.echo(tool="scoped_echo")
        after = cli.echo("after")
        record = cli.tokens()["servers"]["fx"]
        listed = cli.run("mcp", "list").stdout
        cli.login()
        asked = server.state()["authorize_requests"][-1]["scope"]
        allowed = cli.echo("up", tool="scoped_echo")

    assert denied.returncode != 0
    assert "needs more access for this (mcp:read mcp:admin)" in denied.stderr, denied.stderr
    assert "run agent mcp login fx" in denied.stderr
    assert (after.returncode, after.stdout.splitlines()[0]) == (0, "after"), after.stderr
    assert record["tokens"] == before and record["needs_login"] is False
    assert "more access wanted: mcp:read mcp:admin" in listed, listed
    assert set(asked.split()) == {"mcp:read", "mcp:admin"}
    assert (allowed.returncode, allowed.stdout.splitlines()[0]) == (0, "scoped: up")
