"""MCP servers documents: the wrappers people already have, every rejection, canonical output."""

from __future__ import annotations

import json

import pytest

from agent.errors import DocumentError, Problem
from agent.mcp.config.definitions import HttpDefinition, HttpTransport, StdioDefinition
from agent.mcp.config.document import ServersDocument, parse_document, serialize_document
from agent.resources import config_dir

# --- the two wrappers and type inference -------------------------------------------------


def test_claude_desktop_wrapper_with_a_command_is_a_stdio_server() -> None:
    document = parse_document(
        '{"mcpServers": {"fetch": {"command": "uvx", "args": ["mcp-server-fetch"]}}}', "doc"
    )

    assert document == ServersDocument(
        (StdioDefinition(name="fetch", command="uvx", args=("mcp-server-fetch",)),)
    )


def test_vscode_wrapper_with_a_url_is_a_streamable_http_server() -> None:
    document = parse_document('{"servers": {"docs": {"url": "https://example.com/mcp"}}}', "doc")

    assert document == ServersDocument(
        (HttpDefinition(name="docs", url="https://example.com/mcp", transport="streamable-http"),)
    )


@pytest.mark.parametrize(
    ("declared", "transport"),
    [
        ("http", "streamable-http"),  # VS Code
        ("streamable-http", "streamable-http"),
        ("streamableHttp", "streamable-http"),  # Cline
        ("sse", "sse"),
    ],
)
def test_declared_http_types_map_to_their_transport(
    declared: str, transport: HttpTransport
) -> None:
    text = json.dumps({"servers": {"remote": {"type": declared, "url": "https://h.example/mcp"}}})

    document = parse_document(text, "doc")

    assert document.definitions == (
        HttpDefinition(name="remote", url="https://h.example/mcp", transport=transport),
    )


def test_explicit_stdio_type_with_every_stdio_field_is_kept_as_written() -> None:
    text = json.dumps(
        {
            "mcpServers": {
                "db": {
                    "type": "stdio",
                    "command": "uvx",
                    "args": ["mcp-server-sqlite", "--db-path", "${userHome}/app.db"],
                    "cwd": "${workspaceFolder}",
                    "env": {"LOG_LEVEL": "debug", "TOKEN": "${env:DB_TOKEN}"},
                }
            }
        }
    )

    document = parse_document(text, "doc")

    assert document.definitions == (
        StdioDefinition(
            name="db",
            command="uvx",
            args=("mcp-server-sqlite", "--db-path", "${userHome}/app.db"),
            cwd="${workspaceFolder}",
            env={"LOG_LEVEL": "debug", "TOKEN": "${env:DB_TOKEN}"},
        ),
    )


def test_servers_keep_document_order() -> None:
    text = '{"mcpServers": {"zeta": {"command": "z"}, "alpha": {"command": "a"}, "mid": {"url": "https://m.example"}}}'

    document = parse_document(text, "doc")

    assert [d.name for d in document.definitions] == ["zeta", "alpha", "mid"]


def test_an_empty_wrapper_is_an_empty_configuration() -> None:
    assert parse_document('{"mcpServers": {}}', "doc") == ServersDocument(())


def test_vscode_jsonc_with_comments_and_trailing_commas_parses() -> None:
    text = """// .vscode/mcp.json
{
  /* the "remote" one: a block comment with a quote " inside */
  "servers": {
    // the 27" monitor's server (an odd number of quotes in a comment)
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/", // not a comment: "//" sits in a string
      "headers": {"Authorization": "Bearer ${env:GITHUB_TOKEN}",},
    },
    "files": {"command": "npx", "args": ["-y", "server-filesystem", "/tmp/a,]",],},
    "win": {"command": "C:\\\\tools\\\\", "args": ["say \\"hi\\" // not a comment /*"]}, // one
  },
}
"""

    document = parse_document(text, "mcp.json")

    assert document.definitions == (
        HttpDefinition(
            name="github",
            url="https://api.githubcopilot.com/mcp/",
            headers={"Authorization": "Bearer ${env:GITHUB_TOKEN}"},
        ),
        StdioDefinition(name="files", command="npx", args=("-y", "server-filesystem", "/tmp/a,]")),
        StdioDefinition(name="win", command="C:\\tools\\", args=('say "hi" // not a comment /*',)),
    )


