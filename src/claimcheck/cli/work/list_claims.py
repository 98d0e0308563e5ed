"""What `claimcheck list` does: one row per claim with its last verdict (a table, or
the JSON of `listing.py`)."""

from __future__ import annotations

import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

from claimcheck.cli.options import ListingFormat
from claimcheck.cli.project import build_config
from claimcheck.cli.selection import read_claims as read_config_claims
from claimcheck.cli.show import LAST_VERDICTS, NEVER_JUDGED
from claimcheck.cli.verbosity import say
from claimcheck.cli.work.listing import (
    LISTING_SCHEMA_VERSION,
    claim_head,
    last_verdict,
    write_json,
)
from claimcheck.errors import UsageError
from claimcheck.models import ExitCode
from claimcheck.store.state import load_state
from claimcheck.untrusted import clean_text


def list_claims(
    *,
    paths: list[Path] | None,
    page: list[str] | None,
    source: str | None,
    verdict: list[str] | None,
    output_format: ListingFormat,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
    """The work of `claimcheck list`, given its parsed options: its exit code."""
    unknown = sorted(set(verdict or ()) - set(LAST_VERDICTS))
    if unknown:
        raise UsageError(f"--verdict {unknown[0]!r}: expected one of {', '.join(LAST_VERDICTS)}")
    config = build_config(config_path, snapshots)
    claims = read_config_claims(paths, config)
    state = load_state(config.snapshots_dir)
    rows = []
    records: list[dict[str, Any]] = []
    for claim in claims:
        last = state.claims.get(claim.id)
        judged = last.verdict.value if last else NEVER_JUDGED
        cited = claim.source or claim.cited or ""
        if page and claim.page not in page:
            continue
        if source and source.casefold() not in cited.casefold():
            continue
        if verdict and judged not in verdict:
            continue
        since = str(last.since.date()) if last else "-"
        origin = claim.source or f"cited: {claim.cited}"
        shown = f"{judged} (acknowledged)" if last and last.acknowledged else judged
        rows.append((claim.id, claim.page, shown, since, str(claim.checked), origin))
        records.append(
            {
                **claim_head(claim),
                "checked": claim.checked.isoformat(),
                "source": None if claim.parts else claim.source,
                "sources": list(claim.sources),
                "cited": claim.cited,
                **last_verdict(last),
            }
        )
    if output_format is ListingFormat.JSON:
        write_json({"schema_version": LISTING_SCHEMA_VERSION, "claims": records})
    else:
        _print_rows(("id", "page", "verdict", "since", "checked", "source"), rows)
    say(f"{len(rows)} of {len(claims)} claims")
    return int(ExitCode.OK)


def _print_rows(header: tuple[str, ...], rows: Sequence[tuple[str, ...]]) -> None:
    """Plain aligned columns, the last one unpadded; untrusted text cleaned."""
    table = [header, *[tuple(clean_text(cell) for cell in row) for row in rows]]
    widths = [max(len(row[i]) for row in table) for i in range(len(header) - 1)]
    for row in table:
        cells = [cell.ljust(width) for cell, width in zip(row, widths, strict=False)]
        sys.stdout.write("  ".join([*cells, row[-1]]).rstrip() + "\n")
