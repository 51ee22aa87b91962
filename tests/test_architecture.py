"""ARCHITECTURE.md stays true: it names every package and wing, and states the rules we check."""

from __future__ import annotations

import re

import pytest

from tests.test_structure import ALLOWED, FLOORS, GROUND, PACKAGE, ROOT, WINGS

ARCHITECTURE = (ROOT / "ARCHITECTURE.md").read_text(encoding="utf-8")


def rule_block(info: str) -> str:
    """The text of the fenced block whose info string is `info`."""
    found = re.findall(rf"^```{re.escape(info)}\n(.*?)^```$", ARCHITECTURE, flags=re.M | re.S)
    assert len(found) == 1, f"ARCHITECTURE.md needs one ```{info} block"
    return str(found[0])


def arrows(info: str) -> dict[str, set[str]]:
    """`a -> b c` lines of a block as {a: {b, c}}."""
    table = {}
    for line in rule_block(info).strip().splitlines():
        name, _, targets = line.partition("->")
        table[name.strip()] = set(targets.split())
    return table


def test_the_layers_it_states_are_the_ones_checked() -> None:
    assert arrows("layers") == ALLOWED


def test_the_ground_floor_it_states_is_the_one_checked() -> None:
    assert set(rule_block("ground").split()) == GROUND - {"__init__"}


@pytest.mark.parametrize("package", sorted(WINGS))
def test_the_wings_it_states_are_the_ones_checked(package: str) -> None:
    assert arrows(f"wings {package}") == WINGS[package]


@pytest.mark.parametrize("package", sorted(FLOORS))
def test_the_floor_it_states_is_the_one_checked(package: str) -> None:
    stated = set(rule_block(f"floor {package}").split()) if FLOORS[package] else set()
    assert stated == FLOORS[package]


def test_every_package_and_wing_under_agent_is_named() -> None:
    folders = sorted(
        init.parent.relative_to(PACKAGE).as_posix()
        for init in PACKAGE.rglob("__init__.py")
        if init.parent != PACKAGE
    )
    assert [folder for folder in folders if f"`{folder}/`" not in ARCHITECTURE] == []
