"""A step-up that never succeeds costs one login per person's request, never a loop.

The conformance suite's auth/scope-retry-limit: a server (hostile, or misconfigured) answers
403 insufficient_scope however much scope the token carries. A client that logs in again by
itself on every 403 would loop through the browser forever; ours never logs in by itself (a
call fails with the command to run) and a login asks once. Through the real CLI and fixture
(scoped_echo needs mcp:admin; the `never_enough` knob makes it refuse every token).
"""

from __future__ import annotations

from pathlib import Path

from tests.fixtures.oauth_cli import OAuthCli
from tests.fixtures.oauth_fixtures import running_oauth_server


def test_a_step_up_that_never_succeeds_asks_the_authorization_server_once_per_login(
    tmp_path: Path,
) -> None:
    with running_oauth_server() as server:
        server.knobs(never_enough=True)
        cli = OAuthCli(tmp_path, server)
        cli.login()
        denied = [cli.echo(tool="scoped_echo") for _ in range(3)]
        after_calls = len(server.state()["authorize_requests"])
        relogin = cli.run("mcp", "login", "fx")
        denied_again = cli.echo(tool="scoped_echo")
        after_login = len(server.state()["authorize_requests"])
        other = cli.echo("still")

    assert [call.returncode != 0 for call in denied] == [True, True, True]
    assert all("run agent mcp login fx" in call.stderr for call in denied), denied[0].stderr
    assert after_calls == 1  # only the person's login: three refused calls asked nothing
    assert relogin.returncode == 0, relogin.stdout + relogin.stderr
    assert denied_again.returncode != 0
    assert after_login == 2  # the second login asked once, then stopped
    assert (other.returncode, other.stdout.splitlines()[0]) == (0, "still"), other.stderr
