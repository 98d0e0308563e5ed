"""The `schema` command: the JSON Schema of a claim file or of the JSON report.

This module holds the commands' options and help only, so that building them (for
`--help` too) imports no more than typer; each command's work is its module in
`cli/work/`, imported when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from claimcheck.cli.lazy import dispatch


def register(app: typer.Typer) -> None:
    """Add `schema` to the claimcheck app."""
    app.command()(schema)


def schema(
    report: Annotated[
        bool, typer.Option("--report", help="The JSON report's schema instead.")
    ] = False,
) -> None:
    """Print the JSON Schema of a claim file (for editor completion and validation)."""
    dispatch(schema, locals())
