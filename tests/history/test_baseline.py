"""Baselines: the check date is a whole UTC day, and the baseline is the version of that
day the checker can have verified the quote in."""

from __future__ import annotations

import datetime as dt
import hashlib
import json
from pathlib import Path

import pytest

from claimcheck.config import Config
from claimcheck.forges.forge import Version
from claimcheck.forges.resolve import resolve_source, source_ref
from claimcheck.history.baseline import baseline_of, wants_history
from claimcheck.history.online import HistoryStats, keep_found
from claimcheck.models import Anchor, Claim, MediaType, Snapshot
from claimcheck.store.store import Store
from support.stored_versions import as_of

URL = "https://github.com/o/r"
KEY = resolve_source(URL).key
DAY = dt.date(2026, 10, 20)
QUOTE = "runs on NVIDIA and AMD GPUs"
HOLDS = f"# r\n\nIt {QUOTE} today.\n".encode()
REWORDED = b"# r\n\nIt runs on NVIDIA GPUs only.\n"
OTHER = b"# r\n\nNothing about hardware.\n"


def at(hour: int, minute: int = 0, day: dt.date = DAY) -> dt.datetime:
    return dt.datetime.combine(day, dt.time(hour, minute), tzinfo=dt.UTC)


def claim(quote: str = QUOTE, checked: dt.date = DAY) -> Claim:
    return Claim(
        id="c",
        page="p",
        claim="r runs on NVIDIA and AMD GPUs",
        source=URL,
        anchor=Anchor(quote=quote),
        checked=checked,
        file="claims/p.yaml",
        line=5,
    )


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "snapshots")


@pytest.fixture
def config(tmp_path: Path) -> Config:
    return Config(root=tmp_path)


def save(store: Store, body: bytes, when: dt.datetime) -> Snapshot:
    return store.save(
        key=KEY,
        url=URL,
        final_url="https://api.github.com/repos/o/r/readme",
        status=200,
        body=body,
        media=MediaType.MARKDOWN,
        fetched_at=when,
    )


def test_the_morning_version_the_quote_held_in_is_the_baseline(
    store: Store, config: Config
) -> None:
    save(store, OTHER, at(0, 0))
    morning = save(store, HOLDS, at(8, 15))
    save(store, REWORDED, at(13, 40))
    save(store, OTHER, at(23, 59))

    assert baseline_of(store, claim(), config) == morning


def test_the_newest_version_of_the_day_the_quote_held_in_wins(store: Store, config: Config) -> None:
    save(store, HOLDS, at(7))
    save(store, REWORDED, at(9))
    again = save(store, HOLDS, at(11))
    save(store, OTHER, at(18))

    assert baseline_of(store, claim(), config) == again


def test_a_quote_held_in_no_version_of_the_day_keeps_the_end_of_day_one(
    store: Store, config: Config
) -> None:
    save(store, HOLDS, at(9, day=DAY - dt.timedelta(days=3)))  # too old: replaced before the day
    save(store, OTHER, at(9, day=DAY - dt.timedelta(days=2)))
    save(store, REWORDED, at(8))
    newest = save(store, b"# r\n\nRewritten.\n", at(17))
    save(store, HOLDS, at(6, day=DAY + dt.timedelta(days=1)))  # too new: not seen that day

    assert baseline_of(store, claim(), config) == newest
    assert baseline_of(store, claim(), config) == as_of(store, KEY, DAY)


def test_the_version_in_force_when_the_day_began_counts(store: Store, config: Config) -> None:
    save(store, OTHER, at(9, day=DAY - dt.timedelta(days=3)))
    before = save(store, HOLDS, at(22, day=DAY - dt.timedelta(days=1)))
    save(store, REWORDED, at(10))

    assert baseline_of(store, claim(), config) == before


def test_one_version_that_day_is_the_baseline_without_reading_it(
    store: Store, config: Config, monkeypatch: pytest.MonkeyPatch
) -> None:
    only = save(store, REWORDED, at(9, day=DAY - dt.timedelta(days=30)))

    def unread(snapshot: Snapshot) -> str:
        raise AssertionError(f"read {snapshot.file}")

    monkeypatch.setattr(store, "read_body", unread)
    assert baseline_of(store, claim(), config) == only


