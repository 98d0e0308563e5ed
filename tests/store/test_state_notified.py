"""What each notification route was last told, kept in state.json beside the verdicts."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from claimcheck.models import Anchor, Claim, ClaimResult, Report, Verdict
from claimcheck.store.state import (
    STATE_FILE,
    RunState,
    StateMergeError,
    load_state,
    merge_states,
    record_notified,
    record_report,
    save_state,
)

NOW = dt.datetime(2026, 11, 2, 3, 17, tzinfo=dt.UTC)


def test_a_state_file_written_before_notifications_loads(tmp_path: Path) -> None:
    (tmp_path / STATE_FILE).write_text(
        json.dumps(
            {
                "claims": {"a": {"verdict": "verified", "reason": "ok", "since": NOW.isoformat()}},
                "sources": {},
            }
        ),
        encoding="utf-8",
    )
    state = load_state(tmp_path)
    assert state.notified == {}
    assert state.claims["a"].verdict is Verdict.VERIFIED


def test_no_record_writes_no_key_and_records_round_trip(tmp_path: Path) -> None:
    save_state(tmp_path, RunState())
    assert json.loads((tmp_path / STATE_FILE).read_text()) == {"claims": {}, "sources": {}}
    state = record_notified(RunState(), "infra", {"a": "stale", "b": "review"})
    save_state(tmp_path, state)
    written = json.loads((tmp_path / STATE_FILE).read_text())
    assert written["notified"] == {"infra": {"a": "stale", "b": "review"}}
    assert load_state(tmp_path).notified == {"infra": {"a": "stale", "b": "review"}}


def test_a_recovery_drops_the_record_and_an_empty_route_goes() -> None:
    state = record_notified(RunState(), "infra", {"a": "stale"})
    state = record_notified(state, "docs", {"b": "review"})
    state = record_notified(state, "infra", {"a": None})
    assert state.notified == {"docs": {"b": "review"}}


def test_a_run_keeps_what_the_routes_were_told() -> None:
    state = record_notified(RunState(), "infra", {"a": "stale"})
    claim = Claim(
        id="a",
        page="p",
        claim="c",
        source="https://example.org",
        anchor=Anchor(quote="q"),
        checked=dt.date(2026, 10, 20),
        file="f.yaml",
        line=1,
    )
    report = Report(
        generated_at=NOW,
        offline=False,
        results=(ClaimResult(claim=claim, verdict=Verdict.MISSING, reason="gone"),),
    )
    assert record_report(state, report).notified == {"infra": {"a": "stale"}}


def test_shards_merge_their_routes_records() -> None:
    base = RunState()
    one = record_notified(base, "infra", {"a": "stale"})
    two = record_notified(base, "docs", {"b": "review"})
    merged = merge_states(base, [("one", one), ("two", two)])
    assert merged.notified == {"infra": {"a": "stale"}, "docs": {"b": "review"}}
    other = record_notified(base, "infra", {"c": "stale"})
    with pytest.raises(StateMergeError, match="notification route 'infra' changed in two"):
        merge_states(base, [("one", one), ("other", other)])
