"""read_file streams the file by lines: an offset past the first 256 KiB reads from there,
and the output stays within the cap with the offset to go on from.

Attack (robustness): a file bigger than the cap could only ever be read in its first 256 KiB,
whatever offset the model asked for, so the rest was silently "(empty)".
"""

from __future__ import annotations

from pathlib import Path

from agent.tools.reading import READ_LIMIT_BYTES
from tests.security.inputs_helpers import agent_env, one_shot, tool_results

LINES = 60_000  # "line 00000\n" is 11 bytes: about 660 KB, well past the cap


def test_read_file_reads_past_the_first_256_kib_by_offset_and_says_where_to_go_on(
    tmp_path: Path,
) -> None:
    project = tmp_path / "project"
    project.mkdir()
    (project / "big.log").write_text("".join(f"line {n:05d}\n" for n in range(LINES)))
    per_cap = READ_LIMIT_BYTES // 11
    turns = [
        {
            "tool_calls": [
                {"id": "c1", "name": "read_file", "arguments": {"path": "big.log"}},
                {
                    "id": "c2",
                    "name": "read_file",
                    "arguments": {"path": "big.log", "offset": 50_000, "limit": 2},
                },
                {
                    "id": "c3",
                    "name": "read_file",
                    "arguments": {"path": "big.log", "offset": per_cap},
                },
                {
                    "id": "c4",
                    "name": "read_file",
                    "arguments": {"path": "big.log", "offset": LINES + 5},
                },
            ]
        },
        {"text": "done"},
    ]
    (tmp_path / "person").mkdir()
    env = agent_env(tmp_path / "person", tmp_path / "agent-home")

    done, requests = one_shot(turns, "read the log", env, project)

    assert done.returncode == 0, done.stderr
    results = tool_results(requests[1])
    note = f"[file cut at {READ_LIMIT_BYTES} bytes; read further with offset="
    first = results["c1"].split("\n")
    assert first[-1] == f"{note}{per_cap}]"
    assert first[:-2] == [f"line {n:05d}" for n in range(per_cap)]
    assert results["c2"] == "line 50000\nline 50001\n"
    assert results["c3"].startswith(f"line {per_cap:05d}\n")
    assert results["c3"].endswith(f"line {2 * per_cap - 1:05d}\n\n{note}{2 * per_cap}]")
    assert results["c4"] == f"(nothing at offset {LINES + 5}: the file has {LINES:,} lines)"
