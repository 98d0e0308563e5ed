"""What `claimcheck show` does: one claim's fields, last verdict and snapshots."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from claimcheck.cli.project import build_config
from claimcheck.cli.selection import find_claim
from claimcheck.cli.selection import read_claims as read_config_claims
from claimcheck.cli.show import NEVER_JUDGED
from claimcheck.cli.work.editing import describe_snapshot
from claimcheck.forges.resolve import source_ref
from claimcheck.history.baseline import baseline_of
from claimcheck.models import Anchor, ExitCode
from claimcheck.store.state import load_state
from claimcheck.store.store import Store
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    from claimcheck.models import Claim


def show(
    *, claim_id: str, paths: list[Path] | None, config_path: Path | None, snapshots: Path | None
) -> int:
    """The work of `claimcheck show`, given its parsed options: its exit code."""
    config = build_config(config_path, snapshots)
    claim = find_claim(read_config_claims(paths, config), claim_id)
    last = load_state(config.snapshots_dir).claims.get(claim.id)
    store = Store.of(config)

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
        ("verdict", f"{last.verdict} (since {last.since.date()})" if last else NEVER_JUDGED),
        ("reason", last.reason if last else None),
    ]
    for view, name in zip(views, named, strict=True):
        fields.extend(snapshot_fields(view, name))
    width = max(len(name) for name, _ in fields) + 1
    for name, value in fields:
        if value is not None:
            typer.echo(f"{name + ':':<{width}} {clean_text(value)}")
    return int(ExitCode.OK)
