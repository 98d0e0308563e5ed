"""What is known of a source between runs: the record an online run writes and the
judge's input an offline run rebuilds from it are the same, through state.json; an
older state file still loads; a claim on a docs alias is moved by the version it
stands on."""

from __future__ import annotations

import datetime as dt
import tempfile
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimcheck.config import Config
from claimcheck.forges.docs_versions import moved_from, standing_version
from claimcheck.forges.resolve import source_ref
from claimcheck.judge.verdict import Gone, NoSnapshot, Observed, SourceState, Unreachable
from claimcheck.models import MediaType, Snapshot, Verdict
from claimcheck.observe.known import as_found, found_of
from claimcheck.store.state import (
    STATE_FILE,
    ClaimState,
    RunState,
    accept_version,
    load_state,
    save_state,
)
from claimcheck.store.state import (
    SourceState as Remembered,
)
from claimcheck.store.store import Store

URL = "https://docs.example.org/en/latest/serving.html"
V1 = "https://docs.example.org/en/v1.0/serving.html"
V2 = "https://docs.example.org/en/v2.0/serving.html"
FETCHED = dt.datetime(2026, 11, 2, 3, 17, tzinfo=dt.UTC)
WORDS = st.text(st.characters(min_codepoint=32, max_codepoint=0x24F), max_size=30)
URLS = st.sampled_from([None, V1, V2, "https://docs.example.org/handbook/serving.html"])


def _store(root: Path) -> tuple[Store, Config]:
    config = Config(root=root)
    return Store.of(config), config


def _save(store: Store, body: str, when: dt.datetime) -> None:
    key = source_ref(URL, Config(root=store.root)).key
    store.save(
        key=key,
        url=URL,
        final_url=V1,
        status=200,
        body=body.encode(),
        media=MediaType.HTML,
        fetched_at=when,
    )


def _judged(
    latest: Snapshot | None,
    kind: str,
    status: int,
    reason: str,
    hint: str,
    moved_to: str | None,
    version: str | None,
) -> SourceState:
    """A source's state as an online run hands it to the judge."""
    if kind == "gone":
        return Gone(status=status, url=moved_to or URL)
    if kind == "unreachable" or latest is None:
        return Unreachable(reason=reason, hint=hint, last=latest)
    return Observed(
        latest, moved_to=moved_to, moved_why=reason if moved_to else None, version=version
    )


def _told(state: SourceState | None) -> tuple[object, ...]:
    """What the judge reads of a source's state (not how its page is read)."""
    match state:
        case Observed(snapshot=snapshot):
            return ("page", snapshot, state.moved_to, state.moved_why, state.version)
        case Gone(status=status, url=url):
            return ("gone", status, url)
        case Unreachable(reason=reason, hint=hint, last=last):
            return ("unreachable", reason, hint, last)
    return (type(state).__name__,)


@settings(max_examples=60, deadline=None)
@given(
    stored=st.booleans(),
    kind=st.sampled_from(["page", "gone", "unreachable"]),
    status=st.sampled_from([404, 410]),
    reason=WORDS,
    hint=WORDS,
    moved_to=URLS,
    version=URLS,
)
def test_the_record_gives_back_what_the_judge_was_told(
    stored: bool,
    kind: str,
    status: int,
    reason: str,
    hint: str,
    moved_to: str | None,
    version: str | None,
) -> None:
    with tempfile.TemporaryDirectory(prefix="claimcheck-known-") as folder:
        store, config = _store(Path(folder))
        if stored:
            _save(store, "<p>The server batches requests.</p>", FETCHED)
        ref = source_ref(URL, config)
        latest = store.latest(ref.key)
        state = _judged(latest, kind, status, reason, hint, moved_to, version)
        found = found_of(state, latest)
        assert found is not None
        save_state(config.snapshots_dir, RunState(sources={URL: Remembered(found=found)}))
        kept = load_state(config.snapshots_dir).sources[URL].found

        again = as_found(Store.of(config), URL, ref, kept)

        assert _told(again) == _told(state)
        if isinstance(again, Observed):
            assert again.live is False  # read from the store: its reason says when


def test_a_record_no_longer_stands_once_a_newer_version_is_stored(tmp_path: Path) -> None:
    store, config = _store(tmp_path)
    _save(store, "<p>The server batches requests.</p>", FETCHED)
    ref = source_ref(URL, config)
    found = found_of(Gone(status=404, url=URL), store.latest(ref.key))
    _save(store, "<p>The server is back.</p>", FETCHED + dt.timedelta(days=1))

    again = as_found(Store.of(config), URL, ref, found)

    assert isinstance(again, Observed)
    assert again.snapshot == Store.of(config).latest(ref.key)


def test_a_source_gone_before_anything_was_stored_stays_gone(tmp_path: Path) -> None:
    store, config = _store(tmp_path)
    ref = source_ref(URL, config)
    found = found_of(Gone(status=410, url=URL), None)

    assert _told(as_found(store, URL, ref, found)) == ("gone", 410, URL)
    assert isinstance(as_found(store, URL, ref, None), NoSnapshot)


OLD_STATE = """{
  "claims": {
    "a": {
      "verdict": "source-gone",
      "reason": "the source answered HTTP 404 at https://example.org/a",
      "since": "2026-11-01T03:17:00Z"
    }
  },
  "sources": {
    "https://example.org/a": {
      "failures": 0,
      "last_error": null,
      "gone": 2,
      "suspect": 0
    }
  }
}
"""


def test_a_state_file_of_an_older_claimcheck_loads_and_is_written_back_as_it_was(
    tmp_path: Path,
) -> None:
    (tmp_path / STATE_FILE).write_text(OLD_STATE)

    state = load_state(tmp_path)
    save_state(tmp_path, state)

    assert state.sources["https://example.org/a"].found is None
    assert state.claims["a"].stands_on == {}
    assert state.claims["a"].verdict is Verdict.SOURCE_GONE
    assert (tmp_path / STATE_FILE).read_text() == OLD_STATE


def test_accepting_a_claim_records_where_its_source_leads_now() -> None:
    since = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)
    state = RunState(
        claims={
            "a": ClaimState(verdict=Verdict.MOVED, reason="r", since=since, stands_on={URL: V1})
        }
    )

    accepted = accept_version(state, "a", URL, V2)
    cleared = accept_version(accepted, "a", URL, None)

    assert accepted.claims["a"].stands_on == {URL: V2}
    assert cleared.claims["a"].stands_on == {}
    assert accept_version(state, "never-judged", URL, V2) is state  # nothing to keep it in


@pytest.mark.parametrize(
    ("stands_on", "seen_before", "now", "moved_to", "standing"),
    [
        (None, None, V1, None, V1),  # the first run: records the version, no move
        (None, V1, V1, None, V1),
        (None, V1, V2, V2, V1),  # new to the claim, the source was on V1: moved
        (V1, V2, V2, V2, V1),  # stands on V1 night after night: still moved
        (V2, V2, V2, None, V2),  # accepted on V2
        (V2, V1, V1, V1, V2),  # accepted on V2, the alias leads back to V1: moved
        (V1, V2, V1 + "/", None, V1),  # a trailing slash is the same version
    ],
    ids=["first", "same", "moved", "stands", "accepted", "back-after-accept", "slash"],
)
def test_a_claim_is_moved_by_the_version_it_stands_on(
    stands_on: str | None, seen_before: str | None, now: str, moved_to: str | None, standing: str
) -> None:
    assert moved_from(stands_on, seen_before, now) == moved_to
    assert standing_version(stands_on, seen_before, now) == standing
