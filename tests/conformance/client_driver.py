"""The client command the conformance suite runs: our real CLI against the scenario's server.

Run (by the suite): python client_driver.py SERVER_URL
with MCP_CONFORMANCE_SCENARIO (the scenario name) and, for some scenarios,
MCP_CONFORMANCE_CONTEXT (JSON: client_id, client_secret, private_key_pem, signing_algorithm).

Like a person would, in a throwaway AGENT_HOME:
1. `agent mcp import` a document naming the URL as server "conformance", with an `oauth`
   object built from the context: a pre-registered id, the secret and the private key file
   (private_key_jwt) as ${VAR} references set in the environment, the client_credentials
   grant, the client ID metadata document URL, and (with a secret or key) the issuer they
   belong to, which the context does not give: the driver looks it up as a person would
   (the resource's RFC 9728 metadata names the suite's authorization server);
2. for auth/* scenarios, `agent mcp login conformance` with $BROWSER set to
   tests/fixtures/follow_redirect.py (through an executable wrapper), which follows the
   authorization redirect to our loopback callback without a person;
3. `agent mcp tools conformance`, then `agent mcp call conformance TOOL --args ...` for the
   scenario's tool (or, where the scenario asks for it, one tool's schema as `agent mcp tools
   --schema` prints it, echoed through another tool). When one of them says "run agent mcp
   login" (a step-up, say), the driver does as a person would: logs in and runs it once more,
   never more. For elicitation
   scenarios the call runs on a pty and accepts each form with its defaults. Every step's output
   goes to stderr (the suite keeps it in stderr.txt); the first step that fails ends the
   run with its exit status.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import sys
import tempfile
import urllib.error
import urllib.request
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

REPO = Path(__file__).resolve().parents[2]
sys.path.insert(0, str(REPO))

from tests.fixtures.oauth_fixtures import browser_wrapper  # noqa: E402

SERVER = "conformance"
STEP_TIMEOUT = 60.0  # seconds per CLI step; the suite's own timeout is longer
# A client ID metadata document URL: the suite's CIMD server accepts exactly this one.
CLIENT_METADATA_URL = "https://conformance-test.local/client-metadata.json"
SECRET_VARIABLE = "CONFORMANCE_CLIENT_SECRET"
KEY_FILE_VARIABLE = "CONFORMANCE_PRIVATE_KEY_FILE"
# Arguments for the tools the suite's servers offer; any other tool is called with {}.
TOOL_ARGUMENTS: dict[str, dict[str, Any]] = {"add_numbers": {"a": 2, "b": 3}}
# Scenarios that ask the client to echo a tool's inputSchema, as we received it, through
# another tool: scenario -> (the echo tool, the tool whose schema it takes).
SCHEMA_ECHOES = {
    "json-schema-2020-12-preservation": ("json_schema_echo", "json_schema_2020_12_tool"),
}
# Scenarios whose checks need every tool called (the MRTR variants of sep-2322; the valid tool
# beside the invalid ones of http-invalid-tool-headers): each tool our CLI lists is called,
# with its required arguments filled, so a tool we should have left out reaches the wire and
# the scenario sees it. Their forms are accepted with defaults on a pty.
EVERY_TOOL = {"sep-2322-client-request-state", "http-invalid-tool-headers"}
# A value of each JSON type, for a required argument nobody chose.
FILLERS: dict[str, Any] = {"string": "x", "integer": 1, "number": 1, "boolean": True,
                           "object": {}, "array": [], "null": None}  # fmt: skip


def authorization_server(url: str) -> str | None:
    """The authorization server the resource at `url` names (RFC 9728), as a person looks it
    up before configuring a client secret: its 401's resource_metadata, else the well-known
    paths. None when it names none."""
    candidates = []
    headers = {"Content-Type": "application/json", "Accept": "application/json"}
    # The suite's own server URL (http on localhost), as every request below.
    request = urllib.request.Request(url, data=b"{}", method="POST", headers=headers)  # noqa: S310
    try:
        urllib.request.urlopen(request, timeout=STEP_TIMEOUT).close()  # noqa: S310
    except urllib.error.HTTPError as error:
        challenge = error.headers.get("WWW-Authenticate", "")
        if found := re.search(r'resource_metadata="([^"]+)"', challenge):
            candidates.append(found[1])
    except OSError:
        pass
    parts = urlsplit(url)
    origin = f"{parts.scheme}://{parts.netloc}"
    candidates.append(f"{origin}/.well-known/oauth-protected-resource{parts.path}")
    candidates.append(f"{origin}/.well-known/oauth-protected-resource")
    for candidate in candidates:
        try:
            with urllib.request.urlopen(candidate, timeout=STEP_TIMEOUT) as answer:  # noqa: S310
                servers = json.load(answer).get("authorization_servers") or []
        except (OSError, ValueError):
            continue
        if servers:
            return str(servers[0])
    return None


def oauth_object(
    scenario: str, context: dict[str, Any], home: Path, url: str = ""
) -> dict[str, Any] | None:
    """Our `oauth` configuration for this scenario, from its context."""
    oauth: dict[str, Any] = {}
    if "client_id" in context:
        oauth["clientId"] = context["client_id"]
    if "client_secret" in context:
        # Our configuration takes a secret only as a ${VAR} reference: it stays in the
        # environment and out of mcp-servers.json.
        oauth["clientSecret"] = "${" + SECRET_VARIABLE + "}"
    if "private_key_pem" in context:
        key = home / "client-key.pem"
        key.write_text(context["private_key_pem"], encoding="utf-8")
        key.chmod(0o600)
        oauth["privateKeyFile"] = "${" + KEY_FILE_VARIABLE + "}"
        oauth["signingAlgorithm"] = context.get("signing_algorithm") or "ES256"
    if scenario.startswith("auth/client-credentials"):
        oauth["grant"] = "client_credentials"
    if scenario == "auth/basic-cimd":
        oauth["clientMetadataUrl"] = CLIENT_METADATA_URL
    if ("clientSecret" in oauth or "privateKeyFile" in oauth) and (
        issuer := authorization_server(url)
    ):
        oauth["issuer"] = issuer  # a secret or key is only ever sent to its own server
    return oauth or None


def agent(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run one `agent` command (this interpreter's package), echoing its output to stderr."""
    completed = subprocess.run(
        [sys.executable, "-m", "agent", *args],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=STEP_TIMEOUT,
        check=False,
    )
    print(f"$ agent {' '.join(args)}  -> exit {completed.returncode}", file=sys.stderr)
    sys.stderr.write(completed.stdout + completed.stderr)
    sys.stderr.flush()
    return completed


