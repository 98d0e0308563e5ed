"""The `accept` command: re-baseline a reviewed claim on the latest stored snapshot.

It edits the claim file (or the article's link) in place and never uses the network.

This module holds the commands' options and help only, so that building them (for
`--help` too) imports no more than typer; each command's work is its module in
`cli/work/`, imported when the command runs (`cli.lazy.dispatch`).
"""

from __future__ import annotations

from typing import Annotated

import typer

from claimcheck.cli.lazy import dispatch
from claimcheck.cli.options import ConfigOpt, IdArg, PartOpt, PathsArg, SnapshotsOpt


def register(app: typer.Typer) -> None:
    """Add `accept` to the claimcheck app."""
    app.command()(accept)


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
    only an edit of the claim can help). A claim on a field gets the field's value
    in the latest snapshot as its `value` (a `matches` pattern stays, and must match
    it). A claim read from an article gets its link's
    text fragment rewritten in place, every other byte of the article kept. Never run
    by any other command; no network.

    Exit 0: accepted; 1: the new quote is not in the latest snapshot, the source
    says what the claim says it does not, or a claim's field is gone (or no longer
    matches its pattern); 2: unknown id, a claim without source, a
    --quote a claim file would refuse (blank, or with a control character), --quote
    or --span for an absence claim, or a range quote that changed (edit it by hand);
    3: no snapshot of the source is stored.
    """
    dispatch(accept, locals())
