"""Plan how the repository's issues follow the report: one issue per claim a person must act on.

`needs_person` is the one definition of which verdicts file an issue and of which kind
(`stale`: fix the claim or the page; `review`: look again, then accept); the planner,
the command's summary and the README's list all follow it.

`plan_sync` is pure: the report's results, the sources' failure counts, the issues
that exist, the token's login and the ids of the claims in the claim files go in; a
list of actions, one GitHub write each (or a deliberate nothing), each with its
reason, comes out. The rules are the GitHub issues section of the README: create,
leave alone, update, comment, reopen, close.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Collection, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum
from typing import Protocol

from claimcheck.github.body import (
    comment_acknowledged,
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


class Need(StrEnum):
    """What a person must do about a claim; its issue carries the matching kind label."""

    STALE = "stale"
    """The claim's support changed or vanished: fix the claim or the published page."""
    REVIEW = "review"
    """The quote may still hold, but a person must look again and accept the claim."""


REVIEW_ISSUE_VERDICTS = frozenset({Verdict.CONTEXT_CHANGED, Verdict.MOVED})
"""Review verdicts that file an issue unless `[issues] review = false`; `expired` files
one only with `[issues] expired = true`."""


NOT_JUDGED = "in the claim files but not in the report: its issues are left as they are"
"""Why the open issue of a claim the report does not judge is not closed as removed."""

NOT_CLAIMED = "in the report but in no claim file: nothing is filed, updated or reopened for it"
"""Why a result of a claim the claim files do not hold is skipped: a report is input
from outside, and only the claim files say which claims exist."""


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
    """One step of the plan. `state_reason` is set on closes; `duplicate_of` is an issue id.

    `labels` is the issue's whole label list after the step, set on creates and on
    updates and reopens that change the kind label (None: the labels stay as they are).
    """

    kind: Kind
    claim_id: str
    reason: str
    number: int | None = None
    title: str | None = None
    body: str | None = None
    state_reason: str | None = None
    duplicate_of: int | None = None
    labels: tuple[str, ...] | None = None
    held: bool = False
    """A `nothing` in place of a create the cap on new issues held back to a later run."""


@dataclass(frozen=True)
class SyncSettings:
    """The knobs of the lifecycle; `login` None trusts markers without checking the author.

    `label` marks our issues (with the marker, it is how they are found); `stale_label`
    and `review_label` tell their kinds apart. `review` files issues for review verdicts
    (`context-changed`, `moved`), `expired` for expired check dates too.
    """

    login: str | None
    label: str = "claimcheck"
    stale_label: str = "stale"
    review_label: str = "review"
    review: bool = True
    expired: bool = False
    unreachable_after: int = 3
    gone_after: int = 2
    max_new: int | None = None
    """The most issues one run creates (None: no cap); `sync_settings` gives it the
    config's `[issues] max_new`."""

    def kind_label(self, need: Need) -> str:
        """The label that says which kind of issue it is."""
        return self.stale_label if need is Need.STALE else self.review_label

    def labels(self, need: Need) -> tuple[str, ...]:
        """The labels of a new issue: ours, then its kind."""
        return (self.label, self.kind_label(need))


def needs_person(verdict: Verdict, settings: SyncSettings) -> Need | None:
    """Which kind of issue a verdict files, or None when it files none.

    Every stale verdict (`Verdict.is_stale`: drifted, missing, contradicted,
    source-gone) is `stale`. `context-changed` and `moved` are `review` unless review
    issues are off, `expired` only when asked. `unreachable` is `review` too: nothing
    is known, a person must look at the source. `source-gone` and `unreachable` are
    filed only once they have lasted (`gone_after`, `unreachable_after` runs: `_due`).
    """
    if verdict.is_stale:
        return Need.STALE
    if verdict in REVIEW_ISSUE_VERDICTS:
        return Need.REVIEW if settings.review else None
    if verdict is Verdict.EXPIRED:
        return Need.REVIEW if settings.expired else None
    if verdict is Verdict.UNREACHABLE:
        return Need.REVIEW
    return None


def split_claimed(
    results: Sequence[ClaimResult], claimed: Collection[str] | None
) -> tuple[list[ClaimResult], list[ClaimResult]]:
    """The results of claims in the claim files (`claimed`, their ids), and the others.

    Only the first are acted on: a result for a claim in no claim file (a forged or
    stale report) must not create, update, comment on or reopen an issue. `claimed`
    None means the results come from a run over the claim files themselves, so every
    one of them is there.
    """
    if claimed is None:
        return list(results), []
    known = claimed if isinstance(claimed, frozenset | set) else frozenset(claimed)
    kept = [r for r in results if r.claim.id in known]
    return kept, [r for r in results if r.claim.id not in known]