def tool_names(listing: str) -> list[str]:
    """The TOOL column of `agent mcp tools` output."""
    lines = listing.splitlines()
    if not lines or "TOOL" not in lines[0]:
        return []
    return [line.split()[1] for line in lines[1:] if len(line.split()) > 1]


def run(url: str, scenario: str, context: dict[str, Any], home: Path) -> int:
    """The steps of the module docstring; the exit status of the first that fails, else 0."""
    env = dict(os.environ, AGENT_HOME=str(home / "agent-home"),
               BROWSER=str(browser_wrapper(home, log=home / "browser.jsonl")))  # fmt: skip
    env.pop("MCP_CONFORMANCE_CONTEXT", None)  # the CLI sees only what a person would give it
    if "client_secret" in context:
        env[SECRET_VARIABLE] = context["client_secret"]
    if "private_key_pem" in context:
        env[KEY_FILE_VARIABLE] = str(home / "client-key.pem")
    definition: dict[str, Any] = {"type": "streamable-http", "url": url}
    oauth = oauth_object(scenario, context, home, url)
    if oauth is not None:
        definition["oauth"] = oauth
    document = home / "servers.json"
    document.write_text(json.dumps({"mcpServers": {SERVER: definition}}), encoding="utf-8")
    if (imported := agent(env, "mcp", "import", str(document))).returncode != 0:
        return imported.returncode
    if scenario.startswith("sep-2640-"):  # the Skills extension: tests/conformance/skills_driver.py
        from tests.conformance.skills_driver import skill_steps

        return skill_steps(agent, env, SERVER, scenario)
    if scenario.startswith("auth/"):
        agent(env, "mcp", "login", SERVER)  # if it fails, the next step says what is missing
    listing = as_a_person(env, "mcp", "tools", SERVER)
    if listing.returncode != 0:
        return listing.returncode
    if scenario in SCHEMA_ECHOES:
        return echo_schema(env, *SCHEMA_ECHOES[scenario])
    if calls := context.get("toolCalls"):  # the scenario names the calls to make
        return max(named_call(env, call["name"], call.get("arguments", {})) for call in calls)
    if scenario in EVERY_TOOL:
        return call_every_tool(env)
    names = tool_names(listing.stdout)
    if not names:
        return 0  # initialize and list was the whole job
    tool = names[0]
    arguments = json.dumps(TOOL_ARGUMENTS.get(tool, {}))
    if scenario.startswith("elicitation"):
        return answering_forms(env, "mcp", "call", SERVER, tool, "--args", arguments)
    return as_a_person(env, "mcp", "call", SERVER, tool, "--args", arguments).returncode