def test_a_byte_order_mark_is_ignored() -> None:
    document = parse_document('\ufeff{"mcpServers": {"a": {"command": "x"}}}', "doc")

    assert document.definitions == (StdioDefinition(name="a", command="x"),)


def test_invalid_json_names_the_line_even_after_comments() -> None:
    text = '{\n  /* one\n  two */\n  "mcpServers": {\n    "a": {"command": "x"}\n  \n'

    with pytest.raises(DocumentError) as caught:
        parse_document(text, "broken.json")

    assert str(caught.value) == (
        "broken.json: not valid JSON at line 7 column 1: Expecting ',' delimiter"
    )


@pytest.mark.parametrize("text", ["", "  \n\t\n", "// nothing yet\n/* really */\n", "\ufeff"])
def test_an_empty_document_says_it_is_empty(text: str) -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document(text, "<stdin>")

    assert str(caught.value) == "<stdin>: empty document"


def test_a_server_fragment_pasted_from_a_readme_suggests_the_wrapper() -> None:
    text = '"github": {\n  "command": "npx",\n  "args": ["-y", "server-github"]\n},\n'

    with pytest.raises(DocumentError) as caught:
        parse_document(text, "readme.json")

    assert str(caught.value) == (
        "readme.json: not valid JSON at line 1 column 9: Extra data; if this is a fragment, "
        'wrap it in {"mcpServers": { ... }}'
    )


def test_a_wrapper_fragment_suggests_only_the_outer_braces() -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document('"mcpServers": {"a": {"command": "x"}}', "doc")

    assert str(caught.value) == (
        "doc: not valid JSON at line 1 column 13: Extra data; if this is a fragment, "
        "wrap it in { ... }"
    )


def test_extra_data_after_a_whole_object_gets_no_fragment_hint() -> None:
    with pytest.raises(DocumentError) as caught:
        parse_document('{"mcpServers": {}}\n{"servers": {}}', "doc")

    assert str(caught.value) == "doc: not valid JSON at line 2 column 1: Extra data"


# --- rejections: each with its place and a precise message -------------------------------


def _problems(text: str) -> tuple[Problem, ...]:
    with pytest.raises(DocumentError) as caught:
        parse_document(text, "doc")
    return caught.value.problems


def test_a_server_with_both_command_and_url_is_rejected() -> None:
    assert _problems('{"mcpServers": {"a": {"command": "x", "url": "https://h.example"}}}') == (
        Problem(
            "mcpServers.a",
            "has both command and url; a server is a local command or a URL, not both",
        ),
    )


def test_a_server_with_neither_command_nor_url_is_rejected() -> None:
    assert _problems('{"mcpServers": {"a": {"args": ["x"]}}}') == (
        Problem("mcpServers.a", "has neither command (a local server) nor url (a remote server)"),
    )


def test_an_unknown_type_is_rejected_listing_the_accepted_ones() -> None:
    assert _problems('{"servers": {"a": {"type": "websocket", "url": "wss://h.example"}}}') == (
        Problem(
            "servers.a.type",
            'unknown type "websocket"; use one of: commands, http, sse, stdio, streamable-http, '
            "streamableHttp, streamable_http",
        ),
    )


def test_a_non_string_type_is_an_unknown_type() -> None:
    assert _problems('{"servers": {"a": {"type": 1, "command": "x"}}}') == (
        Problem(
            "servers.a.type",
            "unknown type 1; use one of: commands, http, sse, stdio, streamable-http, "
            "streamableHttp, streamable_http",
        ),
    )


def test_headers_on_a_stdio_server_are_rejected() -> None:
    assert _problems(
        '{"mcpServers": {"a": {"command": "x", "headers": {"Authorization": "Bearer t"}}}}'
    ) == (
        Problem(
            "mcpServers.a.headers",
            "not allowed on a stdio server (headers belongs to HTTP servers)",
        ),
    )


def test_stdio_fields_on_an_http_server_are_rejected() -> None:
    assert _problems(
        '{"servers": {"a": {"type": "http", "url": "https://h.example",'
        ' "args": [], "env": {"K": "v"}, "cwd": "/"}}}'
    ) == tuple(
        Problem(
            f"servers.a.{key}",
            f"not allowed on an HTTP server ({key} belongs to local stdio servers)",
        )
        for key in ("args", "env", "cwd")
    )


