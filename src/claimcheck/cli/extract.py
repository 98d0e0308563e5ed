"""The `extract` command: an article's highlight links written out as its claim file.

`claimcheck verify article.md` reads an article's claims itself (`claims/article.py`);
`extract` writes the same claims as YAML, for those who keep claim files, and checks
that the claim file it writes reads back as exactly those claims before writing it.

This module holds the commands' options and help only, so that building them (for
`--help` too) imports no more than typer; each command's work is its module in
`cli/work/`, imported when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from claimcheck.cli.lazy import dispatch


def register(app: typer.Typer) -> None:
    """Add `extract` to the claimcheck app."""
    app.command("extract")(extract)


def extract(
    articles: Annotated[
        list[Path],
        typer.Argument(
            metavar="ARTICLE",
            help="Articles: Markdown (*.md, *.markdown) or HTML (*.html, *.htm).",
            show_default=False,
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="PATH",
            help="Write the claim file to PATH; with several articles, PATH is a folder "
            "and each article's claim file is PAGE.yaml in it [default: stdout, one "
            "article].",
            show_default=False,
        ),
    ] = None,
) -> None:
    """Write the claim file equivalent to an article's highlight links.

    Every link whose URL carries a text directive (#:~:text=...) is a claim, as
    `claimcheck verify ARTICLE` reads it: verifying the claim file gives the same
    verdicts.

    Exit 0: written; 2: an article cannot be read, has problems or has no claims (all
    are listed).
    """
    dispatch(extract, locals())
