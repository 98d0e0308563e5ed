"""Verdicts kept (`cache/verdicts.py`): a kept answer is the answer judged afresh, and is
taken only for exactly the inputs it was computed from.

The snapshots are real README versions from the history corpus, stored in a real store
in a temp folder; the claims quote real sentences of the older version, so the set
holds verified, context-changed, drifted and missing verdicts. The oracle for "the same
answer" is `judge_observed` called directly, without any keeping.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from claimcheck.cache import verdicts as verdicts_module
from claimcheck.cache.verdicts import VERDICTS_FILE, Verdicts
from claimcheck.judge.verdict import Observed, Thresholds, judge_observed
from claimcheck.models import Anchor, Claim, ClaimResult, Verdict
from claimcheck.observe.known import observed, with_page
from claimcheck.store.store import Store
from support import paths
from support.corpus_replay import sentences
from support.corpus_snapshots import Version, import_version, versions

ENGINE = paths.CORPUS / "ggml-org__llama.cpp"
LIMITS = Thresholds()


def _pair() -> tuple[Version, Version]:
    found = versions(ENGINE)
    return found[len(found) // 2], found[-1]


@pytest.fixture
def store(tmp_path: Path) -> Store:
    return Store(tmp_path / "snapshots")


def _claims(version: Version) -> list[Claim]:
    quotes = sentences(version.path.read_text(encoding="utf-8"))[:40]
    return [
        Claim(
            id=f"c{number}",
            page="page",
            claim=f"claim {number}",
            source=f"https://github.com/{version.repo}",
            anchor=Anchor(quote=quote),
            checked=version.committed.date(),
            file="claims/page.yaml",
            line=3 + 6 * number,
        )
        for number, quote in enumerate(quotes)
    ]


def _observed(store: Store, then: Version, now: Version) -> tuple[Observed, Observed]:
    baseline = import_version(store, then)
    latest = import_version(store, now)
    return (
        with_page(store, observed(latest, live=True)),
        with_page(store, observed(baseline, live=False)),
    )


def _judge_all(
    folder: Path, claims: list[Claim], then: Version, now: Version
) -> tuple[list[ClaimResult], Verdicts]:
    store = Store(folder)
    state, baseline = _observed(store, then, now)
    kept = Verdicts(folder)
    results = [kept.judge(c, state, LIMITS, baseline=baseline) for c in claims]
    kept.save()
    return results, kept


def test_a_kept_answer_is_the_answer_judged_afresh(tmp_path: Path) -> None:
    then, now = _pair()
    claims = _claims(then)
    folder = tmp_path / "snapshots"
    first, judged = _judge_all(folder, claims, then, now)
    second, taken = _judge_all(folder, claims, then, now)

    store = Store(folder)
    state, baseline = _observed(store, then, now)
    oracle = [judge_observed(c, state, LIMITS, baseline=baseline) for c in claims]
    assert {r.verdict for r in oracle} >= {Verdict.VERIFIED, Verdict.MISSING}
    assert (judged.judged, judged.taken) == (len(claims), 0)
    assert (taken.judged, taken.taken) == (0, len(claims))
    for got, again, expected in zip(first, second, oracle, strict=True):
        assert got.model_dump(mode="json") == expected.model_dump(mode="json")
        assert again.model_dump(mode="json") == expected.model_dump(mode="json")


def test_a_kept_answer_is_taken_without_a_page_and_a_missing_one_asks_for_it(
    tmp_path: Path,
) -> None:
    """`kept` answers from the inputs' records alone, so a run reads no page for a claim
    whose answer is kept; without one it says so (None), and `judge_anew` judges on
    the pages then read, keeping the answer for the next run."""
    then, now = _pair()
    claims = _claims(then)
    folder = tmp_path / "snapshots"
    store = Store(folder)
    state, baseline = _observed(store, then, now)
    unread = observed(state.snapshot, live=True), observed(baseline.snapshot, live=False)
    oracle = [judge_observed(c, state, LIMITS, baseline=baseline) for c in claims]

    first = Verdicts(folder)
    assert [first.kept(c, unread[0], LIMITS, baseline=unread[1]) for c in claims] == [
        None for _ in claims
    ]
    judged = [first.judge_anew(c, state, LIMITS, baseline=baseline) for c in claims]
    first.save()
    again = Verdicts(folder)
    taken = [again.kept(c, unread[0], LIMITS, baseline=unread[1]) for c in claims]

    assert (first.judged, first.taken, again.judged, again.taken) == (
        len(claims),
        0,
        0,
        len(claims),
    )
    for mine, kept, expected in zip(judged, taken, oracle, strict=True):
        assert kept is not None
        assert mine.model_dump(mode="json") == expected.model_dump(mode="json")
        assert kept.model_dump(mode="json") == expected.model_dump(mode="json")


def test_a_run_that_takes_every_answer_writes_nothing(tmp_path: Path) -> None:
    then, now = _pair()
    claims = _claims(then)
    folder = tmp_path / "snapshots"
    _judge_all(folder, claims, then, now)
    kept = folder / ".cache" / VERDICTS_FILE
    before = kept.stat().st_mtime_ns, kept.read_bytes()
    _judge_all(folder, claims, then, now)
    assert (kept.stat().st_mtime_ns, kept.read_bytes()) == before


def test_any_edit_of_a_claim_is_judged_again(tmp_path: Path) -> None:
    then, now = _pair()
    claims = _claims(then)
    folder = tmp_path / "snapshots"
    _judge_all(folder, claims, then, now)
    edited = [
        claims[0].model_copy(update={"claim": "reworded"}),
        claims[1].model_copy(update={"checked": claims[1].checked.replace(day=1)}),
        claims[2].model_copy(update={"anchor": Anchor(quote=claims[2].anchor.quote[:-1])}),  # type: ignore[union-attr]
        *claims[3:],
    ]
    _, kept = _judge_all(folder, edited, then, now)
    assert (kept.judged, kept.taken) == (3, len(claims) - 3)


def test_another_snapshot_or_threshold_or_judge_misses(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    then, now = _pair()
    older = versions(ENGINE)[1]
    claims = _claims(then)
    folder = tmp_path / "snapshots"
    _judge_all(folder, claims, then, now)

    store = Store(folder)
    state, baseline = _observed(store, then, now)
    other = with_page(store, observed(import_version(store, older), live=False))
    kept = Verdicts(folder)
    kept.judge(claims[0], state, LIMITS, baseline=other)  # another baseline
    kept.judge(claims[0], state, Thresholds(drift_min_score=80.0), baseline=baseline)
    # The same snapshot object, moved (for good, or as a docs alias leads elsewhere).
    moved = state.moved("https://github.com/o/elsewhere")
    kept.judge(claims[0], moved, LIMITS, baseline=baseline)
    kept.judge(
        claims[0], state.moved(moved.moved_to, "its alias leads on"), LIMITS, baseline=baseline
    )
    assert (kept.judged, kept.taken) == (4, 0)
    kept.judge(claims[0], moved, LIMITS, baseline=baseline)  # the same inputs again
    assert (kept.judged, kept.taken) == (4, 1)

    monkeypatch.setattr(verdicts_module, "judge_version", lambda: "another judge")
    changed = Verdicts(folder)
    changed.judge(claims[0], state, LIMITS, baseline=baseline)
    assert (changed.judged, changed.taken) == (1, 0)


def test_read_from_the_store_after_online_the_answers_are_those_judged_afresh(
    tmp_path: Path,
) -> None:
    """`verify` then `verify --offline`, and back: the same snapshots read the other
    way. A verified quote's answer is taken, its reason saying how the source was read
    this time; every other verdict is judged again. The oracle is `judge_observed`
    called on the state as read, without keeping."""
    then, now = _pair()
    claims = _claims(then)
    folder = tmp_path / "snapshots"
    _judge_all(folder, claims, then, now)  # online: the latest version read live

    store = Store(folder)
    online, baseline = _observed(store, then, now)
    offline = with_page(store, observed(online.snapshot, live=False))
    oracle = {
        live: [judge_observed(c, state, LIMITS, baseline=baseline) for c in claims]
        for live, state in ((True, online), (False, offline))
    }
    held = sum(r.verdict is Verdict.VERIFIED for r in oracle[False])
    assert 0 < held < len(claims)
    assert any(
        r.reason.startswith("the quote is in the source in the snapshot of ") for r in oracle[False]
    )

    for live, state in ((False, offline), (True, online), (True, online)):
        kept = Verdicts(folder)
        got = [kept.judge(c, state, LIMITS, baseline=baseline) for c in claims]
        kept.save()
        for mine, expected in zip(got, oracle[live], strict=True):
            assert mine.model_dump(mode="json") == expected.model_dump(mode="json")
        switched = (kept.judged, kept.taken)
        # Read the other way: the verified ones taken, the others judged again. Read
        # the same way as the last run: all taken.
        if live is False:
            assert switched == (len(claims) - held, held)
    assert switched == (0, len(claims))


def test_a_body_new_in_this_run_is_always_judged(tmp_path: Path) -> None:
    """An entry planted for a body's digest can't stand in for a body fetched just now."""
    then, now = _pair()
    claims = _claims(then)[:5]
    folder = tmp_path / "snapshots"
    _judge_all(folder, claims, then, now)
    kept_file = folder / ".cache" / VERDICTS_FILE
    document = json.loads(kept_file.read_text())
    for entry in document["verdicts"].values():
        entry.update(verdict="verified", reason="planted", found=None, score=None, diff=None)
    kept_file.write_text(json.dumps(document))

    store = Store(folder)
    state, baseline = _observed(store, then, now)
    fresh = with_page(store, observed(state.snapshot, live=True, fresh=True))
    kept = Verdicts(folder)
    results = [kept.judge(c, fresh, LIMITS, baseline=baseline) for c in claims]
    assert (kept.judged, kept.taken) == (5, 0)
    assert all(r.reason != "planted" for r in results)


@pytest.mark.parametrize(
    "damage",
    [b"", b"{", b"[]", b'{"version": 1}', b'{"version": "x", "verdicts": []}'],
    ids=["empty", "torn", "list", "no-verdicts", "other-version"],
)
def test_a_damaged_file_is_ignored_and_written_again(tmp_path: Path, damage: bytes) -> None:
    then, now = _pair()
    claims = _claims(then)[:5]
    folder = tmp_path / "snapshots"
    _judge_all(folder, claims, then, now)
    kept_file = folder / ".cache" / VERDICTS_FILE
    kept_file.write_bytes(damage)
    _, kept = _judge_all(folder, claims, then, now)
    assert (kept.judged, kept.taken) == (5, 0)
    assert len(json.loads(kept_file.read_text())["verdicts"]) == 5


def test_a_damaged_entry_is_judged_again(tmp_path: Path) -> None:
    then, now = _pair()
    claims = _claims(then)[:5]
    folder = tmp_path / "snapshots"
    _judge_all(folder, claims, then, now)
    kept_file = folder / ".cache" / VERDICTS_FILE
    document = json.loads(kept_file.read_text())
    first = next(iter(document["verdicts"]))
    document["verdicts"][first] = {"verdict": "no such verdict"}
    kept_file.write_text(json.dumps(document))
    _, kept = _judge_all(folder, claims, then, now)
    assert (kept.judged, kept.taken) == (1, 4)


def test_answers_no_run_asks_for_are_dropped(tmp_path: Path) -> None:
    then, now = _pair()
    claims = _claims(then)
    folder = tmp_path / "snapshots"
    _judge_all(folder, claims, then, now)
    _judge_all(folder, claims[:5], then, now)  # kept: these 5 and at most 5 more
    kept = json.loads((folder / ".cache" / VERDICTS_FILE).read_text())["verdicts"]
    assert len(kept) == 10