def test_a_misspelt_command_is_named_with_a_suggestion_instead_of_neither() -> None:
    text = '{"mcpServers": {"filesystem": {"comand": "npx", "args": ["-y", "server-fs"]}}}'

    assert _problems(text) == (
        Problem("mcpServers.filesystem.comand", "unknown field (did you mean command?)"),
    )


@pytest.mark.parametrize(
    ("field", "guess"), [("cmd", "command"), ("Command", "command"), ("uri", "url")]
)
def test_without_command_or_url_a_near_field_is_read_as_a_typo_of_them(
    field: str, guess: str
) -> None:
    assert _problems(json.dumps({"servers": {"a": {field: "x"}}})) == (
        Problem(f"servers.a.{field}", f"unknown field (did you mean {guess}?)"),
    )


def test_a_server_with_neither_and_an_unrelated_unknown_field_reports_both() -> None:
    assert _problems('{"mcpServers": {"a": {"program": "npx"}}}') == (
        Problem("mcpServers.a", "has neither command (a local server) nor url (a remote server)"),
        Problem(
            "mcpServers.a.program", "unknown field; it could change what runs, so it is not ignored"
        ),
    )


def test_unknown_fields_of_a_usable_server_get_a_suggestion_when_one_is_close() -> None:
    text = '{"mcpServers": {"a": {"command": "x", "arg": ["y"], "enviroment": {}, "Disabled": 1}}}'

    assert _problems(text) == (
        Problem("mcpServers.a.arg", "unknown field (did you mean args?)"),
        Problem(
            "mcpServers.a.enviroment",
            "unknown field; it could change what runs, so it is not ignored",
        ),
        Problem("mcpServers.a.Disabled", "unknown field (did you mean disabled?)"),
    )


def test_unknown_fields_are_reported_even_when_the_type_is_unknown() -> None:
    assert _problems('{"servers": {"a": {"type": "ws", "urll": "wss://h.example"}}}') == (
        Problem(
            "servers.a.type",
            'unknown type "ws"; use one of: commands, http, sse, stdio, streamable-http, '
            "streamableHttp, streamable_http",
        ),
        Problem("servers.a.urll", "unknown field (did you mean url?)"),
    )


def test_a_whole_command_line_in_command_is_kept_with_a_notice() -> None:
    document = parse_document('{"mcpServers": {"x": {"command": "npx -y foo"}}}', "doc")

    assert document == ServersDocument(
        (StdioDefinition(name="x", command="npx -y foo"),),
        ("mcpServers.x.command: contains spaces; if these are arguments, put them in args",),
    )


def test_a_command_with_spaces_and_args_is_a_path_and_gets_no_notice() -> None:
    text = json.dumps(
        {"servers": {"app": {"command": "/Applications/My App/server", "args": ["--stdio"]}}}
    )

    assert parse_document(text, "doc").notices == ()


def test_an_unknown_field_is_rejected_because_it_could_change_what_runs() -> None:
    assert _problems('{"mcpServers": {"a": {"command": "x", "sandbox": {"net": false}}}}') == (
        Problem(
            "mcpServers.a.sandbox", "unknown field; it could change what runs, so it is not ignored"
        ),
    )


def test_vscode_envfile_is_rejected_with_advice() -> None:
    assert _problems(
        '{"servers": {"a": {"command": "x", "envFile": "${workspaceFolder}/.env"}}}'
    ) == (
        Problem(
            "servers.a.envFile",
            "envFile is not supported; list the variables in env, as ${VAR} references to "
            "read them from your environment",
        ),
    )


def test_fields_other_clients_write_that_change_nothing_are_ignored_with_a_notice() -> None:
    document = parse_document(
        '{"mcpServers": {"a": {"command": "x", "disabled": false, "autoApprove": ["read"],'
        ' "timeout": 60}}}',
        "doc",
    )

    assert document == ServersDocument(
        (StdioDefinition(name="a", command="x"),),
        (
            "mcpServers.a.disabled: ignored (it does not change what runs)",
            "mcpServers.a.autoApprove: ignored (it does not change what runs)",
            "mcpServers.a.timeout: ignored (it does not change what runs)",
        ),
    )


