"""The `add` command: a new claim, written after its quote is found on the source now.

It edits the claim file in place (claims/edit.py), so the author's comments and
layout survive.

This module holds the commands' options and help only, so that building them (for
`--help` too) imports no more than typer; each command's work is its module in
`cli/work/`, imported when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from claimcheck.cli.lazy import dispatch
from claimcheck.cli.options import ConfigOpt, SnapshotsOpt


def register(app: typer.Typer) -> None:
    """Add `add` to the claimcheck app."""
    app.command()(add)


def add(
    source: Annotated[
        str,
        typer.Argument(
            metavar="SOURCE",
            help="The source URL; a text-fragment URL (#:~:text=...) as copied with "
            '"Copy link to highlight" carries the quote.',
            show_default=False,
        ),
    ],
    claim_text: Annotated[
        str,
        typer.Option("--claim", help="The statement as the page states it.", show_default=False),
    ],
    page: Annotated[
        str,
        typer.Option(
            "--page",
            help="Slug of the published page: the claim goes into the file holding that "
            "page, else into claims/PAGE.yaml.",
            show_default=False,
        ),
    ],
    quote: Annotated[
        str | None,
        typer.Option(
            "--quote",
            help="The supporting text as a reader sees it [default: the URL's text fragment].",
            show_default=False,
        ),
    ] = None,
    prefix: Annotated[
        str | None,
        typer.Option("--prefix", help="Text right before the quote, to pick one occurrence."),
    ] = None,
    suffix: Annotated[
        str | None,
        typer.Option("--suffix", help="Text right after the quote, to pick one occurrence."),
    ] = None,
    claim_id: Annotated[
        str | None,
        typer.Option(
            "--id", help="The claim's id [default: PAGE-words-of-the-claim, made unique]."
        ),
    ] = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Add a claim after checking that its quote is on the source now.

    Fetches the source, stores it as the claim's baseline snapshot and writes the
    claim into its page's claim file with `checked` set to today (UTC). A quote
    found more than once needs --prefix/--suffix: nothing is written, and each
    occurrence is listed with the options that pick it.

    Exit 0: added; 1: the quote is not on the source (the closest text is shown) or
    occurs more than once; 2: bad input (an argument a claim file would refuse, such
    as a blank --prefix, a duplicate id, a malformed claim file); 3: the source could
    not be fetched.
    """
    dispatch(add, locals())
