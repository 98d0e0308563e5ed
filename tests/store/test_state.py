"""The remembered state: last verdicts, consecutive failures per source, last run."""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path

import pytest

from claimcheck.errors import StoreError
from claimcheck.models import Anchor, Claim, ClaimResult, Report, Verdict
from claimcheck.store.state import (
    STATE_FILE,
    RunState,
    StateMergeError,
    load_state,
    merge_states,
    record_last_run,
    record_report,
    save_state,
    suspect_count,
)

URL = "https://github.com/o/r"


def claim(claim_id: str, source: str | None = URL) -> Claim:
    return Claim(
        id=claim_id,
        page="p",
        claim="c",
        source=source,
        anchor=Anchor(quote="q") if source else None,
        checked=dt.date(2026, 10, 20),
        cited=None if source else "x",
        file="f.yaml",
        line=1,
    )


def night(day: int, verdict: Verdict, *ids: str) -> Report:
    when = dt.datetime(2026, 11, day, 3, 17, tzinfo=dt.UTC)
    results = tuple(ClaimResult(claim=claim(i), verdict=verdict, reason=verdict.value) for i in ids)
    return Report(generated_at=when, offline=False, results=results)


def test_failures_count_once_per_source_per_night_and_reset_on_success() -> None:
    state = RunState()
    for day in (1, 2, 3):
        state = record_report(state, night(day, Verdict.UNREACHABLE, "a", "b"))
    assert state.sources[URL].failures == 3
    assert state.last_run is None  # the scheduler records its runs itself, apart
    state = record_report(state, night(4, Verdict.VERIFIED, "a", "b"))
    assert state.sources[URL].failures == 0


def test_suspicious_answers_count_in_a_row_and_a_silent_night_keeps_the_count() -> None:
    state = RunState()
    for day in (1, 2):
        count = suspect_count(state, URL)
        state = record_report(state, night(day, Verdict.UNREACHABLE, "a"), {URL: count})
    assert state.sources[URL].suspect == 2
    state = record_report(state, night(3, Verdict.UNREACHABLE, "a"))  # no answer at all
    assert (state.sources[URL].suspect, state.sources[URL].failures) == (2, 3)
    assert suspect_count(state, URL) == 3
    state = record_report(state, night(4, Verdict.VERIFIED, "a"))  # the page again
    assert state.sources[URL].suspect == 0


def test_gone_is_counted_separately() -> None:
    state = record_report(RunState(), night(1, Verdict.SOURCE_GONE, "a"))
    state = record_report(state, night(2, Verdict.SOURCE_GONE, "a"))
    assert (state.sources[URL].gone, state.sources[URL].failures) == (2, 0)


def test_since_is_kept_while_the_verdict_holds() -> None:
    state = record_report(RunState(), night(1, Verdict.DRIFTED, "a"))
    state = record_report(state, night(2, Verdict.DRIFTED, "a"))
    assert state.claims["a"].since.day == 1
    state = record_report(state, night(3, Verdict.VERIFIED, "a"))
    assert state.claims["a"].since.day == 3


def test_save_writes_only_on_change_and_round_trips(tmp_path: Path) -> None:
    state = record_report(RunState(), night(1, Verdict.VERIFIED, "a"))
    save_state(tmp_path, state)
    mtime = (tmp_path / STATE_FILE).stat().st_mtime_ns
    save_state(tmp_path, state)
    assert (tmp_path / STATE_FILE).stat().st_mtime_ns == mtime
    assert load_state(tmp_path) == state
    assert load_state(tmp_path / "none") == RunState()


@pytest.mark.parametrize(
    ("damaged", "words"),
    [
        (b"[]", "Input should be an object"),
        (b"", "EOF"),
        (b'{"claims": {', "EOF"),
        (b"\xff\xfe{}", "Invalid JSON"),
        (
            b'{"claims": {"c": {"verdict": "fine", "reason": "r", '
            b'"since": "2026-01-01T00:00:00Z"}}}',
            "claims.c.verdict: Input should be",
        ),
        (
            b'{"claims": {"c": {"verdict": "verified", "reason": "r", "since": "yesterday"}}}',
            "claims.c.since: Input should be a valid datetime",
        ),
        (b'{"sources": {"u": {"failures": "many"}}}', "sources.u.failures: Input should be"),
        (b'{"unknown": 1}', "unknown: Extra inputs are not permitted"),
    ],
    ids=["list", "empty", "cut", "not-utf8", "verdict", "date", "count", "field"],
)
def test_a_corrupt_state_file_is_a_store_error(tmp_path: Path, damaged: bytes, words: str) -> None:
    (tmp_path / STATE_FILE).write_bytes(damaged)
    with pytest.raises(StoreError, match="is not a valid state file") as raised:
        load_state(tmp_path)
    said = str(raised.value)
    assert words in said
    # The field and what is wrong with it, not pydantic's own header and links.
    assert "validation error for" not in said
    assert "pydantic" not in said


