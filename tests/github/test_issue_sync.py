"""The issue lifecycle as a pure plan: one table row per rule."""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from dataclasses import dataclass, field

import pytest

from claimcheck.github.body import issue_body
from claimcheck.github.sync import (
    NOT_JUDGED,
    Issue,
    Kind,
    SyncSettings,
    issues_to_inspect,
    plan_sync,
    trusted_issues,
)
from claimcheck.models import ClaimResult, Verdict
from claimcheck.sources.state import SourceState
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
    labels: tuple[str, ...] = ("claimcheck",),
    closed_by: str | None = None,
    body: str | None = None,
    pull_request: bool = False,
) -> Issue:
    """An existing issue whose body we wrote for `finding` (drifted `quant` by default)."""
    closed = state == "closed"
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
    claimed: frozenset[str] = frozenset()
    """The ids in the claim files beside the results' (default: the results judged all)."""


C, U, M, CL, R, N = Kind.CREATE, Kind.UPDATE, Kind.COMMENT, Kind.CLOSE, Kind.REOPEN, Kind.NOTHING
DRIFTED = result()
FRESH = result(verdict=Verdict.VERIFIED)
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
    "moved-counts-as-fresh": Case(
        [result(verdict=Verdict.MOVED)], [issue(1)], [(M, 1, None), (CL, 1, "completed")]
    ),
    "context-changed-counts-as-fresh": Case(
        [result(verdict=Verdict.CONTEXT_CHANGED)],
        [issue(1)],
        [(M, 1, None), (CL, 1, "completed")],
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
        [issue(1, author="ClaimCheck-Bot", labels=("ClaimCheck",))],
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
