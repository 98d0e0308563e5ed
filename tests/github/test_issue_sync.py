"""The issue lifecycle as a pure plan: one table row per rule."""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Sequence
from dataclasses import dataclass, field, replace

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from claimcheck.github.body import issue_body, parse_marker
from claimcheck.github.sync import (
    NOT_JUDGED,
    Action,
    Issue,
    Kind,
    Need,
    SyncSettings,
    count_needs,
    issues_to_inspect,
    needs_person,
    plan_sync,
    trusted_issues,
)
from claimcheck.models import ClaimResult, Verdict
from claimcheck.store.state import SourceState
from support import docs
from support.claim_results import SOURCE, result

BOT = "claimcheck-bot"
T0 = dt.datetime(2026, 11, 1, tzinfo=dt.UTC)


def issue(
    number: int,
    finding: ClaimResult | None = None,
    *,
    state: str = "open",
    state_reason: str | None = None,
    author: str = BOT,
    labels: tuple[str, ...] | None = None,
    closed_by: str | None = None,
    body: str | None = None,
    pull_request: bool = False,
) -> Issue:
    """An existing issue whose body we wrote for `finding` (drifted `quant` by default),
    labelled `claimcheck` and its kind (`stale` or `review`) unless `labels` says."""
    closed = state == "closed"
    if labels is None:
        verdict = (finding or result()).verdict
        labels = ("claimcheck", "stale" if verdict.is_stale else "review")
    return Issue(
        number=number,
        id=1000 + number,
        title=f"issue {number}",
        body=body if body is not None else issue_body(finding or result()),
        state=state,
        state_reason=state_reason if closed else None,
        labels=labels,
        author=author,
        created_at=T0 + dt.timedelta(days=number),
        closed_at=T0 + dt.timedelta(days=number, hours=1) if closed else None,
        closed_by=closed_by,
        is_pull_request=pull_request,
    )


@dataclass(frozen=True)
class Case:
    """Results and issues in; the expected (kind, issue number, state reason) out."""

    results: Sequence[ClaimResult]
    issues: Sequence[Issue]
    expected: list[tuple[Kind, int | None, str | None]]
    sources: dict[str, SourceState] = field(default_factory=dict)
    settings: SyncSettings = field(default_factory=lambda: SyncSettings(login=BOT))
    claimed: frozenset[str] | None = None
    """The ids in the claim files (default None: the results judged all of them)."""


C, U, M, CL, R, N = Kind.CREATE, Kind.UPDATE, Kind.COMMENT, Kind.CLOSE, Kind.REOPEN, Kind.NOTHING
DRIFTED = result()
FRESH = result(verdict=Verdict.VERIFIED)
CHANGED = result(verdict=Verdict.CONTEXT_CHANGED, block_diff="{+Deprecated:+} the paragraph")
NO_REVIEW = SyncSettings(login=BOT, review=False)
CLOSED_BY_US = {"state": "closed", "state_reason": "completed", "closed_by": BOT}

