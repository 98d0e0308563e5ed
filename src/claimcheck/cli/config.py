"""The `config` commands: print a setting as the project's config resolves it.

For scripts and workflows that need a setting without parsing TOML themselves: the
nightly workflow commits the snapshot folder the config names (`claimcheck config get
snapshots`), not a hard-coded `snapshots`. Paths are printed from the current folder,
as a shell in it would use them; tokens come from the environment and are never keys.

This module holds the commands' options and help only, so that building them (for
`--help` too) imports no more than typer; each command's work is its module in
`cli/work/`, imported when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from claimcheck.cli.lazy import dispatch
from claimcheck.cli.options import ConfigOpt

config_app = typer.Typer(
    name="config",
    help="Print a setting of claimcheck.toml as the project resolves it (for scripts).",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    """Add the `config` command group to the claimcheck app."""
    app.add_typer(config_app, name="config")


@config_app.command("get")
def config_get(
    key: Annotated[
        str,
        typer.Argument(
            metavar="KEY",
            help="The setting: snapshots, claims, or a dotted key (fetch.timeout).",
            show_default=False,
        ),
    ],
    config_path: ConfigOpt = None,
) -> None:
    """Print one setting of the project's config, its default when the file has none.

    `snapshots` prints the snapshot folder and `claims` each claim path (one a line),
    from the current folder; another key prints its value, text as it is and anything
    else as JSON. Tokens are not settings: they come from the environment only.

    Exit 0: printed; 2: the config is invalid or has no such key.
    """
    dispatch(config_get, locals())
