"""What `claimcheck accept` does: move a reviewed claim's baseline to the latest snapshot."""

from __future__ import annotations

import datetime as dt
from pathlib import Path
from typing import TYPE_CHECKING

import typer

from claimcheck.claims.article import article_media
from claimcheck.claims.article_edit import set_link_anchor
from claimcheck.claims.edit import drop_reviewed, set_anchor, update_claim, write_claim_file
from claimcheck.claims.field_checks import text_problem
from claimcheck.claims.lint import NotRebased, absent_said, rebase_anchor
from claimcheck.cli.lazy import archive_hook
from claimcheck.cli.project import build_config
from claimcheck.cli.selection import find_claim, part_index
from claimcheck.cli.selection import read_claims as read_config_claims
from claimcheck.cli.verbosity import err
from claimcheck.cli.work.editing import ANCHOR_KEYS, describe_snapshot
from claimcheck.config import Config
from claimcheck.errors import UsageError
from claimcheck.judge.verdict import Observed
from claimcheck.models import ExitCode
from claimcheck.observe.known import accept_as_found
from claimcheck.observe.stored import observe_stored
from claimcheck.store.lock import writing
from claimcheck.untrusted import clean_text, shorten

if TYPE_CHECKING:
    from claimcheck.models import Anchor, Claim, MediaType