def printed_schemas(listing: str) -> dict[str, Any]:
    """The schemas `agent mcp tools NAME --schema` prints: a `TOOL  (MODEL NAME)` line, then
    the tool's JSON Schema."""
    decoder, schemas, position = json.JSONDecoder(), {}, 0
    while (line_end := listing.find("\n", position)) >= 0:
        header = listing[position:line_end].split()
        if not header:
            position = line_end + 1
            continue
        schemas[header[0]], position = decoder.raw_decode(listing, line_end + 1)
        position += 1
    return schemas


def echo_schema(env: dict[str, str], echo: str, focal: str) -> int:
    """Call `echo` with `focal`'s inputSchema exactly as our CLI shows it (what a person
    copies from `agent mcp tools --schema`): the scenario compares it with what it sent."""
    shown = agent(env, "mcp", "tools", SERVER, "--schema")
    if shown.returncode != 0:
        return shown.returncode
    schema = printed_schemas(shown.stdout)[focal]
    arguments = json.dumps({"schema": schema})
    return as_a_person(env, "mcp", "call", SERVER, echo, "--args", arguments).returncode


def named_call(env: dict[str, str], tool: str, arguments: dict[str, Any]) -> int:
    """Call `tool` with the scenario's arguments. Our CLI checks arguments against the tool's
    schema and refuses a null where the schema wants a value (`verbose: null` for a boolean,
    in http-custom-headers); a person then leaves that argument out, which is the "not
    provided" case of the same check (the header must be omitted either way). So: once as
    given, and once more without the nulls only when the CLI refused those arguments."""
    done = as_a_person(env, "mcp", "call", SERVER, tool, "--args", json.dumps(arguments))
    given = {name: value for name, value in arguments.items() if value is not None}
    if done.returncode != 0 and "invalid arguments" in done.stderr and given != arguments:
        done = as_a_person(env, "mcp", "call", SERVER, tool, "--args", json.dumps(given))
    return done.returncode


def call_every_tool(env: dict[str, str]) -> int:
    """Call each tool `agent mcp tools --schema` shows, its required arguments filled, on a pty
    that accepts forms; the highest exit status."""
    shown = agent(env, "mcp", "tools", SERVER, "--schema")
    if shown.returncode != 0:
        return shown.returncode
    statuses = [0]
    for tool, schema in printed_schemas(shown.stdout).items():
        properties = schema.get("properties") or {}
        arguments = {name: FILLERS.get((properties.get(name) or {}).get("type"), "x")
                     for name in schema.get("required") or ()}  # fmt: skip
        statuses.append(answering_forms(env, "mcp", "call", SERVER, tool, "--args",
                                        json.dumps(arguments)))  # fmt: skip
    return max(statuses)


def answering_forms(env: dict[str, str], *args: str) -> int:
    """Run a command on a terminal (pty) and answer every form the server sends by accepting
    it and pressing Enter at each field, which keeps the field's default: what a person
    who agrees with the defaults does. Returns the command's exit status."""
    import pexpect

    print(f"$ agent {' '.join(args)}  (on a terminal, accepting defaults)", file=sys.stderr)
    child = pexpect.spawn(sys.executable, ["-m", "agent", *args], env=env,
                          encoding="utf-8", timeout=STEP_TIMEOUT)  # fmt: skip
    child.logfile_read = sys.stderr
    try:
        while (seen := child.expect([r"\[c\]ancel: ", r"[)\]]: ", pexpect.EOF])) != 2:
            child.send("y\r" if seen == 0 else "\r")
    finally:
        child.close(force=True)
    return child.exitstatus if child.exitstatus is not None else 1


def as_a_person(env: dict[str, str], *args: str) -> subprocess.CompletedProcess[str]:
    """Run a command; when it says to log in (expiry, step-up), log in and run it once more."""
    done = agent(env, *args)
    if done.returncode != 0 and f"agent mcp login {SERVER}" in done.stdout + done.stderr:
        agent(env, "mcp", "login", SERVER)
        done = agent(env, *args)
    return done


def main() -> int:
    """Read the suite's environment and run the steps in a throwaway home."""
    if len(sys.argv) != 2:
        print("usage: client_driver.py SERVER_URL", file=sys.stderr)
        return 2
    scenario = os.environ.get("MCP_CONFORMANCE_SCENARIO", "")
    context = json.loads(os.environ.get("MCP_CONFORMANCE_CONTEXT") or "{}")
    with tempfile.TemporaryDirectory(prefix="conformance-client-") as tmp:
        return run(sys.argv[1], scenario, context, Path(tmp))


if __name__ == "__main__":
    sys.exit(main())
