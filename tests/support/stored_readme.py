"""Storing a GitHub README snapshot as a run would have stored it, for tests that judge
offline against a store they set up."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from claimcheck.models import MediaType, Snapshot
from claimcheck.sources.resolve import resolve_source
from claimcheck.sources.store import Store


def store_readme(
    snapshots: Path,
    body: str,
    *,
    source: str = "https://github.com/o/r",
    day: dt.date = dt.date(2026, 10, 20),
    at: dt.time = dt.time(12),
) -> Snapshot:
    """Store `body` as the README of `source`, fetched on `day` at `at` UTC (noon)."""
    ref = resolve_source(source)
    return Store(snapshots).save(
        key=ref.key,
        url=ref.url,
        final_url=ref.fetch_url,
        status=200,
        body=body.encode(),
        media=MediaType.MARKDOWN,
        fetched_at=dt.datetime.combine(day, at, tzinfo=dt.UTC),
    )
