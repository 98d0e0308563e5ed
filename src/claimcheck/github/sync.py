"""Plan how the repository's issues follow the report: one issue per stale claim, for life.

`plan_sync` is pure: the report's results, the sources' failure counts, the issues
that exist, the token's login and the ids of the claims in the claim files go in; a
list of actions, one GitHub write each (or a deliberate nothing), each with its
reason, comes out. The rules are the Lifecycle section of the README: create, leave
alone, update, comment, reopen, close.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from claimcheck.github.body import (
    comment_duplicate,
    comment_recovered,
    comment_removed,
    comment_reopened,
    comment_verdict_changed,
    finding_hash,
    issue_body,
    issue_title,
    parse_marker,
)
from claimcheck.models import ClaimResult, Verdict

FRESH_VERDICTS = frozenset(
    {Verdict.VERIFIED, Verdict.MOVED, Verdict.CONTEXT_CHANGED, Verdict.EXPIRED}
)
"""The quote holds: an open issue for the claim is closed as completed."""


NOT_JUDGED = "in the claim files but not in the report: its issues are left as they are"
"""Why the open issue of a claim the report does not judge is not closed as removed."""


class SourceCounts(Protocol):
    """What the state remembers of a source (`state.SourceState` has this shape)."""

    @property
    def failures(self) -> int:
        """Consecutive runs the source could not be fetched."""

    @property
    def gone(self) -> int:
        """Consecutive runs the source answered 404 or 410."""


@dataclass(frozen=True)
class Issue:
    """What the plan needs to know of one existing issue.

    `closed_by` is None when unknown: GitHub's list answers leave it out, so it is
    read from the single issue when a decision depends on it (`issues_to_inspect`).
    """

    number: int
    id: int
    title: str
    body: str
    state: str
    state_reason: str | None
    labels: tuple[str, ...]
    author: str | None
    created_at: dt.datetime
    closed_at: dt.datetime | None = None
    closed_by: str | None = None
    is_pull_request: bool = False


class Kind(StrEnum):
    """One GitHub write, or a decision to write nothing."""

    CREATE = "create"
    UPDATE = "update"
    COMMENT = "comment"
    CLOSE = "close"
    REOPEN = "reopen"
    NOTHING = "nothing"


@dataclass(frozen=True)
class Action:
    """One step of the plan. `state_reason` is set on closes; `duplicate_of` is an issue id."""

    kind: Kind
    claim_id: str
    reason: str
    number: int | None = None
    title: str | None = None
    body: str | None = None
    state_reason: str | None = None
    duplicate_of: int | None = None


@dataclass(frozen=True)
class SyncSettings:
    """The knobs of the lifecycle; `login` None trusts markers without checking the author."""

    login: str | None
    label: str = "claimcheck"
    unreachable_after: int = 3
    gone_after: int = 2
    max_new: int | None = None


def trusted_issues(issues: Iterable[Issue], settings: SyncSettings) -> dict[str, list[Issue]]:
    """Our issues by claim id: labelled, written by our account, with our marker."""
    label = settings.label.casefold()
    login = settings.login.casefold() if settings.login else None
    mine: dict[str, list[Issue]] = {}
    for issue in issues:
        if issue.is_pull_request or label not in (name.casefold() for name in issue.labels):
            continue
        if login is not None and (issue.author or "").casefold() != login:
            continue
        marker = parse_marker(issue.body)
        if marker is not None:
            mine.setdefault(marker.claim_id, []).append(issue)
    for group in mine.values():
        group.sort(key=lambda i: (i.created_at, i.number))
    return mine


def issues_to_inspect(
    results: Sequence[ClaimResult],
    sources: Mapping[str, SourceCounts],
    issues: Sequence[Issue],
    settings: SyncSettings,
) -> list[int]:
    """Closed issues whose closer decides between reopening and leaving them closed."""
    mine = trusted_issues(issues, settings)
    numbers = []
    for result in results:
        group = mine.get(result.claim.id, [])
        if _due(result, sources, settings) is None or any(i.state == "open" for i in group):
            continue
        latest = _latest_closed(group)
        if latest is not None and latest.closed_by is None:
            numbers.append(latest.number)
    return numbers


def plan_sync(
    results: Sequence[ClaimResult],
    sources: Mapping[str, SourceCounts],
    issues: Sequence[Issue],
    settings: SyncSettings,
    *,
    claimed: Collection[str] = frozenset(),
) -> list[Action]:
    """Every action that brings the issues in line with the results, in claim-file order.

    An open issue of a claim the results leave out is closed as removed only when the
    claim is not in `claimed`, the ids in the claim files: a claim still there is
    missing from the report, not from the claim files (a shard's report, a run over
    some of the files), and its issue is left as it is (`NOT_JUDGED`). The default
    suits results that judged every claim of the claim files, as a run over all of
    them does: what they leave out is gone.
    """
    mine = trusted_issues(issues, settings)
    plan: list[Action] = []
    created = 0
    for result in results:
        claim_id = result.claim.id
        group = mine.pop(claim_id, [])
        open_issues = [i for i in group if i.state == "open"]
        keep = open_issues[0] if open_issues else None
        plan += _close_duplicates(claim_id, keep, open_issues[1:])
        due = _due(result, sources, settings)
        if keep is not None:
            plan += _follow_open(result, keep, due, sources)
        elif due is None:
            if (why := _waiting(result, sources)) is not None:
                plan.append(_nothing(claim_id, f"{why}; no issue yet"))
        elif (latest := _latest_closed(group)) is not None:
            plan += _follow_closed(result, latest, due, sources, settings)
        elif settings.max_new is not None and created >= settings.max_new:
            plan.append(_nothing(claim_id, f"{due}; not created: --max-new {settings.max_new}"))
        else:
            created += 1
            plan.append(
                Action(
                    Kind.CREATE,
                    claim_id,
                    due,
                    title=issue_title(result),
                    body=issue_body(result, failures=_failures(result, sources)),
                )
            )
    for claim_id, group in sorted(mine.items()):  # claims the results leave out
        open_issues = [i for i in group if i.state == "open"]
        if open_issues and claim_id in claimed:
            plan.append(_nothing(claim_id, NOT_JUDGED, open_issues[0].number))
        elif open_issues:
            plan += _close_duplicates(claim_id, open_issues[0], open_issues[1:])
            plan += _close(
                open_issues[0],
                claim_id,
                "the claim is no longer in the claim files",
                comment_removed(claim_id),
                "not_planned",
            )
    return plan


def _due(
    result: ClaimResult, sources: Mapping[str, SourceCounts], settings: SyncSettings
) -> str | None:
    """Why this claim should have an open issue now, or None when it should not."""
    verdict, counts = result.verdict, _counts(result, sources)
    if verdict in (Verdict.DRIFTED, Verdict.MISSING):
        return f"{verdict.value}: {result.reason}"
    if verdict is Verdict.SOURCE_GONE and counts[1] >= settings.gone_after:
        return f"source-gone on {counts[1]} consecutive runs: {result.reason}"
    if verdict is Verdict.UNREACHABLE and counts[0] >= settings.unreachable_after:
        return f"unreachable on {counts[0]} consecutive runs: {result.reason}"
    return None


def _waiting(result: ClaimResult, sources: Mapping[str, SourceCounts]) -> str | None:
    """Why a not-yet-due failing claim is left alone, or None for a fresh or unknown one."""
    failures, gone = _counts(result, sources)
    if result.verdict is Verdict.UNREACHABLE:
        return f"unreachable on {failures} consecutive run(s), below the threshold"
    if result.verdict is Verdict.SOURCE_GONE:
        return f"source-gone on {gone} consecutive run(s), below the threshold"
    return None


def _follow_open(
    result: ClaimResult, issue: Issue, due: str | None, sources: Mapping[str, SourceCounts]
) -> list[Action]:
    claim_id = result.claim.id
    if due is None:
        if result.verdict in FRESH_VERDICTS:
            return _close(issue, claim_id, result.reason, comment_recovered(result), "completed")
        why = _waiting(result, sources) or f"{result.verdict.value}: nothing known now"
        return [_nothing(claim_id, f"{why}; #{issue.number} left as it is", issue.number)]
    marker = parse_marker(issue.body)
    assert marker is not None  # trusted issues carry one
    if marker.hash == finding_hash(result):
        return [_nothing(claim_id, f"same finding as #{issue.number}", issue.number)]
    plan = [_rewrite(Kind.UPDATE, result, issue, f"the finding changed: {due}", sources)]
    if marker.verdict is not None and marker.verdict is not result.verdict:
        plan.append(
            Action(
                Kind.COMMENT,
                claim_id,
                f"the verdict changed from {marker.verdict.value} to {result.verdict.value}",
                number=issue.number,
                body=comment_verdict_changed(result, marker.verdict),
            )
        )
    return plan


def _follow_closed(
    result: ClaimResult,
    issue: Issue,
    due: str,
    sources: Mapping[str, SourceCounts],
    settings: SyncSettings,
) -> list[Action]:
    claim_id = result.claim.id
    by_us = (
        settings.login is not None
        and issue.closed_by is not None
        and issue.closed_by.casefold() == settings.login.casefold()
    )
    if not by_us and issue.state_reason in ("not_planned", "duplicate"):
        who = f"@{issue.closed_by}" if issue.closed_by else "a person"
        reason = f"{due}; #{issue.number} was closed as {issue.state_reason} by {who}: left closed"
        return [_nothing(claim_id, reason, issue.number)]
    return [
        _rewrite(Kind.REOPEN, result, issue, f"stale again: {due}", sources),
        Action(
            Kind.COMMENT,
            claim_id,
            "why it was reopened",
            number=issue.number,
            body=comment_reopened(result),
        ),
    ]


def _close_duplicates(claim_id: str, keep: Issue | None, extra: Sequence[Issue]) -> list[Action]:
    plan: list[Action] = []
    for issue in extra:
        assert keep is not None
        plan += _close(
            issue,
            claim_id,
            f"a duplicate of #{keep.number}, the oldest open issue of the claim",
            comment_duplicate(keep.number),
            "duplicate",
            duplicate_of=keep.id,
        )
    return plan


def _close(
    issue: Issue,
    claim_id: str,
    reason: str,
    comment: str,
    state_reason: str,
    duplicate_of: int | None = None,
) -> list[Action]:
    """A comment saying why, then the close: a reader sees the reason before the state."""
    return [
        Action(Kind.COMMENT, claim_id, f"why it is closed: {reason}", issue.number, body=comment),
        Action(
            Kind.CLOSE,
            claim_id,
            reason,
            issue.number,
            state_reason=state_reason,
            duplicate_of=duplicate_of,
        ),
    ]


def _rewrite(
    kind: Kind,
    result: ClaimResult,
    issue: Issue,
    reason: str,
    sources: Mapping[str, SourceCounts],
) -> Action:
    return Action(
        kind,
        result.claim.id,
        reason,
        number=issue.number,
        title=issue_title(result),
        body=issue_body(result, failures=_failures(result, sources)),
    )


def _latest_closed(group: Sequence[Issue]) -> Issue | None:
    closed = [i for i in group if i.state == "closed"]
    never = dt.datetime.min.replace(tzinfo=dt.UTC)
    return max(closed, key=lambda i: (i.closed_at or never, i.number), default=None)


def _nothing(claim_id: str, reason: str, number: int | None = None) -> Action:
    return Action(Kind.NOTHING, claim_id, reason, number)


def _counts(result: ClaimResult, sources: Mapping[str, SourceCounts]) -> tuple[int, int]:
    counts = sources.get(result.claim.source) if result.claim.source else None
    return (counts.failures, counts.gone) if counts is not None else (0, 0)


def _failures(result: ClaimResult, sources: Mapping[str, SourceCounts]) -> int:
    failures, gone = _counts(result, sources)
    return gone if result.verdict is Verdict.SOURCE_GONE else failures