def test_a_night_where_nothing_changed_writes_no_file(tmp_path: Path) -> None:
    """The state file is rewritten only when a verdict or a source's count changes,
    and the scheduler's last run is kept apart, in the uncommitted cache folder."""
    snapshots = tmp_path / "snapshots"
    state = record_report(RunState(), night(1, Verdict.VERIFIED, "a"))
    save_state(snapshots, state)
    written = (snapshots / "state.json").stat().st_mtime_ns
    again = record_report(load_state(snapshots), night(2, Verdict.VERIFIED, "a"))
    save_state(snapshots, again)
    assert (snapshots / "state.json").stat().st_mtime_ns == written
    assert "last_run" not in json.loads((snapshots / "state.json").read_text())

    record_last_run(snapshots, dt.datetime(2026, 11, 2, 3, 17, tzinfo=dt.UTC))
    assert load_state(snapshots).last_run == dt.datetime(2026, 11, 2, 3, 17, tzinfo=dt.UTC)
    assert (snapshots / ".cache" / ".gitignore").read_text().splitlines()[-1] == "*"
    assert (snapshots / "state.json").stat().st_mtime_ns == written


def test_a_last_run_in_an_older_state_file_still_counts(tmp_path: Path) -> None:
    snapshots = tmp_path / "snapshots"
    snapshots.mkdir()
    (snapshots / "state.json").write_text('{"last_run": "2026-11-01T03:17:00Z"}')
    assert load_state(snapshots).last_run == dt.datetime(2026, 11, 1, 3, 17, tzinfo=dt.UTC)


# -- the shards' states, merged ---------------------------------------------------------

OTHER = "https://docs.example.org/guide"
THIRD = "https://github.com/o/third"


def mixed(day: int, *outcomes: tuple[str, str, Verdict]) -> Report:
    """A night of (claim id, source, verdict) outcomes."""
    when = dt.datetime(2026, 11, day, 3, 17, day, tzinfo=dt.UTC)
    results = tuple(
        ClaimResult(claim=claim(i, source), verdict=verdict, reason=verdict.value)
        for i, source, verdict in outcomes
    )
    return Report(generated_at=when, offline=False, results=results)


def split(report: Report, *shards: set[str]) -> list[Report]:
    """The report as the shards holding these sources would each have written it."""
    return [
        report.model_copy(
            update={"results": tuple(r for r in report.results if r.claim.source in sources)}
        )
        for sources in shards
    ]


def test_merged_shard_states_are_the_state_of_one_run_over_every_claim() -> None:
    """The oracle is the fold of the whole night's report; the merge never sees it."""
    nights = [
        mixed(1, ("a", URL, Verdict.VERIFIED), ("b", OTHER, Verdict.UNREACHABLE)),
        mixed(
            2,
            ("a", URL, Verdict.DRIFTED),
            ("b", OTHER, Verdict.UNREACHABLE),
            ("c", THIRD, Verdict.SOURCE_GONE),
        ),
        mixed(
            3,
            ("a", URL, Verdict.DRIFTED),
            ("b", OTHER, Verdict.VERIFIED),
            ("c", THIRD, Verdict.SOURCE_GONE),
        ),
    ]
    whole = merged = RunState()
    for report in nights:
        whole = record_report(whole, report, {OTHER: suspect_count(whole, OTHER)})
        shards = split(report, {URL, THIRD}, {OTHER})
        parts = [
            ("part-1/state.json", record_report(merged, shards[0])),
            (
                "part-2/state.json",
                record_report(merged, shards[1], {OTHER: suspect_count(merged, OTHER)}),
            ),
        ]
        merged = merge_states(merged, parts)
        assert merged == whole

    assert whole.sources[OTHER] == whole.sources[URL]  # reset by the third night
    assert whole.sources[THIRD].gone == 2
    assert whole.claims["a"].since == nights[1].generated_at


def test_an_entry_no_part_changed_keeps_its_base_value() -> None:
    base = record_report(RunState(), mixed(1, ("a", URL, Verdict.VERIFIED)))
    later = record_report(base, mixed(2, ("b", OTHER, Verdict.MISSING)))

    merged = merge_states(base, [("one", later), ("two", base)])

    assert merged.claims == {"a": base.claims["a"], "b": later.claims["b"]}
    assert merge_states(base, []) == base


def test_two_parts_changing_one_entry_differently_are_refused_naming_both() -> None:
    base = RunState()
    one = record_report(base, mixed(1, ("a", URL, Verdict.VERIFIED)))
    two = record_report(base, mixed(1, ("a", URL, Verdict.MISSING)))

    with pytest.raises(
        StateMergeError,
        match=r"two: the claim 'a' changed in two parts, differently: here and in one",
    ):
        merge_states(base, [("one", one), ("two", two)])


def test_a_part_that_lacks_an_entry_of_the_base_did_not_start_from_it() -> None:
    base = record_report(
        RunState(), mixed(1, ("a", URL, Verdict.VERIFIED), ("b", URL, Verdict.VERIFIED))
    )

    with pytest.raises(
        StateMergeError,
        match=r"stray: not a shard's state over this state: it lacks the claim 'a' and 1 more",
    ):
        merge_states(base, [("stray", RunState())])
