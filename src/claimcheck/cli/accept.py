"""The `accept` and `ack` commands: what a person who reviewed a claim writes down.

`accept` re-baselines a reviewed claim on the latest stored snapshot; `ack` keeps the
claim as it is and records that a person looked (`reviewed:`). Each edits the claim
file (`accept` also an article's link) in place and never uses the network.

This module holds the commands' options and help only, so that building them (for
`--help` too) imports no more than typer; each command's work is its module in
`cli/work/`, imported when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from claimcheck.cli.lazy import dispatch
from claimcheck.cli.options import (
    ConfigOpt,
    IdArg,
    PartOpt,
    PathsArg,
    SnapshotsOpt,
    complete_claim_id,
)


def register(app: typer.Typer) -> None:
    """Add `accept` and `ack` to the claimcheck app."""
    app.command()(accept)
    app.command()(ack)


def accept(
    claim_id: IdArg,
    paths: PathsArg = None,
    quote: Annotated[
        str | None,
        typer.Option(
            "--quote",
            help="The new quote, which must be in the latest snapshot exactly [default: "
            "the text closest to the old quote].",
            show_default=False,
        ),
    ] = None,
    span: Annotated[
        bool,
        typer.Option(
            "--span",
            help="Take only the part of the new text aligned with the old quote (widened "
            "to whole tokens), not the whole sentence, list item or table row.",
        ),
    ] = False,
    part: PartOpt = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Re-baseline a reviewed claim on the latest stored snapshot of its source.

    For a person who reviewed a drifted, context-changed or expired claim: the quote
    becomes the text that replaced it in the latest snapshot — the whole sentence,
    list item or table row (with --span, only its aligned part), or --quote; a quote
    that would cut a number, version or name is refused. Its
    prefix/suffix follow it or go when they no longer fit, and `checked` becomes
    today (UTC), so the claim's baseline moves to that snapshot. With --part (a claim
    on several sources) only that part's quote changes; `checked`, every part's
    baseline, stays. An absence claim (`absent`) is accepted the same way: its
    check date moves, unless the latest snapshot says one of its absent texts (then
    only an edit of the claim can help). A claim read from an article gets its link's
    text fragment rewritten in place, every other byte of the article kept. A
    `reviewed:` entry (`ack`) is removed: the new baseline supersedes it. Never run
    by any other command; no network.

    Exit 0: accepted; 1: the new quote is not in the latest snapshot, or the source
    says what the claim says it does not; 2: unknown id, a claim without source, a
    --quote a claim file would refuse (blank, or with a control character), --quote
    or --span for an absence claim, or a range quote that changed (edit it by hand);
    3: no snapshot of the source is stored.
    """
    dispatch(accept, locals())


def ack(
    claim_ids: Annotated[
        list[str],
        typer.Argument(
            metavar="ID",
            help="The claims' ids.",
            show_default=False,
            autocompletion=complete_claim_id,
        ),
    ],
    note: Annotated[
        str,
        typer.Option(
            "--note",
            help="What you found: why the claim still holds (written into the claim file).",
            show_default=False,
        ),
    ],
    until: Annotated[
        str | None,
        typer.Option(
            "--until",
            metavar="YYYY-MM-DD",
            help="The last day the acknowledgement holds [default: until the source "
            "changes again].",
            show_default=False,
        ),
    ] = None,
    by: Annotated[
        str | None,
        typer.Option("--by", help="Who looked (written as `by:`).", show_default=False),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print the edit as a diff; write nothing."),
    ] = False,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Acknowledge a review verdict: quiet until the claim's source changes again.

    For a person who looked at a context-changed, moved or expired claim and found it
    still true as written: writes a `reviewed:` entry into the claim's claim file (the
    date, the note, --until and --by if given, the verdict and the version of the
    source it is about), every other line kept. The verdict is read as `show` and
    `explain` read it: judged offline from the stored snapshots. From then on `verify`
    still reports the true verdict, but apart, as acknowledged: it fails no gate
    (not even with --fail-on) and its issue is closed with the note, until the source
    changes again (a context-changed claim: its context; moved: where it leads;
    expired: any new version) or --until passes. Several ids are acknowledged
    together, or none. Never run by any other command; no network.

    Exit 0: acknowledged (or already verified: nothing to do); 2: unknown id, a
    stale claim (drifted, missing, contradicted, source-gone: fix it, or `accept`
    it), a claim read from an article, a blank --note, or an --until that is no
    date or has passed; 3: no snapshot of the source is stored, or its verdict is
    unknown.
    """
    dispatch(ack, locals())
