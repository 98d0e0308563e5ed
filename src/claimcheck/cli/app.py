"""The `claimcheck` command line: the root of the typer app.

Each command lives in a module beside this one and is imported and built only when it
is asked for (`cli/group.py`), its work only when it runs (`cli/work/`, through
`cli/lazy.py`, the one place the command line imports late); the table of commands is
`cli/commands.py`, and the root's help and version are printed without typer by
`cli/quick.py`. The report goes
to stdout, the human summary and errors to stderr. Run-level errors are caught in one
place (`cli.guard.guard`) and become exit code 2 with a hint.
"""

from __future__ import annotations

from typing import Annotated

import typer

from claimcheck.cli.commands import COMMANDS, ROOT_HELP, VERSION_HELP
from claimcheck.cli.group import LazyGroup
from claimcheck.cli.lazy import version_line

__all__ = ["COMMANDS", "app", "main"]

app = typer.Typer(
    name="claimcheck",
    help=ROOT_HELP,
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    cls=LazyGroup,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(version_line())
        raise typer.Exit(0)


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            help=VERSION_HELP,
            callback=_print_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """Keep published claims honest: check that each claim's quote is still on its source."""


def main() -> None:
    """Run the typer app (the `claimcheck` script starts in `cli.quick.main`, which
    answers the root's help and version itself and runs this otherwise)."""
    app()
