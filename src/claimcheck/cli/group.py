"""The root command group, which builds a command only when it is asked for.

typer builds every command of an app before it parses a single argument: it imports
each command module and reads every parameter of every command (about 0.1 s for
claimcheck's 18, more than the rest of `claimcheck --help`). `LazyGroup` knows each
command by its name, the module that defines it and its one-line summary
(`cli.commands.COMMANDS`), so `claimcheck --help` lists the commands from the summaries and
`claimcheck verify ...` imports and builds `verify` alone.

A command module adds its commands to whatever app it is given (`register(app)`); here
it is given an app of its own, once per process, and the command is built from it the
way typer builds it in a whole app. `tests/cli/test_startup.py` holds each summary
equal to the first paragraph of its command's docstring, and the help of every
command equal to that of the same commands built the eager way.
"""

from __future__ import annotations

from collections.abc import Iterator, MutableMapping
from functools import cache
from typing import Any

import typer
import typer.core
import typer.main

from claimcheck.cli.commands import COMMANDS
from claimcheck.cli.lazy import command_module_of
from claimcheck.cli.options import add_verbosity_options


class Lazy(MutableMapping[str, Any]):
    """Commands by name, each built on first access: a group's `commands`."""

    def __init__(self, summaries: dict[str, str], build: Any) -> None:
        self._summaries = summaries
        self._build = build
        self._built: dict[str, Any] = {}

    def is_built(self, name: str) -> bool:
        return name in self._built

    def __getitem__(self, name: str) -> Any:
        if name not in self._built:
            if name not in self._summaries:
                raise KeyError(name)
            self._built[name] = self._build(name)
        return self._built[name]

    def __setitem__(self, name: str, command: Any) -> None:
        self._built[name] = command

    def __delitem__(self, name: str) -> None:
        if name not in self._summaries and name not in self._built:
            raise KeyError(name)
        self._summaries = {n: s for n, s in self._summaries.items() if n != name}
        self._built.pop(name, None)

    def __iter__(self) -> Iterator[str]:
        yield from self._summaries
        yield from (name for name in self._built if name not in self._summaries)

    def __len__(self) -> int:
        return sum(1 for _ in self)


class LazyGroup(typer.core.TyperGroup):
    """claimcheck's root group: its commands come from `cli.commands.COMMANDS`, built lazily."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        self._summaries = {name: summary for name, (_module, summary) in COMMANDS.items()}
        self._listing = False
        self.commands = Lazy(self._summaries, lambda name: build_command(COMMANDS[name][0], name))

    def list_commands(self, ctx: Any) -> list[str]:
        return list(self.commands)

    def get_command(self, ctx: Any, cmd_name: str) -> Any:
        commands = self.commands
        if self._listing and isinstance(commands, Lazy) and not commands.is_built(cmd_name):
            summary = self._summaries.get(cmd_name)
            return None if summary is None else typer.core.TyperCommand(cmd_name, help=summary)
        return super().get_command(ctx, cmd_name)

    def format_commands(self, ctx: Any, formatter: Any) -> None:
        """typer's own listing, given each command's summary instead of the command."""
        self._listing = True
        try:
            super().format_commands(ctx, formatter)
        finally:
            self._listing = False


@cache
def command_module(module: str) -> typer.Typer:
    """The app holding `claimcheck.cli.<module>`'s commands, with -v and -q on each."""
    part = typer.Typer()
    command_module_of(module).register(part)
    add_verbosity_options(part)
    return part


def build_command(module: str, name: str) -> Any:
    """Build command (or group) `name` of `module` as typer builds it inside an app."""
    part = command_module(module)
    for info in part.registered_commands:
        if (
            info.callback is not None
            and typer.main.get_command_name(info.name or info.callback.__name__) == name
        ):
            return typer.main.get_command_from_info(
                info, pretty_exceptions_short=True, rich_markup_mode=None
            )
    for group in part.registered_groups:
        if group.name == name and group.typer_instance is not None:
            return typer.main.get_group(group.typer_instance)
    raise LookupError(f"claimcheck.cli.{module} defines no command {name!r}")
