"""The command table in agent/cli.py: every row is reachable, wired to its handler, documented."""

from __future__ import annotations

import pytest

from agent.cli import COMMANDS, OPTIONS, TABLE, Arg, Command, Exclusive, Group, build_parser

ROWS = [(group, command) for group in TABLE for command in group.commands]
IDS = [f"{group.name} {command.name}" for group, command in ROWS]
# Names a handler is given that are not parsed arguments (agent.cli._value).
CONTEXT = {"store", "project"}


def _flat(args: tuple[Arg | Exclusive, ...]) -> list[Arg]:
    """The arguments of a row, those of its exclusive groups included."""
    return [arg for item in args for arg in (item.args if isinstance(item, Exclusive) else (item,))]


def _is_positional(arg: Arg) -> bool:
    return not arg.flags.startswith("-")


def _dest(arg: Arg) -> str:
    """The attribute the parsed value lands in, as argparse derives it."""
    if arg.dest or _is_positional(arg):
        return arg.dest or arg.flags
    longest = max(arg.flags.split(), key=len)
    return longest.lstrip("-").replace("-", "_")


def _minimal_argv(command: Command) -> list[str]:
    """The command with one value for each positional argument: the shortest valid call."""
    return ["x" for arg in _flat(command.args) if _is_positional(arg)]


@pytest.mark.parametrize(("group", "command"), ROWS, ids=IDS)
def test_each_command_of_the_table_is_reached_by_its_words(group: Group, command: Command) -> None:
    args = build_parser().parse_args([group.name, command.name, *_minimal_argv(command)])

    assert (args.command, getattr(args, f"{group.name}_command")) == (group.name, command.name)
    assert args.handler is command.call


@pytest.mark.parametrize(("group", "command"), ROWS, ids=IDS)
def test_each_argument_is_one_the_handler_takes_and_each_value_it_takes_is_parsed(
    group: Group, command: Command
) -> None:
    taken = set(command.call.positional) | set(command.call.keywords)

    assert {_dest(arg) for arg in _flat(command.args)} == taken - CONTEXT


def test_the_commands_mapping_has_one_entry_per_row_of_the_table() -> None:
    assert list(COMMANDS) == IDS
    assert [COMMANDS[name] for name in IDS] == [command.call for _, command in ROWS]


def _every_arg() -> list[Arg]:
    return _flat(OPTIONS) + [arg for _, command in ROWS for arg in _flat(command.args)]


def test_every_help_text_of_the_table_is_written_in_the_house_style() -> None:
    # A help line is a lower-case phrase in its parent's list; a description is sentences.
    rows: list[Group | Command] = [*TABLE, *(command for _, command in ROWS)]
    lines = [row.help for row in rows] + [arg.help for arg in _every_arg()]
    descriptions = [row.description for row in rows]

    assert [line for line in lines if not line or not line[0].islower()] == []
    assert [text for text in descriptions if not text or not text[0].isupper()] == []


@pytest.mark.parametrize("group", TABLE, ids=[group.name for group in TABLE])
def test_a_group_without_its_command_is_a_usage_error(
    group: Group, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args([group.name])

    assert exit_.value.code == 2
    assert "the following arguments are required: ACTION" in capsys.readouterr().err


@pytest.mark.parametrize("group", TABLE, ids=[group.name for group in TABLE])
def test_an_unknown_command_of_a_group_is_refused_naming_the_table_s_commands_in_order(
    group: Group, capsys: pytest.CaptureFixture[str]
) -> None:
    with pytest.raises(SystemExit) as exit_:
        build_parser().parse_args([group.name, "no-such-command"])

    choices = ", ".join(f"'{command.name}'" for command in group.commands)
    assert exit_.value.code == 2
    assert f"invalid choice: 'no-such-command' (choose from {choices})" in capsys.readouterr().err


def test_the_arguments_of_an_exclusive_row_cannot_be_given_together(
    capsys: pytest.CaptureFixture[str],
) -> None:
    groups = [([], option) for option in OPTIONS if isinstance(option, Exclusive)] + [
        ([group.name, command.name, *_minimal_argv(command)], row)
        for group, command in ROWS
        for row in command.args
        if isinstance(row, Exclusive)
    ]
    assert len(groups) > 1, "the table's exclusive rows are what this test is about"
    for words, group in groups:
        argv = list(words)
        for arg in group.args:
            # An option that needs a value gets one (--mcp NAME), or that would be the error.
            needs_value = arg.action is None and arg.nargs is None
            argv += [arg.flags.split()[0], *(["x"] if needs_value else [])]
        with pytest.raises(SystemExit) as exit_:
            build_parser().parse_args(argv)

        assert exit_.value.code == 2
        assert "not allowed with argument" in capsys.readouterr().err
