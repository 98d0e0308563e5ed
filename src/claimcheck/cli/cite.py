"""The `cite` command: the permanent link to exactly what a verified claim was checked against.

An editor pastes it into the article, so readers can see the version that was checked
and not only the page as it is today: for a forge's file (GitHub, the Hugging Face Hub,
GitLab, Codeberg), the file at the commit of the stored snapshot with the quote's lines
selected, beside a text-fragment link to the
live page; for another page, the Wayback Machine's capture of it when one exists.
The version is the one the store knows (`history.citations`: history stored it, or
an earlier `cite` or `verify --cite` learnt it); otherwise it is asked of the forge (the
last commit of the file at the snapshot's time), accepted only when the file at that
commit is byte for byte the stored snapshot, and remembered for every later report.

This module holds the commands' options and help only, so that building them (for
`--help` too) imports no more than typer; each command's work is its module in
`cli/work/`, imported when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

from enum import StrEnum
from pathlib import Path
from typing import Annotated

import typer

from claimcheck.cli.lazy import dispatch
from claimcheck.cli.options import ConfigOpt, PartOpt, PathsArg, SnapshotsOpt, complete_claim_id


class Style(StrEnum):
    """How the citation is printed."""

    LINK = "link"
    FOOTNOTE = "footnote"
    JSON = "json"


def register(app: typer.Typer) -> None:
    """Add `cite` and `archive` to the claimcheck app."""
    app.command("cite")(cite)
    app.command("archive")(archive)


def cite(
    claim_id: Annotated[
        str,
        typer.Argument(metavar="ID", help="The claim's id.", autocompletion=complete_claim_id),
    ],
    paths: PathsArg = None,
    style: Annotated[
        Style,
        typer.Option(
            "--style",
            help="link: a Markdown link to the live quote and to the checked version; "
            "footnote: a Markdown footnote; json: the parts, for tools.",
        ),
    ] = Style.LINK,
    offline: Annotated[
        bool,
        typer.Option(
            "--offline",
            help="Ask nothing of GitHub or the Wayback Machine: cite only what the store "
            "already knows (a snapshot from history knows its commit).",
        ),
    ] = False,
    part: PartOpt = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Print the permanent citation of a verified claim, to paste into the article.

    For a forge's file (GitHub, the Hugging Face Hub, GitLab, Codeberg): the file at the
    checked commit with the quote's lines (…/blob/SHA/README.md#L10-L12) and a
    text-fragment link to the live page; for other pages, the Wayback Machine's capture
    of the checked version when one exists.

    Exit 0: printed; 1: the claim does not hold now (nothing to cite); 2: unknown claim
    or bad input; 3: printed, but no permanent version was found (the live link only).
    """
    dispatch(cite, locals())


def archive(
    claim_ids: Annotated[
        list[str] | None,
        typer.Argument(
            metavar="ID",
            help="The claims whose sources to capture [default: every claim's].",
            autocompletion=complete_claim_id,
            show_default=False,
        ),
    ] = None,
    claim_paths: Annotated[
        list[Path] | None,
        typer.Option(
            "--claims",
            metavar="PATH",
            help="Claim files, articles or folders to read the claims from (repeatable) "
            "[default: the config's claims].",
            show_default=False,
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option(
            "--dry-run",
            help="Print the sources that would be sent to the Wayback Machine, and send nothing.",
        ),
    ] = False,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Ask the Wayback Machine to capture each claim's source now, and record the capture.

    Save Page Now captures each source (one claim's, several claims', or every claim's),
    a few at once, waiting for each capture; the capture is recorded in the source's
    index, so every citation of the source names it beside the live link from then on.
    Needs the Internet Archive's keys in WAYBACK_KEYS (ACCESS:SECRET), sent to the
    Wayback Machine only. A source on an internal address is never sent. `[archive] on`
    in claimcheck.toml does the same on `add`, `accept` and when a claim drifts.

    Exit 0: every source captured (or not sent: an internal address); 2: bad input or
    no keys; 3: a capture could not be made (the archive refused, was busy or failed).
    """
    dispatch(archive, locals())
