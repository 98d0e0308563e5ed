"""A claim on a field of a web JSON document: its baseline from history is read as JSON."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

from claimcheck.forges.forge import Version
from claimcheck.forges.resolve import resolve_source
from claimcheck.history.online import HistoryStats, keep_found
from claimcheck.judge.fields import field_value, read_document
from claimcheck.models import MediaType
from claimcheck.store.store import Store

URL = "https://tools.example.org/tool.json"


def test_a_capture_of_a_json_document_is_kept_as_json(tmp_path: Path) -> None:
    store = Store(tmp_path / "snapshots")
    ref = resolve_source(URL)
    now = dt.datetime(2026, 11, 1, 3, tzinfo=dt.UTC)
    store.save(
        key=ref.key,
        url=URL,
        final_url=URL,
        status=200,
        body=json.dumps({"license": "Apache-2.0"}).encode(),
        media=MediaType.JSON,
        fetched_at=now,
    )
    capture = Version(
        date=dt.datetime(2026, 3, 1, 12, tzinfo=dt.UTC),
        body=json.dumps({"license": "MIT", "name": "tool"}).encode(),
        origin="wayback https://web.archive.org/web/20260301120000/" + URL,
    )

    keep_found(store, ref, dt.date(2026, 3, 2), capture, HistoryStats())

    (baseline,) = store.in_force_on(ref.key, dt.date(2026, 3, 2))
    assert baseline.media is MediaType.JSON
    body = store.read_body(baseline)
    assert field_value(read_document(body, baseline.media), "/license") == "MIT"