@pytest.mark.parametrize(
    ("url", "message"),
    [
        ("ftp://files.example.com/mcp", "must start with http:// or https://"),
        ("ws://h.example/mcp", "must start with http:// or https://"),
        ("h.example/mcp", "must start with http:// or https://"),
        ("file:///etc/passwd", "must start with http:// or https://"),
        ("https:///mcp", "has no host"),
        ("http://", "has no host"),
        (
            "https://user:pass@h.example/mcp",
            "embedded credentials are not allowed; send them in headers instead",
        ),
        (
            "https://token@h.example/mcp",
            "embedded credentials are not allowed; send them in headers instead",
        ),
        (
            "http://localhost:99999/mcp",
            "not a valid URL (its port is not a number from 0 to 65535; credentials belong in a "
            "header, not the URL)",
        ),
    ],
)
def test_unusable_urls_are_rejected(url: str, message: str) -> None:
    text = json.dumps({"servers": {"github": {"url": url}}})

    assert _problems(text) == (Problem("servers.github.url", message),)


def test_an_url_reference_is_accepted_and_kept_as_written() -> None:
    document = parse_document(
        '{"mcpServers": {"a": {"url": "https://${MCP_HOST}/mcp?key=${env:KEY}"},'
        ' "b": {"url": "${MCP_URL}"}}}',
        "doc",
    )

    assert document.definitions == (
        HttpDefinition(name="a", url="https://${MCP_HOST}/mcp?key=${env:KEY}"),
        HttpDefinition(name="b", url="${MCP_URL}"),
    )


def test_non_string_values_are_rejected_at_each_place() -> None:
    text = json.dumps(
        {
            "mcpServers": {
                "local": {
                    "command": ["npx"],
                    "args": ["-y", 3, True, None],
                    "cwd": 7,
                    "env": {"PORT": 8080, "DEBUG": False},
                },
                "remote": {"url": 42, "headers": {"X-Retries": 3}},
                "lists": {"command": "x", "args": "--flag", "env": ["A=b"]},
                "nothing": "npx server",
            }
        }
    )

    assert _problems(text) == (
        Problem("mcpServers.local.command", "expected a string, got a list"),
        Problem("mcpServers.local.args[1]", "expected a string, got a number"),
        Problem("mcpServers.local.args[2]", "expected a string, got a boolean"),
        Problem("mcpServers.local.args[3]", "expected a string, got null"),
        Problem("mcpServers.local.cwd", "expected a string, got a number"),
        Problem("mcpServers.local.env.PORT", "expected a string, got a number"),
        Problem("mcpServers.local.env.DEBUG", "expected a string, got a boolean"),
        Problem("mcpServers.remote.url", "expected a string, got a number"),
        Problem("mcpServers.remote.headers.X-Retries", "expected a string, got a number"),
        Problem("mcpServers.lists.args", "expected a list of strings, got str"),
        Problem("mcpServers.lists.env", "expected an object of strings, got a list"),
        Problem("mcpServers.nothing", "expected an object with command or url"),
    )


def test_empty_command_and_empty_cwd_are_rejected() -> None:
    assert _problems('{"mcpServers": {"a": {"command": "  ", "cwd": ""}}}') == (
        Problem("mcpServers.a.command", "must not be empty"),
        Problem("mcpServers.a.cwd", "must not be empty (leave it out to use the default)"),
    )


def test_a_header_value_with_a_line_break_is_rejected() -> None:
    text = json.dumps(
        {"servers": {"a": {"url": "https://h.example", "headers": {"X-Key": "v\r\nHost: evil"}}}}
    )

    assert _problems(text) == (
        Problem("servers.a.headers.X-Key", "header values cannot contain line breaks"),
    )


def test_invalid_header_and_env_names_are_rejected() -> None:
    text = json.dumps(
        {
            "servers": {
                "a": {"url": "https://h.example", "headers": {"Bad Header": "v"}},
                "b": {"command": "x", "env": {"A=B": "v"}},
            }
        }
    )

    assert _problems(text) == (
        Problem("servers.a.headers.Bad Header", "not a valid header name"),
        Problem("servers.b.env.A=B", "not a valid variable name"),
    )