def test_no_version_as_old_as_the_check_date_is_no_baseline(store: Store, config: Config) -> None:
    save(store, HOLDS, at(0, 0, day=DAY + dt.timedelta(days=1)))

    assert baseline_of(store, claim(), config) is None  # backfill's cue


def test_prefix_and_suffix_decide_whether_the_quote_held(store: Store, config: Config) -> None:
    morning = save(store, HOLDS, at(8))
    save(store, f"# r\n\nIt {QUOTE} tomorrow.\n".encode(), at(12))
    picky = claim().model_copy(update={"anchor": Anchor(quote=QUOTE, suffix="today")})

    assert baseline_of(store, picky, config) == morning  # the quote alone is there at noon


def test_versions_in_force_during_a_range(store: Store) -> None:
    old = save(store, OTHER, at(12, day=DAY - dt.timedelta(days=5)))
    first = save(store, HOLDS, at(0, 0))  # stored the moment the day began
    second = save(store, REWORDED, at(23, 59))
    save(store, OTHER, at(0, 0, day=DAY + dt.timedelta(days=1)))
    end = dt.datetime.combine(DAY, dt.time.max, tzinfo=dt.UTC)

    assert store.in_force_during(KEY, at(0, 0), end) == [first, second]
    assert store.in_force_during(KEY, at(0, 1), end) == [first, second]
    assert store.in_force_during(KEY, at(0, 0) - dt.timedelta(microseconds=1), end) == [
        old,
        first,
        second,
    ]
    assert store.in_force_during(KEY, at(0, 0, day=DAY - dt.timedelta(days=9)), at(1)) == [
        old,
        first,
    ]
    assert store.in_force_during("github.com/nobody/README", at(0, 0), end) == []


def test_the_versions_in_force_on_a_day_follow_what_the_store_holds(
    store: Store, config: Config
) -> None:
    """`in_force_on` keeps its answer per source and day: a version stored after it was
    asked (a baseline backfilled, a new fetch) is in the next answer, and the answer is
    `in_force_during` the whole day on every day around it."""
    first = save(store, OTHER, at(9))
    assert store.in_force_on(KEY, DAY) == [first]
    assert baseline_of(store, claim(), config) == first
    second = save(store, HOLDS, at(15))  # after the answer was kept
    assert store.in_force_on(KEY, DAY) == [first, second]
    assert baseline_of(store, claim(), config) == second  # the one the quote held in
    answered = store.in_force_on(KEY, DAY)
    answered.clear()  # a caller's list is its own
    assert store.in_force_on(KEY, DAY) == [first, second]
    for offset in range(-2, 3):
        day = DAY + dt.timedelta(days=offset)
        whole_day = (
            dt.datetime.combine(day, dt.time.min, tzinfo=dt.UTC),
            dt.datetime.combine(day, dt.time.max, tzinfo=dt.UTC),
        )
        assert store.in_force_on(KEY, day) == store.in_force_during(KEY, *whole_day)


# -- a version from history stands for the days history vouched for ----------------------

COMMIT_AT = at(9, day=DAY - dt.timedelta(days=40))  # the commit history names
LATER = DAY + dt.timedelta(days=30)


def from_history(
    store: Store, config: Config, day: dt.date, body: bytes = HOLDS, when: dt.datetime = COMMIT_AT
) -> HistoryStats:
    """What `backfill` stores when history answers, for `day`, the file of the commit
    made at `when`."""
    stats = HistoryStats()
    version = Version(date=when, body=body, origin=f"commit {when:%Y%m%d%H%M}")
    keep_found(store, source_ref(URL, config), day, version, stats)
    return stats


def test_a_version_from_history_stands_from_its_commit_to_the_day_asked_about(
    store: Store, config: Config
) -> None:
    from_history(store, config, DAY)
    (stored,) = store.versions(KEY)
    ref = source_ref(URL, config)

    assert stored.vouched_until == DAY
    assert baseline_of(store, claim(checked=COMMIT_AT.date()), config) == stored
    assert baseline_of(store, claim(checked=DAY), config) == stored
    assert not wants_history(store, ref, DAY)
    # A later day: the source may have changed since; history is asked, not assumed.
    assert baseline_of(store, claim(checked=DAY + dt.timedelta(days=1)), config) is None
    assert wants_history(store, ref, DAY + dt.timedelta(days=1))
    assert as_of(store, KEY, DAY + dt.timedelta(days=1)) is None
    assert as_of(store, KEY, DAY) == stored