CASES = {
    "stale-no-issue-creates": Case([DRIFTED], [], [(C, None, None)]),
    "missing-no-issue-creates": Case([result(verdict=Verdict.MISSING)], [], [(C, None, None)]),
    "stale-same-finding-does-nothing": Case([DRIFTED], [issue(1)], [(N, 1, None)]),
    "changed-finding-updates": Case([result(found="another text now")], [issue(1)], [(U, 1, None)]),
    "changed-verdict-updates-and-comments": Case(
        [result(verdict=Verdict.MISSING)], [issue(1)], [(U, 1, None), (M, 1, None)]
    ),
    "closed-by-claimcheck-reopens": Case(
        [DRIFTED], [issue(1, **CLOSED_BY_US)], [(R, 1, None), (M, 1, None)]
    ),
    "closed-not-planned-by-claimcheck-reopens": Case(
        [DRIFTED],
        [issue(1, state="closed", state_reason="not_planned", closed_by=BOT)],
        [(R, 1, None), (M, 1, None)],
    ),
    "closed-completed-by-a-person-reopens": Case(
        [DRIFTED],
        [issue(1, state="closed", state_reason="completed", closed_by="alice")],
        [(R, 1, None), (M, 1, None)],
    ),
    "closed-not-planned-by-a-person-stays-closed": Case(
        [DRIFTED],
        [issue(1, state="closed", state_reason="not_planned", closed_by="alice")],
        [(N, 1, None)],
    ),
    "closed-duplicate-by-a-person-stays-closed": Case(
        [DRIFTED],
        [issue(1, state="closed", state_reason="duplicate", closed_by="alice")],
        [(N, 1, None)],
    ),
    "closed-not-planned-by-unknown-stays-closed": Case(
        [DRIFTED], [issue(1, state="closed", state_reason="not_planned")], [(N, 1, None)]
    ),
    "latest-closed-issue-decides": Case(
        [DRIFTED],
        [
            issue(1, state="closed", state_reason="not_planned", closed_by="alice"),
            issue(2, **CLOSED_BY_US),
        ],
        [(R, 2, None), (M, 2, None)],
    ),
    "fresh-open-comments-and-closes-completed": Case(
        [FRESH], [issue(1)], [(M, 1, None), (CL, 1, "completed")]
    ),
    "stale-turned-moved-becomes-a-review-issue": Case(
        [result(verdict=Verdict.MOVED)], [issue(1)], [(U, 1, None), (M, 1, None)]
    ),
    "stale-turned-context-changed-becomes-a-review-issue": Case(
        [result(verdict=Verdict.CONTEXT_CHANGED)], [issue(1)], [(U, 1, None), (M, 1, None)]
    ),
    "moved-closes-a-stale-issue-when-review-is-off": Case(
        [result(verdict=Verdict.MOVED)],
        [issue(1)],
        [(M, 1, None), (CL, 1, "completed")],
        settings=NO_REVIEW,
    ),
    "expired-closes-a-stale-issue-unless-asked": Case(
        [result(verdict=Verdict.EXPIRED)], [issue(1)], [(M, 1, None), (CL, 1, "completed")]
    ),
    "contradicted-no-issue-creates": Case(
        [result(verdict=Verdict.CONTRADICTED)], [], [(C, None, None)]
    ),
    "context-changed-no-issue-creates": Case([CHANGED], [], [(C, None, None)]),
    "moved-no-issue-creates": Case([result(verdict=Verdict.MOVED)], [], [(C, None, None)]),
    "review-off-files-no-review-issue-but-says-so": Case(
        [CHANGED, result("b", Verdict.MOVED)],
        [],
        [(N, None, None), (N, None, None)],
        settings=NO_REVIEW,
    ),
    "expired-is-mentioned-not-filed-by-default": Case(
        [result(verdict=Verdict.EXPIRED)], [], [(N, None, None)]
    ),
    "expired-is-filed-when-asked": Case(
        [result(verdict=Verdict.EXPIRED)],
        [],
        [(C, None, None)],
        settings=SyncSettings(login=BOT, expired=True),
    ),
    "review-issue-same-finding-does-nothing": Case([CHANGED], [issue(1, CHANGED)], [(N, 1, None)]),
    "review-issue-closes-when-verified": Case(
        [FRESH], [issue(1, CHANGED)], [(M, 1, None), (CL, 1, "completed")]
    ),
    "review-issue-closes-when-review-is-turned-off": Case(
        [CHANGED], [issue(1, CHANGED)], [(M, 1, None), (CL, 1, "completed")], settings=NO_REVIEW
    ),
    "review-issue-turned-stale-updates-and-comments": Case(
        [DRIFTED], [issue(1, CHANGED)], [(U, 1, None), (M, 1, None)]
    ),
    "review-issue-closed-by-hand-reopens-while-still-to-review": Case(
        [CHANGED],
        [issue(1, CHANGED, state="closed", state_reason="completed", closed_by="alice")],
        [(R, 1, None), (M, 1, None)],
    ),
    "review-issue-closed-not-planned-by-a-person-stays-closed": Case(
        [CHANGED],
        [issue(1, CHANGED, state="closed", state_reason="not_planned", closed_by="alice")],
        [(N, 1, None)],
    ),
    "an-issue-without-its-kind-label-gets-it": Case(
        [DRIFTED], [issue(1, labels=("claimcheck",))], [(U, 1, None)]
    ),
    "fresh-no-issue-does-nothing": Case([FRESH], [], []),
    "fresh-closed-does-nothing": Case([FRESH], [issue(1, **CLOSED_BY_US)], []),
    "unverified-leaves-an-open-issue": Case(
        [result(verdict=Verdict.UNVERIFIED)], [issue(1)], [(N, 1, None)]
    ),
    "removed-claim-closes-not-planned": Case(
        [result("other", Verdict.VERIFIED)], [issue(1)], [(M, 1, None), (CL, 1, "not_planned")]
    ),
    "removed-claim-closed-stays": Case(
        [result("other", Verdict.VERIFIED)], [issue(1, **CLOSED_BY_US)], []
    ),
    "removed-from-the-claim-files-closes-not-planned": Case(
        [result("other", Verdict.VERIFIED)],
        [issue(1)],
        [(M, 1, None), (CL, 1, "not_planned")],
        claimed=frozenset({"other", "elsewhere"}),
    ),
    "left-out-of-the-report-but-claimed-is-left-open": Case(
        [result("other", Verdict.VERIFIED)],
        [issue(1)],
        [(N, 1, None)],
        claimed=frozenset({"other", "quant"}),
    ),
    "left-out-but-claimed-leaves-its-duplicates-too": Case(
        [result("other", Verdict.VERIFIED)],
        [issue(2), issue(1)],
        [(N, 1, None)],
        claimed=frozenset({"other", "quant"}),
    ),
    "duplicates-collapse-to-the-oldest": Case(
        [DRIFTED],
        [issue(3), issue(1), issue(2)],
        [(M, 2, None), (CL, 2, "duplicate"), (M, 3, None), (CL, 3, "duplicate"), (N, 1, None)],
    ),
    "duplicates-of-a-fresh-claim": Case(
        [FRESH],
        [issue(1), issue(2)],
        [(M, 2, None), (CL, 2, "duplicate"), (M, 1, None), (CL, 1, "completed")],
    ),
    "unreachable-below-threshold-waits": Case(
        [result(verdict=Verdict.UNREACHABLE)],
        [],
        [(N, None, None)],
        {SOURCE: SourceState(failures=2)},
    ),
    "unreachable-at-threshold-creates": Case(
        [result(verdict=Verdict.UNREACHABLE)],
        [],
        [(C, None, None)],
        {SOURCE: SourceState(failures=3)},
    ),
    "unreachable-threshold-is-a-setting": Case(
        [result(verdict=Verdict.UNREACHABLE)],
        [],
        [(C, None, None)],
        {SOURCE: SourceState(failures=1)},
        SyncSettings(login=BOT, unreachable_after=1),
    ),
    "unreachable-keeps-an-open-issue": Case(
        [result(verdict=Verdict.UNREACHABLE)],
        [issue(1)],
        [(N, 1, None)],
        {SOURCE: SourceState(failures=1)},
    ),
    "source-gone-once-waits": Case(
        [result(verdict=Verdict.SOURCE_GONE)], [], [(N, None, None)], {SOURCE: SourceState(gone=1)}
    ),
    "source-gone-twice-creates": Case(
        [result(verdict=Verdict.SOURCE_GONE)], [], [(C, None, None)], {SOURCE: SourceState(gone=2)}
    ),
    "max-new-caps-creations": Case(
        [result("a"), result("b"), result("c")],
        [],
        [(C, None, None), (C, None, None), (N, None, None)],
        settings=SyncSettings(login=BOT, max_new=2),
    ),
    "max-new-does-not-cap-reopens": Case(
        [DRIFTED, result("b")],
        [issue(1, **CLOSED_BY_US)],
        [(R, 1, None), (M, 1, None), (N, None, None)],
        settings=SyncSettings(login=BOT, max_new=0),
    ),
    "another-authors-marker-is-not-trusted": Case(
        [DRIFTED], [issue(1, author="mallory")], [(C, None, None)]
    ),
    "an-unlabelled-issue-is-not-trusted": Case([DRIFTED], [issue(1, labels=())], [(C, None, None)]),
    "a-pull-request-is-not-an-issue": Case(
        [DRIFTED], [issue(1, pull_request=True)], [(C, None, None)]
    ),
    "an-issue-without-marker-is-not-ours": Case(
        [DRIFTED], [issue(1, body="a person's report")], [(C, None, None)]
    ),
    "label-and-login-compare-without-case": Case(
        [DRIFTED],
        [issue(1, author="ClaimCheck-Bot", labels=("ClaimCheck", "Stale"))],
        [(N, 1, None)],
    ),
    "no-login-trusts-label-and-marker": Case(
        [DRIFTED], [issue(1, author="anyone")], [(N, 1, None)], settings=SyncSettings(login=None)
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_plan(case: Case) -> None:
    plan = plan_sync(case.results, case.sources, case.issues, case.settings, claimed=case.claimed)
    assert [(a.kind, a.number, a.state_reason) for a in plan] == case.expected
    assert all(a.reason for a in plan)


def test_a_claimed_claim_left_out_of_the_report_says_why_its_issue_stays_open() -> None:
    """A partial report (a shard's, a run over some files) is not a removal."""
    settings = SyncSettings(login=BOT)
    (kept,) = plan_sync([], {}, [issue(1)], settings, claimed={"quant"})
    assert (kept.kind, kept.claim_id, kept.reason) == (Kind.NOTHING, "quant", NOT_JUDGED)
    closing = plan_sync([], {}, [issue(1)], settings, claimed={"another"})
    assert [a.kind for a in closing] == [Kind.COMMENT, Kind.CLOSE]
    assert closing[1].reason == "the claim is no longer in the claim files"


def test_create_carries_title_and_body() -> None:
    (action,) = plan_sync([DRIFTED], {}, [], SyncSettings(login=BOT))
    assert action.title is not None
    assert "quant" in action.title
    assert action.body == issue_body(DRIFTED)


def test_duplicates_point_at_the_kept_issue_id() -> None:
    plan = plan_sync([DRIFTED], {}, [issue(1), issue(2)], SyncSettings(login=BOT))
    close = next(a for a in plan if a.kind is Kind.CLOSE)
    assert close.duplicate_of == 1001
    comment = next(a for a in plan if a.kind is Kind.COMMENT)
    assert comment.body is not None
    assert "#1" in comment.body


def test_reopen_rewrites_title_and_body() -> None:
    changed = result(verdict=Verdict.MISSING)
    plan = plan_sync([changed], {}, [issue(1, **CLOSED_BY_US)], SyncSettings(login=BOT))
    assert plan[0].kind is Kind.REOPEN
    assert plan[0].body == issue_body(changed)


def test_not_planned_reason_names_who_closed() -> None:
    closed = issue(1, state="closed", state_reason="not_planned", closed_by="alice")
    (action,) = plan_sync([DRIFTED], {}, [closed], SyncSettings(login=BOT))
    assert "@alice" in action.reason


def test_closed_issues_are_inspected_only_when_their_closer_matters() -> None:
    issues = [
        issue(1, state="closed", state_reason="completed"),
        issue(2, result("fine"), state="closed", state_reason="completed"),
        issue(3, result("known"), **CLOSED_BY_US),
    ]
    results = [DRIFTED, result("fine", Verdict.VERIFIED), result("known")]
    assert issues_to_inspect(results, {}, issues, SyncSettings(login=BOT)) == [1]


def test_trusted_issues_are_grouped_oldest_first() -> None:
    mine = trusted_issues([issue(2), issue(1), issue(3, result("b"))], SyncSettings(login=BOT))
    assert [i.number for i in mine["quant"]] == [1, 2]
    assert [i.number for i in mine["b"]] == [3]


# -- which verdicts need a person, and the labels that say which kind -----------------

NEEDS = {
    # verdict: (default settings, review off, expired asked for)
    Verdict.DRIFTED: (Need.STALE, Need.STALE, Need.STALE),
    Verdict.CHANGED: (Need.STALE, Need.STALE, Need.STALE),
    Verdict.MISSING: (Need.STALE, Need.STALE, Need.STALE),
    Verdict.CONTRADICTED: (Need.STALE, Need.STALE, Need.STALE),
    Verdict.SOURCE_GONE: (Need.STALE, Need.STALE, Need.STALE),
    Verdict.CONTEXT_CHANGED: (Need.REVIEW, None, Need.REVIEW),
    Verdict.MOVED: (Need.REVIEW, None, Need.REVIEW),
    Verdict.EXPIRED: (None, None, Need.REVIEW),
    Verdict.UNREACHABLE: (Need.REVIEW, Need.REVIEW, Need.REVIEW),
    Verdict.UNVERIFIED: (None, None, None),
    Verdict.VERIFIED: (None, None, None),
}


def test_every_verdict_is_decided() -> None:
    assert set(NEEDS) == set(Verdict)


@pytest.mark.parametrize("verdict", list(NEEDS), ids=lambda v: v.value)
def test_needs_person(verdict: Verdict) -> None:
    settings = (
        SyncSettings(login=BOT),
        SyncSettings(login=BOT, review=False),
        SyncSettings(login=BOT, expired=True),
    )
    assert tuple(needs_person(verdict, s) for s in settings) == NEEDS[verdict]


def test_every_stale_verdict_is_a_stale_issue() -> None:
    """The models' `is_stale` and the issues agree: no stale verdict is left out again."""
    for verdict in Verdict:
        if verdict.is_stale:
            assert needs_person(verdict, SyncSettings(login=None)) is Need.STALE


def test_creates_carry_our_label_and_the_kind_label() -> None:
    settings = SyncSettings(login=BOT, label="claims", stale_label="fix", review_label="look")
    plan = plan_sync([DRIFTED, result("b", Verdict.MOVED)], {}, [], settings)
    assert [a.labels for a in plan] == [("claims", "fix"), ("claims", "look")]


def test_a_changed_kind_swaps_its_label_and_keeps_the_others() -> None:
    filed = issue(1, labels=("claimcheck", "stale", "priority"))
    update, comment = plan_sync([CHANGED], {}, [filed], SyncSettings(login=BOT))
    assert update.labels == ("claimcheck", "priority", "review")
    assert comment.body is not None
    assert "from **drifted** to **context-changed**" in comment.body


def test_a_review_issue_closes_saying_the_claim_was_accepted() -> None:
    comment, close = plan_sync([FRESH], {}, [issue(1, CHANGED)], SyncSettings(login=BOT))
    assert close.state_reason == "completed"
    assert comment.body is not None
    assert "accepted" in comment.body
    assert "claimcheck accept" in comment.body


def test_a_stale_issue_closes_saying_the_claim_has_support_again() -> None:
    comment, _ = plan_sync([FRESH], {}, [issue(1)], SyncSettings(login=BOT))
    assert comment.body is not None
    assert "support again" in comment.body


def test_a_verdict_not_filed_says_which_setting_keeps_it_out() -> None:
    (changed,) = plan_sync([CHANGED], {}, [], NO_REVIEW)
    assert "[issues] review = false" in changed.reason
    (expired,) = plan_sync([result(verdict=Verdict.EXPIRED)], {}, [], SyncSettings(login=BOT))
    assert "expired: files no issue here (`[issues] expired = false`)" in expired.reason
    comment, _ = plan_sync([CHANGED], {}, [issue(1)], NO_REVIEW)
    assert comment.body is not None
    assert "[issues] review = false" in comment.body


# -- the plan, carried out on plain values, night after night -------------------------

VERDICTS = st.sampled_from(list(Verdict))
NIGHT = st.lists(st.tuples(VERDICTS, st.integers(0, 4)), min_size=1, max_size=6)


def carry_out(issues: list[Issue], plan: Sequence[Action], now: dt.datetime) -> list[Issue]:
    """What GitHub holds after the plan: the fake's rules, on plain values."""
    by_number = {i.number: i for i in issues}
    for action in plan:
        if action.kind is Kind.CREATE:
            number = max(by_number, default=0) + 1
            assert action.title is not None
            assert action.body is not None
            assert action.labels is not None
            by_number[number] = Issue(
                number, 1000 + number, action.title, action.body, "open", None,
                action.labels, BOT, now,
            )  # fmt: skip
            continue
        if action.number is None or action.kind in (Kind.NOTHING, Kind.COMMENT):
            continue
        old = by_number[action.number]
        changes: dict[str, object] = {}
        if action.title is not None:
            changes.update(title=action.title, body=action.body)
        if action.labels is not None:
            changes["labels"] = action.labels
        if action.kind is Kind.CLOSE:
            changes.update(
                state="closed", state_reason=action.state_reason, closed_at=now, closed_by=BOT
            )
        if action.kind is Kind.REOPEN:
            changes.update(state="open", state_reason="reopened", closed_at=None, closed_by=None)
        by_number[action.number] = replace(old, **changes)  # type: ignore[arg-type]
    return [by_number[n] for n in sorted(by_number)]


@settings(max_examples=150, deadline=None)
@given(
    nights=st.lists(NIGHT, min_size=1, max_size=3),
    review=st.booleans(),
    expired=st.booleans(),
)
def test_each_night_leaves_one_open_issue_per_claim_needing_one(
    nights: list[list[tuple[Verdict, int]]], review: bool, expired: bool
) -> None:
    """Whatever the verdicts night after night: after each sync, the open issues are
    exactly the claims `needs_person` (with the thresholds) says need one, each once,
    with its kind's label; the summary counts the same; a second sync changes nothing."""
    chosen = SyncSettings(login=BOT, review=review, expired=expired)
    issues: list[Issue] = []
    for index, night in enumerate(nights):
        now = T0 + dt.timedelta(days=index)
        results = [
            result(f"c{n}", verdict, source=f"https://example.org/{n}")
            for n, (verdict, _) in enumerate(night)
        ]
        sources = {
            f"https://example.org/{n}": SourceState(failures=runs, gone=runs)
            for n, (_, runs) in enumerate(night)
        }
        issues = carry_out(issues, plan_sync(results, sources, issues, chosen), now)
        wanted = {}
        for r in results:
            need = needs_person(r.verdict, chosen)
            runs = sources[r.claim.source or ""].failures
            if r.verdict is Verdict.UNREACHABLE and runs < chosen.unreachable_after:
                need = None
            if r.verdict is Verdict.SOURCE_GONE and runs < chosen.gone_after:
                need = None
            if need is not None:
                wanted[r.claim.id] = need
        held = {r.claim.id for r in results if r.verdict.is_unknown}
        held |= {r.claim.id for r in results if r.verdict is Verdict.SOURCE_GONE}
        open_now = {}
        for i in issues:
            marker = parse_marker(i.body)
            assert marker is not None
            if i.state == "open":
                assert marker.claim_id not in open_now, "two open issues for one claim"
                open_now[marker.claim_id] = i
        # every claim that needs one has one, labelled with its kind
        for claim_id, need in wanted.items():
            assert claim_id in open_now
            assert chosen.kind_label(need) in open_now[claim_id].labels
            other = {Need.STALE: chosen.review_label, Need.REVIEW: chosen.stale_label}[need]
            assert other not in open_now[claim_id].labels
        # an open issue of a claim that needs none stays only while nothing is known
        assert set(open_now) - set(wanted) <= held
        counted = count_needs(results, sources, chosen)
        assert sum(counted.values()) == len(wanted)
        assert counted[Need.STALE] == sum(1 for n in wanted.values() if n is Need.STALE)
        again = plan_sync(results, sources, issues, chosen)
        assert {a.kind for a in again} <= {Kind.NOTHING}, again


def test_the_readme_lists_the_verdicts_that_file_issues_as_needs_person_decides() -> None:
    """The README's table of verdicts, issues and labels is the one rule, not a copy."""
    section = docs.section("GitHub issues")
    rows = re.findall(r"^\| (`[a-z-]+`(?:, `[a-z-]+`)*) \| ([^|]+) \|([^|]*)\|$", section, re.M)
    listed: dict[Verdict, tuple[str, Need | None]] = {}
    for verdicts, when, label in rows:
        kind = next((n for n in Need if label.strip().startswith(f"`{n.value}`")), None)
        for name in re.findall(r"`([a-z-]+)`", verdicts):
            assert Verdict(name) not in listed, f"{name} is listed twice"
            listed[Verdict(name)] = (when.strip(), kind)
    assert set(listed) == set(Verdict)
    default, asked = SyncSettings(login=None), SyncSettings(login=None, expired=True)
    for verdict, (when, kind) in listed.items():
        assert needs_person(verdict, asked) is kind, verdict
        off = when == "never" or when.startswith("only with")
        assert (needs_person(verdict, default) is None) is off, verdict