def test_names_that_collide_after_normalisation_are_rejected_naming_both() -> None:
    text = '{"mcpServers": {"Context 7": {"command": "a"}, "context-7": {"command": "b"}}}'

    assert _problems(text) == (
        Problem(
            "mcpServers", "'Context 7' and 'context-7' both normalise to 'context-7'; rename one"
        ),
    )


def test_a_name_without_letters_or_digits_is_rejected() -> None:
    assert _problems('{"mcpServers": {"--": {"command": "x"}}}') == (
        Problem(
            "mcpServers.--",
            "the name needs at least one letter or digit (it names the server's tools)",
        ),
    )


def test_a_name_with_spaces_is_quoted_in_paths() -> None:
    assert _problems('{"mcpServers": {"My Server": {"command": 5}}}') == (
        Problem('mcpServers["My Server"].command', "expected a string, got a number"),
    )


def test_vscode_input_references_are_rejected_with_advice() -> None:
    text = json.dumps(
        {
            "inputs": [{"type": "promptString", "id": "token", "password": True}],
            "servers": {
                "github": {
                    "type": "http",
                    "url": "https://api.githubcopilot.com/mcp/",
                    "headers": {"Authorization": "Bearer ${input:token}"},
                }
            },
        }
    )

    assert _problems(text) == (
        Problem(
            "servers.github.headers.Authorization",
            "${input:token} asks VS Code to prompt for a value, which agent cannot do; use a "
            "literal value or an environment variable reference such as ${env:NAME}",
        ),
    )


def test_unsupported_and_unclosed_references_are_rejected() -> None:
    text = json.dumps(
        {
            "mcpServers": {
                "a": {
                    "command": "x",
                    "args": ["${command:pickFile}", "${TOKEN"],
                    "env": {"K": "${}"},
                }
            }
        }
    )

    assert _problems(text) == (
        Problem(
            "mcpServers.a.args[0]",
            "${command:pickFile} is not a supported reference; use ${NAME} or ${env:NAME} for "
            "an environment variable",
        ),
        Problem("mcpServers.a.args[1]", "unclosed ${ (a reference looks like ${NAME})"),
        Problem(  # an env value may be a secret pasted in braces: described, not quoted
            "mcpServers.a.env.K",
            "a ${...} in the value (not shown: it may be a secret) is not a supported reference; "
            "use ${NAME} or ${env:NAME} for an environment variable",
        ),
    )


def test_a_reference_in_the_command_is_rejected() -> None:
    assert _problems('{"mcpServers": {"a": {"command": "${HOME}/bin/server"}}}') == (
        Problem(
            "mcpServers.a.command", "references are not expanded here; write the value literally"
        ),
    )


def test_unreferenced_inputs_are_allowed_with_a_notice() -> None:
    text = json.dumps(
        {
            "inputs": [{"type": "promptString", "id": "unused", "password": True}],
            "servers": {"a": {"command": "x"}},
        }
    )

    assert parse_document(text, "doc") == ServersDocument(
        (StdioDefinition(name="a", command="x"),),
        ("inputs: ignored (VS Code input prompts are not used by agent)",),
    )


# --- the wrapper itself ----------------------------------------------------------------


def test_a_document_with_both_wrappers_is_rejected() -> None:
    text = '{"mcpServers": {"a": {"command": "x"}}, "servers": {"b": {"command": "y"}}}'

    assert _problems(text) == (Problem("", "has both mcpServers and servers; keep exactly one"),)


def test_a_document_with_neither_wrapper_is_rejected() -> None:
    assert _problems('{"tools": {}}') == (
        Problem("", "expected mcpServers (Claude Desktop, Cursor) or servers (VS Code)"),
    )


def test_servers_without_a_wrapper_are_rejected_showing_the_wrapper_with_the_first_name() -> None:
    text = json.dumps(
        {
            "github": {"command": "npx", "args": ["-y", "@modelcontextprotocol/server-github"]},
            "docs": {"type": "http", "url": "https://d.example/mcp"},
            "remote": {"url": "https://r.example/mcp"},
        }
    )

    assert _problems(text) == (
        Problem(
            "", 'looks like servers without a wrapper; write {"mcpServers": {"github": {...}}}'
        ),
    )


