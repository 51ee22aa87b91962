"""Skill discovery at start-up with 500 skills, against just listing and reading their files.

Discovery runs before every chat, so it must cost little more than the I/O it cannot avoid.
Baseline in the same run: os.scandir the skills folder and read each SKILL.md's bytes.
Measured: discover_skills over 500 realistic skills (frontmatter with metadata, a 2 KB body),
parse and validation included. The one-off `import yaml` is reported separately.

    .venv/bin/python bench/skills_discovery.py [skills] [rounds]
"""

from __future__ import annotations

import os
import statistics
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parent.parent
sys.path.insert(0, str(REPO))

SKILLS = int(sys.argv[1]) if len(sys.argv) > 1 else 500
ROUNDS = int(sys.argv[2]) if len(sys.argv) > 2 else 30

BODY = (
    "# Doing the thing\n\n"
    + "\n".join(f"{i}. Step {i}: read the input, check it, write the output." for i in range(40))
    + "\n"
)


def write_skills(root: Path, count: int) -> None:
    for index in range(count):
        name = f"skill-{index:04d}"
        folder = root / name
        folder.mkdir(parents=True)
        (folder / "SKILL.md").write_text(
            f"---\nname: {name}\n"
            f"description: Does task number {index} for the person. Use when they ask about "
            f"topic {index} or mention its files.\n"
            "license: MIT\n"
            'metadata:\n  author: bench\n  version: "1.0"\n'
            "---\n\n" + BODY,
            encoding="utf-8",
        )


def baseline(root: Path) -> int:
    """What any discovery must do: list the folders and read every SKILL.md."""
    total = 0
    with os.scandir(root) as entries:
        for entry in entries:
            if entry.is_dir():
                with open(os.path.join(entry.path, "SKILL.md"), "rb") as file:
                    total += len(file.read())
    return total


def median_ms(run: object, rounds: int) -> float:
    samples = []
    for _ in range(rounds):
        started = time.perf_counter()
        run()  # type: ignore[operator]
        samples.append(time.perf_counter() - started)
    return statistics.median(samples) * 1000


def main() -> None:
    with tempfile.TemporaryDirectory(prefix="agent-bench-skills-") as folder:
        base = Path(folder)
        project, home, bundled = base / "project", base / "home", base / "bundled"
        write_skills(project / ".agents" / "skills", SKILLS)
        home.mkdir()
        bundled.mkdir()

        started = time.perf_counter()
        import yaml  # noqa: F401  (the import discovery pays once per process)

        import_ms = (time.perf_counter() - started) * 1000
        from agent.skills.discovery import discover_skills

        def discover() -> None:
            found = discover_skills(project, user_dir=home, bundled_dir=bundled)
            assert len(found.skills) == SKILLS and not found.skipped

        discover()  # warm-up: imports, page cache
        baseline(project / ".agents" / "skills")
        bare = median_ms(lambda: baseline(project / ".agents" / "skills"), ROUNDS)
        full = median_ms(discover, ROUNDS)
    print(f"skill discovery, {SKILLS} skills, median of {ROUNDS} rounds")
    print(f"  scandir + read every SKILL.md: {bare:.2f} ms")
    print(
        f"  discover_skills:               {full:.2f} ms ({full / SKILLS * 1000:.0f} us per skill)"
    )
    print(f"  ratio: {full / bare:.1f}")
    print(f"  (once per process: import yaml {import_ms:.1f} ms)")


if __name__ == "__main__":
    main()