def count_needs(
    results: Sequence[ClaimResult],
    sources: Mapping[str, SourceCounts],
    settings: SyncSettings,
    *,
    claimed: Collection[str] | None = None,
) -> dict[Need, int]:
    """How many claims of the results (those in the claim files) need an issue of each
    kind now."""
    counts = dict.fromkeys(Need, 0)
    for result in split_claimed(results, claimed)[0]:
        if (due := _due(result, sources, settings)) is not None:
            counts[due[0]] += 1
    return counts


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
    *,
    claimed: Collection[str] | None = None,
) -> list[int]:
    """Closed issues whose closer decides between reopening and leaving them closed
    (of claims in the claim files only: no other claim's issue is reopened)."""
    mine = trusted_issues(issues, settings)
    numbers = []
    for result in split_claimed(results, claimed)[0]:
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
    claimed: Collection[str] | None = None,
) -> list[Action]:
    """Every action that brings the issues in line with the results, in claim-file order.

    A claim that needs a person but files no issue (review issues off, expired not
    asked for, a failing source below its threshold) gets a `nothing` that says why,
    so no such claim passes unmentioned.

    Only results of claims in `claimed`, the ids in the claim files, are acted on; any
    other gets a `nothing` (`NOT_CLAIMED`) and its issues are treated as those of a
    removed claim. An open issue of a claim the results leave out is closed as removed
    only when the claim is not in `claimed`: a claim still there is missing from the
    report, not from the claim files (a shard's report, a run over some of the
    files), and its issue is left as it is (`NOT_JUDGED`). `claimed` None suits
    results that judged every claim of the claim files, as a run over all of them
    does: what they leave out is gone.

    At most `settings.max_new` issues are created; each create past the cap is a
    `nothing` marked `held`, for the next run (which creates the next ones in order).
    """
    mine = trusted_issues(issues, settings)
    kept, foreign = split_claimed(results, claimed)
    claimed = frozenset(r.claim.id for r in results) if claimed is None else claimed
    plan: list[Action] = [_nothing(r.claim.id, NOT_CLAIMED) for r in foreign]
    created = 0
    seen: set[str] = set()
    for result in kept:
        claim_id = result.claim.id
        if claim_id in seen:  # one issue per claim, however often a report names it
            plan.append(_nothing(claim_id, "judged twice in the report: the first one counts"))
            continue
        seen.add(claim_id)
        group = mine.pop(claim_id, [])
        open_issues = [i for i in group if i.state == "open"]
        keep = open_issues[0] if open_issues else None
        plan += _close_duplicates(claim_id, keep, open_issues[1:])
        due = _due(result, sources, settings)
        if keep is not None:
            plan += _follow_open(result, keep, due, sources, settings)
        elif due is None:
            if (why := _not_filed(result, sources, settings)) is not None:
                plan.append(_nothing(claim_id, f"{why}; no issue"))
        elif (latest := _latest_closed(group)) is not None:
            plan += _follow_closed(result, latest, due, sources, settings)
        elif settings.max_new is not None and created >= settings.max_new:
            reason = f"{due[1]}; not created this run: the cap is {settings.max_new} new issues"
            plan.append(Action(Kind.NOTHING, claim_id, reason, held=True))
        else:
            created += 1
            plan.append(
                Action(
                    Kind.CREATE,
                    claim_id,
                    due[1],
                    title=issue_title(result),
                    body=issue_body(result, failures=_failures(result, sources)),
                    labels=settings.labels(due[0]),
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
) -> tuple[Need, str] | None:
    """The kind of issue this claim should have open now and why, or None for none."""
    verdict, (failures, gone) = result.verdict, _counts(result, sources)
    need = needs_person(verdict, settings)
    if need is None or result.quiet:  # a person acknowledged it: no issue while it holds
        return None
    if verdict is Verdict.SOURCE_GONE:
        if gone < settings.gone_after:
            return None
        return need, f"source-gone on {gone} consecutive runs: {result.reason}"
    if verdict is Verdict.UNREACHABLE:
        if failures < settings.unreachable_after:
            return None
        return need, f"unreachable on {failures} consecutive runs: {result.reason}"
    return need, f"{verdict.value}: {result.reason}"


def _not_filed(
    result: ClaimResult, sources: Mapping[str, SourceCounts], settings: SyncSettings
) -> str | None:
    """Why a claim that asks for a person files no issue now, or None when it asks nothing.

    A failing source below its threshold waits; a review verdict whose issues are off
    in `[issues]` is named, so the run still mentions it.
    """
    failures, gone = _counts(result, sources)
    verdict = result.verdict
    if result.quiet:
        return f"{verdict.value}: {_acknowledged(result)}"
    if verdict is Verdict.UNREACHABLE:
        return f"unreachable on {failures} consecutive run(s), below the threshold"
    if verdict is Verdict.SOURCE_GONE:
        return f"source-gone on {gone} consecutive run(s), below the threshold"
    if (off := _off(verdict, settings)) is not None:
        return f"{verdict.value}: files no issue here ({off})"
    return None


def _follow_open(
    result: ClaimResult,
    issue: Issue,
    due: tuple[Need, str] | None,
    sources: Mapping[str, SourceCounts],
    settings: SyncSettings,
) -> list[Action]:
    claim_id = result.claim.id
    marker = parse_marker(issue.body)
    assert marker is not None  # trusted issues carry one
    if due is None:
        if result.verdict.is_unknown or result.verdict is Verdict.SOURCE_GONE:
            why = _not_filed(result, sources, settings) or f"{result.verdict.value}: nothing known"
            return [_nothing(claim_id, f"{why}; #{issue.number} left as it is", issue.number)]
        if result.quiet:
            why = f"{result.verdict.value}: {_acknowledged(result)}"
            return _close(issue, claim_id, why, comment_acknowledged(result), "completed")
        comment = comment_recovered(result, marker.verdict, _off(result.verdict, settings))
        return _close(issue, claim_id, _closing_reason(result, settings), comment, "completed")
    need, why = due
    labels = _relabelled(issue, need, settings)
    if marker.hash == finding_hash(result):
        if labels is None:
            return [_nothing(claim_id, f"same finding as #{issue.number}", issue.number)]
        reason = f"same finding; the label {settings.kind_label(need)!r} says its kind"
        return [Action(Kind.UPDATE, claim_id, reason, number=issue.number, labels=labels)]
    plan = [_rewrite(Kind.UPDATE, result, issue, f"the finding changed: {why}", sources, labels)]
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


def _acknowledged(result: ClaimResult) -> str:
    """A quiet result's acknowledgement, as a plan's reason says it."""
    assert result.acknowledged is not None
    return f"acknowledged on {result.acknowledged.review.date.isoformat()}"


def _closing_reason(result: ClaimResult, settings: SyncSettings) -> str:
    """Why an open issue closes as completed: verified, or a verdict filed no more."""
    off = _off(result.verdict, settings)
    if off is None:
        return f"{result.verdict.value}: {result.reason}"
    return f"{result.verdict.value}, which files no issue here ({off}): {result.reason}"


def _off(verdict: Verdict, settings: SyncSettings) -> str | None:
    """The `[issues]` setting that keeps a verdict whose quote holds from filing an issue."""
    if verdict in REVIEW_ISSUE_VERDICTS and not settings.review:
        return "`[issues] review = false`"
    if verdict is Verdict.EXPIRED and not settings.expired:
        return "`[issues] expired = false`"
    return None


def _follow_closed(
    result: ClaimResult,
    issue: Issue,
    due: tuple[Need, str],
    sources: Mapping[str, SourceCounts],
    settings: SyncSettings,
) -> list[Action]:
    claim_id = result.claim.id
    need, why = due
    by_us = (
        settings.login is not None
        and issue.closed_by is not None
        and issue.closed_by.casefold() == settings.login.casefold()
    )
    if not by_us and issue.state_reason in ("not_planned", "duplicate"):
        who = f"@{issue.closed_by}" if issue.closed_by else "a person"
        reason = f"{why}; #{issue.number} was closed as {issue.state_reason} by {who}: left closed"
        return [_nothing(claim_id, reason, issue.number)]
    again = "stale again" if need is Need.STALE else "to review again"
    labels = _relabelled(issue, need, settings)
    return [
        _rewrite(Kind.REOPEN, result, issue, f"{again}: {why}", sources, labels),
        Action(
            Kind.COMMENT,
            claim_id,
            "why it was reopened",
            number=issue.number,
            body=comment_reopened(result, need is Need.REVIEW),
        ),
    ]


def _relabelled(issue: Issue, need: Need, settings: SyncSettings) -> tuple[str, ...] | None:
    """The issue's labels with the kind label of `need` (the other kind's taken off and
    every other label kept), or None when they already say so."""
    wanted = settings.kind_label(need)
    kinds = {settings.stale_label.casefold(), settings.review_label.casefold()}
    kept = [name for name in issue.labels if name.casefold() not in kinds - {wanted.casefold()}]
    if wanted.casefold() not in (name.casefold() for name in kept):
        kept.append(wanted)
    return tuple(kept) if tuple(kept) != tuple(issue.labels) else None


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
    labels: tuple[str, ...] | None,
) -> Action:
    return Action(
        kind,
        result.claim.id,
        reason,
        number=issue.number,
        title=issue_title(result),
        body=issue_body(result, failures=_failures(result, sources)),
        labels=labels,
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
