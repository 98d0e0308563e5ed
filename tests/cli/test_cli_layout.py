"""The command line's layout: a command module parses, its work module does the work.

A command module (`cli/verify.py`, ...) holds its commands' options and help and hands
the parsed values to `cli.lazy.dispatch`, which runs the function of the same name in
`cli/work/<name>.py`. These tests hold the two halves equal (every option reaches the
work, with its type); tests/test_house_rules.py keeps imports at module tops but in
`cli/lazy.py`. The commands themselves are run by the other tests of tests/cli/.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import typing
from collections.abc import Callable, Iterator

import pytest
import typer

from claimcheck.cli.commands import COMMANDS


def callbacks() -> Iterator[tuple[str, Callable[..., object]]]:
    """Every command's callback as its module defines it (before -v/-q are added)."""
    for module in dict.fromkeys(module for module, _summary in COMMANDS.values()):
        part = typer.Typer()
        importlib.import_module(f"claimcheck.cli.{module}").register(part)
        infos = [*part.registered_commands]
        for group in part.registered_groups:
            assert group.typer_instance is not None
            infos += group.typer_instance.registered_commands
        for info in infos:
            assert info.callback is not None
            # A group's app is the module's own: once the whole app was built (by an
            # earlier test in this process), its commands carry -v/-q, wrapped.
            callback = inspect.unwrap(info.callback)
            yield f"{module}.{callback.__name__}", callback


CALLBACKS = dict(callbacks())


def test_every_command_of_the_table_has_a_callback() -> None:
    assert len(CALLBACKS) >= len(COMMANDS)


@pytest.mark.parametrize("name", list(CALLBACKS))
def test_each_command_hands_every_option_to_its_work_with_its_type(name: str) -> None:
    command = CALLBACKS[name]
    work = getattr(
        importlib.import_module(f"claimcheck.cli.work.{command.__name__}"), command.__name__
    )
    parsed = inspect.signature(command).parameters
    taken = inspect.signature(work).parameters
    assert list(parsed) == list(taken)
    assert all(p.kind is inspect.Parameter.KEYWORD_ONLY for p in taken.values())
    assert all(p.default is inspect.Parameter.empty for p in taken.values())
    # The types as typer reads them (Annotated's extras dropped) are the work's.
    parsed_types = typing.get_type_hints(command)
    parsed_types.pop("return")
    work_types = typing.get_type_hints(work)
    assert work_types.pop("return") is int
    assert parsed_types == work_types


@pytest.mark.parametrize("name", list(CALLBACKS))
def test_a_command_module_only_parses_and_dispatches(name: str) -> None:
    """Its body: the help (the docstring), then `dispatch(itself, locals())`."""
    command = CALLBACKS[name]
    tree = ast.parse(inspect.getsource(command))
    function = tree.body[0]
    assert isinstance(function, ast.FunctionDef)
    docstring, call = function.body
    assert isinstance(docstring, ast.Expr)
    assert isinstance(docstring.value, ast.Constant)
    assert ast.unparse(call) == f"dispatch({command.__name__}, locals())"