def test_an_object_with_one_value_that_is_not_a_server_is_not_taken_for_servers() -> None:
    text = '{"github": {"command": "npx"}, "theme": "dark"}'

    assert _problems(text) == (
        Problem("", "expected mcpServers (Claude Desktop, Cursor) or servers (VS Code)"),
    )


@pytest.mark.parametrize(
    "snippet",
    [
        '{"command": "npx", "args": ["-y", "@modelcontextprotocol/server-memory"]}',
        '{"type": "http", "url": "https://h.example/mcp"}',
        '{"url": "https://h.example/mcp"}',
    ],
)
def test_an_unwrapped_single_server_snippet_is_rejected(snippet: str) -> None:
    assert _problems(snippet) == (
        Problem(
            "",
            'looks like a single server; wrap it with a name: {"mcpServers": {"NAME": {...}}}',
        ),
    )


def test_vscode_user_settings_are_recognised_and_rejected() -> None:
    text = '{"editor.fontSize": 14, "mcp": {"servers": {"a": {"command": "x"}}}}'

    assert _problems(text) == (
        Problem("", 'looks like VS Code settings; import the value of "mcp" ({"servers": {...}})'),
    )


@pytest.mark.parametrize("text", ["[]", '"mcpServers"', "null", "3"])
def test_a_document_that_is_not_an_object_is_rejected(text: str) -> None:
    assert _problems(text) == (Problem("", "expected a JSON object with mcpServers or servers"),)


def test_a_wrapper_that_is_not_an_object_is_rejected() -> None:
    assert _problems('{"mcpServers": [{"command": "x"}]}') == (
        Problem("mcpServers", "expected an object of servers by name"),
    )


def test_a_duplicate_server_name_is_rejected() -> None:
    text = '{"mcpServers": {"github": {"command": "a"}, "github": {"command": "b"}}}'

    assert _problems(text) == (Problem("", "key 'github' appears twice"),)


def test_a_duplicate_key_inside_a_server_is_rejected() -> None:
    text = '{"mcpServers": {"a": {"command": "x", "env": {"K": "1", "K": "2"}}}}'

    assert _problems(text) == (Problem("", "key 'K' appears twice"),)


# --- all problems together --------------------------------------------------------------


def test_every_problem_of_a_document_is_reported_together_with_its_place() -> None:
    text = json.dumps(
        {
            "servers": {
                "github": {"type": "http", "url": "https://user:pass@api.github.com/mcp"},
                "both": {"command": "x", "url": "https://h.example"},
                "local": {"command": "npx", "headers": {"A": "b"}, "env": {"N": 1}},
                "ok": {"command": "uvx", "args": ["mcp-server-fetch"]},
                "Local": {"command": "y"},
            }
        }
    )

    with pytest.raises(DocumentError) as caught:
        parse_document(text, "team.json")

    assert str(caught.value) == "\n".join(
        [
            "team.json: servers.github.url: embedded credentials are not allowed; send them in "
            "headers instead",
            "team.json: servers.both: has both command and url; a server is a local command or "
            "a URL, not both",
            "team.json: servers.local.headers: not allowed on a stdio server (headers belongs to "
            "HTTP servers)",
            "team.json: servers.local.env.N: expected a string, got a number",
            "team.json: servers: 'local' and 'Local' both normalise to 'local'; rename one",
        ]
    )
    assert caught.value.source == "team.json"
    assert len(caught.value.problems) == 5


# --- canonical serialisation ------------------------------------------------------------

_MIXED = (
    StdioDefinition(
        name="github",
        command="npx",
        args=("-y", "@modelcontextprotocol/server-github"),
        env={"GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"},
    ),
    StdioDefinition(name="Local DB", command="uvx", args=("mcp-server-sqlite",), cwd="/srv/ü"),
    HttpDefinition(
        name="context7",
        url="https://mcp.context7.com/mcp",
        headers={"Authorization": "Bearer ${env:CONTEXT7_API_KEY}"},
    ),
    HttpDefinition(name="legacy", url="http://localhost:8000/sse", transport="sse"),
)


