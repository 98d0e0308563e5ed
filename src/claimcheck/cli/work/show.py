"""What `claimcheck show` does: one claim's fields, last verdict and snapshots (as
lines, or as the JSON of `listing.py`)."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from claimcheck.cli.options import ListingFormat
from claimcheck.cli.project import build_config
from claimcheck.cli.selection import find_claim
from claimcheck.cli.selection import read_claims as read_config_claims
from claimcheck.cli.show import NEVER_JUDGED
from claimcheck.cli.work.editing import describe_snapshot
from claimcheck.cli.work.listing import (
    LISTING_SCHEMA_VERSION,
    claim_head,
    last_verdict,
    write_json,
)
from claimcheck.forges.resolve import source_ref
from claimcheck.history.baseline import baseline_of
from claimcheck.models import Anchor, ExitCode
from claimcheck.store.state import load_state
from claimcheck.store.store import Store
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.models import Claim, Snapshot
    from claimcheck.store.state import ClaimState


def show(
    *,
    claim_id: str,
    paths: list[Path] | None,
    output_format: ListingFormat,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
    """The work of `claimcheck show`, given its parsed options: its exit code."""
    config = build_config(config_path, snapshots)
    claim = find_claim(read_config_claims(paths, config), claim_id)
    last = load_state(config.snapshots_dir).claims.get(claim.id)
    store = Store.of(config)
    if output_format is ListingFormat.JSON:
        write_json(_claim_document(claim, last, store, config))
        return int(ExitCode.OK)

    def anchor_fields(view: Claim, named: str) -> list[tuple[str, str | None]]:
        anchor = view.anchor or Anchor(quote="")
        return [
            (f"{named}source", view.source),
            *([] if named else [("cited", view.cited)]),
            (f"{named}quote", anchor.quote or None),
            (f"{named}quote_end", anchor.quote_end),
            (f"{named}prefix", anchor.prefix),
            (f"{named}suffix", anchor.suffix),
        ]

    def snapshot_fields(view: Claim, named: str) -> list[tuple[str, str | None]]:
        if view.source is None:
            return []
        key = source_ref(view.source, config).key
        # The judge's baseline: of a check date's versions, the newest the quote held in.
        latest, baseline = store.latest(key), baseline_of(store, view, config)
        return [
            (f"{named}snapshot", describe_snapshot(latest, config) if latest else "none"),
            (f"{named}baseline", describe_snapshot(baseline, config) if baseline else "none"),
        ]

    # A claim on several sources shows each part's fields, named `sources[K].…`.
    views = claim.views()
    named = [f"sources[{k}]." if len(views) > 1 else "" for k in range(1, len(views) + 1)]
    fields: list[tuple[str, str | None]] = [
        ("id", claim.id),
        ("page", claim.page),
        ("file", f"{claim.file}:{claim.line}"),
        ("claim", claim.claim),
    ]
    for view, name in zip(views, named, strict=True):
        fields.extend(anchor_fields(view, name))
    fields += [
        ("checked", str(claim.checked)),
        ("owner", claim.owner),
        ("verdict", _last_shown(last) if last else NEVER_JUDGED),
        ("reason", last.reason if last else None),
        ("reviewed", _reviewed(claim)),
    ]
    for view, name in zip(views, named, strict=True):
        fields.extend(snapshot_fields(view, name))
    width = max(len(name) for name, _ in fields) + 1
    for name, value in fields:
        if value is not None:
            typer.echo(f"{name + ':':<{width}} {clean_text(value)}")
    return int(ExitCode.OK)


def _reviewed(claim: Claim) -> str | None:
    """The claim's `reviewed:` entry in one line (`claimcheck ack`), or None."""
    review = claim.reviewed
    if review is None:
        return None
    by = f" by {review.by}" if review.by else ""
    until = f", until {review.until.isoformat()}" if review.until else ""
    return (
        f"{review.date.isoformat()}{by}: {review.verdict.value} acknowledged "
        f"(version {review.version}{until}): {review.note}"
    )


def _claim_document(
    claim: Claim, last: ClaimState | None, store: Store, config: Config
) -> dict[str, Any]:
    """Every field `show` shows, in the report's names: the claim as written, its last
    verdict, and its source's latest stored snapshot and the judge's baseline.

    A claim on several sources gives each part's source, anchor and snapshots in
    `parts` (in the claim file's order) and null in the claim's own; a claim of one
    source gives them in its own fields and an empty `parts`.
    """
    views = claim.views()
    several = len(views) > 1
    return {
        "schema_version": LISTING_SCHEMA_VERSION,
        **claim_head(claim),
        "checked": claim.checked.isoformat(),
        "cited": claim.cited,
        "render": claim.render,
        "owner": claim.owner,
        **_source_fields(None if several else claim, store, config),
        **last_verdict(last),
        "parts": [_source_fields(view, store, config) for view in views] if several else [],
        "reviewed": claim.reviewed.model_dump(mode="json") if claim.reviewed else None,
    }


def _source_fields(view: Claim | None, store: Store, config: Config) -> dict[str, Any]:
    """One source's fields (a claim of one source, or one part of a claim on several):
    the anchor as written and the snapshots; all null for None."""
    anchor = view.anchor if view else None
    latest = baseline = None
    if view is not None and view.source is not None:
        latest = store.latest(source_ref(view.source, config).key)
        baseline = baseline_of(store, view, config)
    return {
        "source": view.source if view else None,
        "quote": anchor.quote or None if anchor else None,
        "quote_end": anchor.quote_end if anchor else None,
        "prefix": anchor.prefix if anchor else None,
        "suffix": anchor.suffix if anchor else None,
        "absent": list(view.absent) if view else [],
        "scope": view.scope if view else None,
        "snapshot": _fetched_on(latest),
        "snapshot_fetched_at": latest.fetched_at.isoformat() if latest else None,
        "snapshot_file": _stored_file(latest),
        "baseline": _fetched_on(baseline),
        "baseline_origin": baseline.origin if baseline else None,
        "baseline_file": _stored_file(baseline),
    }


def _fetched_on(snapshot: Snapshot | None) -> str | None:
    """The date a snapshot was fetched, as the report gives `snapshot` and `baseline`."""
    return snapshot.fetched_at.date().isoformat() if snapshot else None


def _stored_file(snapshot: Snapshot | None) -> str | None:
    """A snapshot's file from the snapshots folder (`KEY/FILE`), as the report gives it."""
    return f"{snapshot.key}/{snapshot.file}" if snapshot else None


def _last_shown(last: ClaimState) -> str:
    """The last verdict as `show` prints it: since when, and whether acknowledged."""
    acknowledged = ", acknowledged" if last.acknowledged else ""
    return f"{last.verdict} (since {last.since.date()}{acknowledged})"