def test_history_answering_the_same_commit_again_extends_its_days(
    store: Store, config: Config
) -> None:
    from_history(store, config, DAY)
    from_history(store, config, LATER)  # the same commit, asked for a later day
    from_history(store, config, DAY - dt.timedelta(days=1))  # an earlier day shortens nothing

    (stored,) = store.versions(KEY)
    assert stored.vouched_until == LATER
    assert baseline_of(store, claim(checked=LATER - dt.timedelta(days=3)), config) == stored
    reread = Store(store.root)  # kept in the index
    assert reread.versions(KEY) == [stored]


def test_the_same_text_after_days_history_did_not_vouch_for_is_a_version_of_its_own(
    store: Store, config: Config
) -> None:
    """A file that changed and changed back between two answers: nothing stored says
    what it said in between, so a day in that gap is asked again."""
    first = from_history(store, config, DAY)
    back_at = at(9, day=LATER - dt.timedelta(days=2))
    again = from_history(store, config, LATER, when=back_at)

    old, new = store.versions(KEY)
    assert (first.backfilled, again.backfilled) == (1, 1)
    assert (old.fetched_at, old.vouched_until) == (COMMIT_AT, DAY)
    assert (new.fetched_at, new.vouched_until) == (back_at, LATER)
    assert new.file == old.file  # one body on disk
    assert baseline_of(store, claim(checked=DAY + dt.timedelta(days=5)), config) is None


def test_an_index_written_before_vouched_days_counts_a_version_on_its_own_date(
    store: Store, config: Config
) -> None:
    """An index of an older claimcheck: its history versions stand on their own date
    only, so history is asked again for any other (and then vouches for it)."""
    folder = store.folder(KEY)
    folder.mkdir(parents=True)
    (folder / "2026-09-10T090000Z-0a1b2c3d.md").write_bytes(HOLDS)
    entry = {
        "final_url": "https://api.github.com/repos/o/r/readme",
        "fetched_at": "2026-09-10T09:00:00Z",
        "status": 200,
        "etag": None,
        "last_modified": None,
        "sha256": hashlib.sha256(HOLDS).hexdigest(),
        "media": "markdown",
        "file": "2026-09-10T090000Z-0a1b2c3d.md",
        "origin": "commit abc",
    }
    (folder / "index.json").write_text(json.dumps({"url": URL, "versions": [entry]}))
    ref = source_ref(URL, config)

    (old,) = store.versions(KEY)
    assert old.vouched_until is None
    assert baseline_of(store, claim(checked=dt.date(2026, 9, 10)), config) == old
    assert baseline_of(store, claim(checked=DAY), config) is None
    assert wants_history(store, ref, DAY)

    same = Version(date=old.fetched_at, body=HOLDS, origin="commit abc")
    keep_found(store, ref, DAY, same, HistoryStats())  # history answers it for DAY

    (vouched,) = Store(store.root).versions(KEY)
    assert vouched.vouched_until == DAY
    assert baseline_of(store, claim(checked=DAY), config) == store.versions(KEY)[0]


def test_a_live_fetch_after_a_version_from_history_stands_from_then_on(
    store: Store, config: Config
) -> None:
    from_history(store, config, DAY)
    fetched_at = at(3, day=LATER)
    live = save(store, HOLDS, fetched_at)  # the same text, fetched today

    vouched, stored = store.versions(KEY)
    assert stored == live
    assert (live.origin, live.vouched_until, live.file) == ("fetch", None, vouched.file)
    assert baseline_of(store, claim(checked=LATER + dt.timedelta(days=9)), config) == live
    assert baseline_of(store, claim(checked=LATER - dt.timedelta(days=9)), config) is None
    assert save(store, HOLDS, fetched_at + dt.timedelta(days=1)) == live  # stands: no new one


def test_vouched_days_are_kept_in_the_index_only_for_versions_from_history(
    store: Store, config: Config
) -> None:
    from_history(store, config, DAY)
    save(store, REWORDED, at(3, day=LATER))

    entries = json.loads((store.folder(KEY) / "index.json").read_text())["versions"]
    assert [e.get("vouched_until", "absent") for e in entries] == [DAY.isoformat(), "absent"]