def accept(
    *,
    claim_id: str,
    paths: list[Path] | None,
    quote: str | None,
    span: bool,
    part: str | None,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
    """The work of `claimcheck accept`, given its parsed options: its exit code."""
    # A quote the claim file would refuse is bad input, not a quote the page lacks.
    problem = None if quote is None else text_problem(quote)
    if problem is not None:
        raise UsageError(f"--quote: {problem}")
    config = build_config(config_path, snapshots)
    found = find_claim(read_config_claims(paths, config), claim_id)
    index = part_index(found, "accept", part)
    claim = found if index is None else found.view(found.parts[index])
    media = article_media(claim.file)
    if claim.source is None:
        raise UsageError(f"claim {claim_id!r} has no source (citation needed): nothing to accept")
    if claim.anchor is None:
        _require_no_quote_options(claim_id, quote, span)
    states, _ = observe_stored([claim], config, pages=True)
    state = states[claim.source]
    if not isinstance(state, Observed):
        err(f"error: no snapshot of {clean_text(claim.source)} is stored")
        err("hint: run `claimcheck verify` (or `claimcheck snapshot`) first")
        return int(ExitCode.UNCHECKED)
    said = absent_said(claim, state)
    if said is not None:  # a new baseline cannot make it hold: a person must edit it
        err(f"error: cannot accept {claim_id!r}: {clean_text(said.reason)}")
        if said.found:
            err(f"it says: {clean_text(shorten(said.found, 300))}")
        err(
            "hint: accepting cannot make an absence claim the source contradicts hold: "
            "rewrite the claim (or its `absent` texts), or remove it"
        )
        return int(ExitCode.STALE)
    anchor = None
    if claim.anchor is not None:
        rebased = rebase_anchor(
            claim.anchor,
            state.text,
            new_quote=quote,
            min_score=config.verdict.drift_min_score,
            aligned_only=span,
        )
        if isinstance(rebased, NotRebased):
            err(f"error: cannot accept {claim_id!r}: {clean_text(rebased.reason)}")
            if rebased.usage:
                err("hint: edit the claim's quote by hand, then accept it")
                return int(ExitCode.BAD_INPUT)
            return int(ExitCode.STALE)
        anchor = rebased.anchor
    today = dt.datetime.now(dt.UTC).date()
    path = config.local_path(claim.file)  # claim.file is as reports show it
    text = path.read_text(encoding="utf-8")
    if media is not None and anchor is not None:  # an article's claims all quote
        code = _accept_in_article(claim, anchor, path, text, media, today)
        accept_as_found(claim, config)
        archive_accepted(claim, config)
        return code
    # A part's quote alone: the claim's check date is every part's baseline.
    checked = today.isoformat() if index is None else None
    if anchor is not None:
        new_text = set_anchor(claim.file, text, claim.id, anchor, checked, index)
    elif checked is not None:  # an absence claim: only its check date moves
        new_text = update_claim(claim.file, text, claim.id, {"checked": checked})
    else:
        new_text = text
    if found.reviewed is not None:  # the new baseline supersedes the acknowledgement
        new_text = drop_reviewed(claim.file, new_text, claim.id)
    if new_text != text:
        write_claim_file(path, new_text)
    stands = accept_as_found(claim, config)  # a move it was reviewed on is no longer news
    which = f" (part {index + 1}, {clean_text(claim.source)})" if index is not None else ""
    typer.echo(f"accepted {clean_text(claim.id)}{which} in {clean_text(claim.file)}")
    for key in ANCHOR_KEYS if anchor is not None else ():
        before, after = getattr(claim.anchor, key), getattr(anchor, key)
        if before != after:
            typer.echo(f"  {key}: {_shown(before)} -> {_shown(after)}")
    if claim.absent:
        texts = ", ".join(_shown(text) for text in claim.absent)
        typer.echo(f"  absent: {texts} (not in the latest snapshot)")
    if index is None:
        typer.echo(f"  checked: {claim.checked} -> {today}")
    else:
        typer.echo(f"  checked: stays {claim.checked} (the other parts keep their baseline)")
    typer.echo(f"  baseline: {describe_snapshot(state.snapshot, config)}")
    if found.reviewed is not None:
        typer.echo(
            f"  reviewed: removed (the acknowledgement of {found.reviewed.date}; the new "
            "baseline supersedes it)"
        )
    if stands is not None:
        typer.echo(f"  stands on: {clean_text(stands)} (where its source leads now)")
    archive_accepted(claim, config)
    return int(ExitCode.OK)


def _require_no_quote_options(claim_id: str, quote: str | None, span: bool) -> None:
    """An absence claim has no quote: --quote and --span, which re-baseline one, are
    refused rather than ignored."""
    given = [name for name, used in (("--quote", quote is not None), ("--span", span)) if used]
    if given:
        raise UsageError(
            f"claim {claim_id!r} is an absence claim (`absent`, no quote): "
            f"{' and '.join(given)} {'are' if len(given) > 1 else 'is'} for a claim with a quote",
            hint=f"run `claimcheck accept {claim_id}` alone to move its check date, or add "
            "a `quote` to the claim by hand",
        )


def _accept_in_article(
    claim: Claim,
    anchor: Anchor,
    path: Path,
    text: str,
    media: MediaType,
    today: dt.date,
) -> int:
    """Accept a claim read from an article: its link's text directive is rewritten in
    place, every other byte of the article kept; the check date is the article's."""
    edited, after = set_link_anchor(claim.file, text, media, claim, anchor, today)
    if edited != text:
        write_claim_file(path, edited)
    typer.echo(f"accepted {clean_text(claim.id)} in {clean_text(claim.file)}:{claim.line}")
    assert claim.anchor is not None
    for key in ANCHOR_KEYS:
        before, now = getattr(claim.anchor, key), getattr(anchor, key)
        if before != now:
            typer.echo(f"  {key}: {_shown(before)} -> {_shown(now)}")
    if after.id != claim.id:
        typer.echo(
            f"  id: {clean_text(claim.id)} -> {clean_text(after.id)} (derived from the quote; "
            "`<!-- claim: ID -->` after the link keeps one)"
        )
    typer.echo(
        f"  checked: stays {claim.checked} (the article's; `<!-- checked: {today} -->` "
        "after the link moves its baseline)"
    )
    return int(ExitCode.OK)


def archive_accepted(claim: Claim, config: Config) -> None:
    """The accepted claim's source captured, when `[archive] on` names "accept"."""
    if "accept" in config.archive.on:
        with writing(config, "accept"):
            archive_hook()("accept", [claim], config)


def _shown(value: str | None) -> str:
    return "(none)" if value is None else repr(shorten(clean_text(value), 120))