def test_serialisation_is_the_canonical_mcpservers_document() -> None:
    assert (
        serialize_document(_MIXED)
        == """{
  "mcpServers": {
    "github": {
      "type": "stdio",
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-github"
      ],
      "env": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "${GITHUB_TOKEN}"
      }
    },
    "Local DB": {
      "type": "stdio",
      "command": "uvx",
      "args": [
        "mcp-server-sqlite"
      ],
      "cwd": "/srv/ü"
    },
    "context7": {
      "type": "streamable-http",
      "url": "https://mcp.context7.com/mcp",
      "headers": {
        "Authorization": "Bearer ${env:CONTEXT7_API_KEY}"
      }
    },
    "legacy": {
      "type": "sse",
      "url": "http://localhost:8000/sse"
    }
  }
}
"""
    )


def test_parsing_the_serialisation_gives_back_the_same_definitions() -> None:
    assert parse_document(serialize_document(_MIXED), "doc") == ServersDocument(_MIXED)


def test_serialisation_is_byte_stable_through_a_round_trip() -> None:
    vscode = """{
      "servers": {
        "b": {"type": "http", "url": "https://b.example/mcp", "headers": {"X-Key": "k"},},
        "a": {"env": {"Z": "1", "A": "2"}, "args": ["--x"], "command": "run"},
      },
    }"""

    first = serialize_document(parse_document(vscode, "mcp.json").definitions)
    second = serialize_document(parse_document(first, "canonical").definitions)

    assert second == first
    assert first.startswith('{\n  "mcpServers": {\n    "b": {\n      "type": "streamable-http"')


# --- documents shaped like the ones people publish --------------------------------------


def test_a_claude_desktop_config_with_npx_uvx_and_env_blocks() -> None:
    text = r"""{
  "mcpServers": {
    "filesystem": {
      "command": "npx",
      "args": [
        "-y",
        "@modelcontextprotocol/server-filesystem",
        "/Users/username/Desktop",
        "/Users/username/Downloads"
      ]
    },
    "github": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-github"],
      "env": {
        "GITHUB_PERSONAL_ACCESS_TOKEN": "<YOUR_TOKEN>"
      }
    },
    "brave-search": {
      "command": "npx",
      "args": ["-y", "@modelcontextprotocol/server-brave-search"],
      "env": {"BRAVE_API_KEY": "YOUR_API_KEY_HERE"}
    },
    "fetch": {"command": "uvx", "args": ["mcp-server-fetch"]},
    "sqlite": {
      "command": "uvx",
      "args": ["mcp-server-sqlite", "--db-path", "C:\\Users\\me\\test.db"]
    },
    "memory": {
      "command": "cmd",
      "args": ["/c", "npx", "-y", "@modelcontextprotocol/server-memory"]
    },
    "git": {
      "command": "docker",
      "args": ["run", "--rm", "-i", "--mount", "type=bind,src=/Users/me,dst=/me", "mcp/git"]
    }
  }
}"""

    document = parse_document(text, "claude_desktop_config.json")

    assert document == ServersDocument(
        (
            StdioDefinition(
                name="filesystem",
                command="npx",
                args=(
                    "-y",
                    "@modelcontextprotocol/server-filesystem",
                    "/Users/username/Desktop",
                    "/Users/username/Downloads",
                ),
            ),
            StdioDefinition(
                name="github",
                command="npx",
                args=("-y", "@modelcontextprotocol/server-github"),
                env={"GITHUB_PERSONAL_ACCESS_TOKEN": "<YOUR_TOKEN>"},
            ),
            StdioDefinition(
                name="brave-search",
                command="npx",
                args=("-y", "@modelcontextprotocol/server-brave-search"),
                env={"BRAVE_API_KEY": "YOUR_API_KEY_HERE"},
            ),
            StdioDefinition(name="fetch", command="uvx", args=("mcp-server-fetch",)),
            StdioDefinition(
                name="sqlite",
                command="uvx",
                args=("mcp-server-sqlite", "--db-path", "C:\\Users\\me\\test.db"),
            ),
            StdioDefinition(
                name="memory",
                command="cmd",
                args=("/c", "npx", "-y", "@modelcontextprotocol/server-memory"),
            ),
            StdioDefinition(
                name="git",
                command="docker",
                args=("run", "--rm", "-i", "--mount", "type=bind,src=/Users/me,dst=/me", "mcp/git"),
            ),
        )
    )


