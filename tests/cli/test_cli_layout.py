"""The command line's layout: a command module parses, its work module does the work.

A command module (`cli/verify.py`, ...) holds its commands' options and help and hands
the parsed values to `cli.lazy.dispatch`, which runs the function of the same name in
`cli/work/<name>.py`. These tests hold the two halves equal (every option reaches the
work, with its type) and keep imports at module tops everywhere but in the one place
that imports late. They read the modules; the commands themselves are run by the other
tests of tests/cli/.
"""

from __future__ import annotations

import ast
import importlib
import inspect
import typing
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
import typer

from claimcheck.cli.commands import COMMANDS
from support import paths

CLI = paths.ROOT / "src" / "claimcheck" / "cli"

LATE_IMPORTS = {"lazy.py"}
"""The one module that imports late, for start-up: the typer app, the version, a
command's module and its work, the progress bar."""


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
            yield f"{module}.{info.callback.__name__}", info.callback


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


def modules() -> list[Path]:
    return sorted(CLI.rglob("*.py"))


def late_imports(path: Path) -> list[int]:
    """The lines of the imports inside a function or a class of `path`."""
    tree = ast.parse(path.read_text(encoding="utf-8"))
    lines = []
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef | ast.AsyncFunctionDef | ast.ClassDef):
            lines += [
                inner.lineno
                for inner in ast.walk(node)
                if isinstance(inner, ast.Import | ast.ImportFrom)
            ]
    return sorted(set(lines))


def test_imports_are_at_the_top_but_in_the_one_place_that_imports_late() -> None:
    found = {
        str(path.relative_to(CLI)): lines
        for path in modules()
        if path.name not in LATE_IMPORTS or path.parent != CLI
        if (lines := late_imports(path))
    }
    assert found == {}


def test_the_check_finds_an_import_inside_a_function(tmp_path: Path) -> None:
    module = tmp_path / "late.py"
    module.write_text("import os\n\n\ndef f():\n    import json\n    return json\n")
    assert late_imports(module) == [5]


def test_no_module_of_the_command_line_is_over_600_lines() -> None:
    long = {
        str(path.relative_to(CLI)): count
        for path in modules()
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > 600
    }
    assert long == {}
