"""Storing a web page's snapshot as a run would have stored it, for tests whose source
cannot be fetched here (a public host: the suite reaches loopback only)."""

from __future__ import annotations

import datetime as dt
from pathlib import Path

from claimcheck.models import MediaType, Snapshot
from claimcheck.sources.resolve import resolve_source
from claimcheck.sources.store import Store


def store_page(snapshots: Path, source: str, html: str, fetched_at: dt.datetime) -> Snapshot:
    """Store `html` as the page at `source`, fetched at `fetched_at`."""
    ref = resolve_source(source)
    return Store(snapshots).save(
        key=ref.key,
        url=ref.url,
        final_url=ref.fetch_url,
        status=200,
        body=html.encode(),
        media=MediaType.HTML,
        fetched_at=fetched_at,
    )