def test_a_cursor_config_with_remote_servers_and_bearer_tokens() -> None:
    text = """{
  "mcpServers": {
    "context7": {
      "url": "https://mcp.context7.com/mcp",
      "headers": {"CONTEXT7_API_KEY": "ctx7sk-0123456789"}
    },
    "linear": {
      "url": "https://mcp.linear.app/sse"
    },
    "supabase": {
      "url": "https://mcp.supabase.com/mcp?project_ref=abc&read_only=true",
      "headers": {"Authorization": "Bearer ${env:SUPABASE_ACCESS_TOKEN}"}
    },
    "stripe": {
      "command": "npx",
      "args": ["-y", "@stripe/mcp", "--tools=all"],
      "env": {"STRIPE_SECRET_KEY": "${STRIPE_SECRET_KEY}"}
    }
  }
}"""

    document = parse_document(text, "~/.cursor/mcp.json")

    assert document.definitions == (
        HttpDefinition(
            name="context7",
            url="https://mcp.context7.com/mcp",
            headers={"CONTEXT7_API_KEY": "ctx7sk-0123456789"},
        ),
        HttpDefinition(name="linear", url="https://mcp.linear.app/sse"),
        HttpDefinition(
            name="supabase",
            url="https://mcp.supabase.com/mcp?project_ref=abc&read_only=true",
            headers={"Authorization": "Bearer ${env:SUPABASE_ACCESS_TOKEN}"},
        ),
        StdioDefinition(
            name="stripe",
            command="npx",
            args=("-y", "@stripe/mcp", "--tools=all"),
            env={"STRIPE_SECRET_KEY": "${STRIPE_SECRET_KEY}"},
        ),
    )


def test_a_vscode_mcp_json_with_inputs_that_uses_env_references_instead() -> None:
    text = """{
  // 💡 Inputs are prompted on first server start, then stored securely by VS Code.
  "inputs": [
    {
      "type": "promptString",
      "id": "perplexity-key",
      "description": "Perplexity API Key",
      "password": true
    }
  ],
  "servers": {
    // https://github.com/ppl-ai/modelcontextprotocol/
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": {
        "PERPLEXITY_API_KEY": "${env:PERPLEXITY_API_KEY}"
      }
    },
    "playwright": {
      "command": "npx",
      "args": ["@playwright/mcp@latest"],
      "cwd": "${workspaceFolder}"
    },
    "github": {
      "type": "http",
      "url": "https://api.githubcopilot.com/mcp/"
    },
  }
}"""

    document = parse_document(text, ".vscode/mcp.json")

    assert document == ServersDocument(
        (
            StdioDefinition(
                name="Perplexity",
                command="npx",
                args=("-y", "server-perplexity-ask"),
                env={"PERPLEXITY_API_KEY": "${env:PERPLEXITY_API_KEY}"},
            ),
            StdioDefinition(
                name="playwright",
                command="npx",
                args=("@playwright/mcp@latest",),
                cwd="${workspaceFolder}",
            ),
            HttpDefinition(name="github", url="https://api.githubcopilot.com/mcp/"),
        ),
        ("inputs: ignored (VS Code input prompts are not used by agent)",),
    )


def test_a_vscode_mcp_json_that_prompts_for_its_key_is_rejected_at_the_reference() -> None:
    text = """{
  "inputs": [
    {"type": "promptString", "id": "perplexity-key", "description": "Key", "password": true}
  ],
  "servers": {
    "Perplexity": {
      "type": "stdio",
      "command": "npx",
      "args": ["-y", "server-perplexity-ask"],
      "env": {"PERPLEXITY_API_KEY": "${input:perplexity-key}"}
    }
  }
}"""

    assert _problems(text) == (
        Problem(
            "servers.Perplexity.env.PERPLEXITY_API_KEY",
            "${input:perplexity-key} asks VS Code to prompt for a value, which agent cannot do; "
            "use a literal value or an environment variable reference such as ${env:NAME}",
        ),
    )


@pytest.mark.parametrize(
    "name",
    ["claude_desktop_config.json", "cursor-mcp.json", "vscode-mcp.json", "commands-mcp.json"],
)
def test_the_shipped_example_documents_are_valid(name: str) -> None:
    path = config_dir() / "examples" / name

    document = parse_document(path.read_text(encoding="utf-8"), name)

    assert document.notices == ()
    assert len(document.definitions) >= 2
