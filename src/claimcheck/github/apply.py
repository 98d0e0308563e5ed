"""Carry out an issue plan over the GitHub client: list, plan, write one action at a time.

`sync.plan_sync` decides; this module asks GitHub what is there and does what was
decided, the same for `claimcheck issues` and the nightly run. What it has to say goes
to the two callbacks, never to a stream of its own choosing.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Collection, Mapping, Sequence
from dataclasses import replace

from claimcheck.config import IssuesConfig
from claimcheck.github.issues import GitHubIssues, GitHubRefusedError, GitHubUnavailableError
from claimcheck.github.sync import (
    NOT_CLAIMED,
    NOT_JUDGED,
    Action,
    Issue,
    Kind,
    Need,
    SourceCounts,
    SyncSettings,
    count_needs,
    issues_to_inspect,
    plan_sync,
    trusted_issues,
)
from claimcheck.models import ClaimResult, ExitCode
from claimcheck.untrusted import clean_text, shorten

ACTIONS_LOGIN = "github-actions[bot]"
"""Who writes with GitHub Actions' own GITHUB_TOKEN, which may not read `GET /user`."""
LABEL_COLOR = "d93f0b"
LABEL_DESCRIPTION = "A published claim a person must act on (filed by claimcheck)"
KIND_LABELS = {
    Need.STALE: ("b60205", "The claim's support changed or vanished: fix the claim or the page"),
    Need.REVIEW: ("fbca04", "The quote may hold: review the claim, then `claimcheck accept` it"),
}
"""The colour and description of each kind label, set when claimcheck creates it."""


def sync_issues(
    client: GitHubIssues,
    results: Sequence[ClaimResult],
    sources: Mapping[str, SourceCounts],
    settings: SyncSettings,
    *,
    dry_run: bool,
    record: Callable[[str], None],
    note: Callable[[str], None],
    claimed: Collection[str],
    filed: Callable[[str, int], None] | None = None,
) -> int:
    """List, plan and (unless dry-run) carry out; the exit code.

    `record` gets one line per action (what was filed: the command writes it to stdout),
    `note` the notes and the summary (stderr, or the nightly run's log line).
    `filed` gets each claim id with the number of the issue an action touched (so a
    notification can link it). `claimed`: the ids in the claim files. Only their
    results are acted on (a report may name claims no claim file holds: they are named
    and skipped), and an issue is closed as removed only when its claim is gone from
    them (`plan_sync`).

    Exit 0 when the issues are in sync; `ExitCode.CAPPED` when the cap on new issues
    (`settings.max_new`) held some back for the next run.
    """
    settings = replace(settings, login=_login(client, note))
    claimed = frozenset(claimed)
    known = _list(client, results, sources, settings, claimed)
    plan = plan_sync(results, sources, known, settings, claimed=claimed)
    foreign = [a.claim_id for a in plan if a.kind is Kind.NOTHING and a.reason == NOT_CLAIMED]
    if foreign:
        note(_foreign_note(foreign))
    unjudged = [a.claim_id for a in plan if a.kind is Kind.NOTHING and a.reason == NOT_JUDGED]
    if unjudged:
        note(_unjudged_note(unjudged))
    needs = count_needs(results, sources, settings, claimed=claimed)
    if not dry_run:
        _ensure_labels(client, plan, settings)
    for action in plan:
        if dry_run:
            record(_line(action, action.number, prefix="would "))
        else:
            number = _carry_out(client, action, settings, note)
            record(_line(action, number))
            if filed is not None and number is not None:
                filed(action.claim_id, number)
    acknowledged = sum(1 for r in results if r.quiet and r.claim.id in claimed)
    note(_summary(plan, needs, acknowledged, dry_run=dry_run))
    held = sum(1 for action in plan if action.held)
    if held:
        note(_held_note(plan, held, settings, dry_run=dry_run))
        return int(ExitCode.CAPPED)
    return int(ExitCode.OK)


def sync_settings(chosen: IssuesConfig) -> SyncSettings:
    """The lifecycle's settings from `[issues]` in claimcheck.toml (the nightly run's as
    they are; `claimcheck issues` lets its flags override some)."""
    return SyncSettings(
        login=None,
        label=chosen.label,
        stale_label=chosen.stale_label,
        review_label=chosen.review_label,
        review=chosen.review,
        expired=chosen.expired,
        max_new=chosen.max_new,
    )


def _ensure_labels(client: GitHubIssues, plan: Sequence[Action], settings: SyncSettings) -> None:
    """Create the labels the plan puts on issues that the repository lacks, each with its
    colour and description (GitHub would create them bare)."""
    used = {name.casefold() for a in plan if a.labels for name in a.labels}
    wanted = [(settings.label, LABEL_COLOR, LABEL_DESCRIPTION)]
    wanted += [(settings.kind_label(need), *KIND_LABELS[need]) for need in Need]
    for name, color, description in wanted:
        if name.casefold() in used:
            client.ensure_label(name, color, description)


def _carry_out(
    client: GitHubIssues, action: Action, settings: SyncSettings, note: Callable[[str], None]
) -> int | None:
    """Do one action; the issue number it touched."""
    number = action.number
    if action.kind is Kind.CREATE:
        assert action.title is not None
        assert action.body is not None
        labels = list(action.labels or (settings.label,))
        return _create(client, action.title, action.body, labels, action.claim_id, settings, note)
    if action.kind is Kind.NOTHING or number is None:
        return number
    changes: dict[str, object] = {"title": action.title, "body": action.body}
    if action.labels is not None:
        changes["labels"] = list(action.labels)
    changes = {key: value for key, value in changes.items() if value is not None}
    if action.kind in (Kind.UPDATE, Kind.REOPEN):
        if action.kind is Kind.REOPEN:
            changes.update(state="open", state_reason="reopened")
        updated = client.update_issue(number, **changes)
        if action.labels is not None:
            _require_labels(updated.labels, action.labels, number)
    elif action.kind is Kind.COMMENT:
        assert action.body is not None
        client.comment(number, action.body)
    elif action.kind is Kind.CLOSE:
        fields: dict[str, object] = {"state": "closed", "state_reason": action.state_reason}
        if action.duplicate_of is not None:
            fields["duplicate_issue_id"] = action.duplicate_of
        client.update_issue(number, **fields)
    return number


def _create(
    client: GitHubIssues,
    title: str,
    body: str,
    labels: list[str],
    claim_id: str,
    settings: SyncSettings,
    note: Callable[[str], None],
) -> int:
    """Create an issue; after a failure, list again and create only if it is still missing."""
    try:
        issue = client.create_issue(title, body, labels)
    except GitHubUnavailableError as exc:
        if exc.final:
            raise
        note(f"creating the issue of {claim_id} failed ({exc}); listing again before retrying")
        mine = trusted_issues(client.list_issues(settings.label), settings)
        existing = [i for i in mine.get(claim_id, []) if i.state == "open"]
        if existing:
            return existing[0].number
        issue = client.create_issue(title, body, labels)
    if settings.label.casefold() not in (name.casefold() for name in issue.labels):
        raise GitHubRefusedError(
            f"issue #{issue.number} was created without the label {settings.label!r}",
            hint="GitHub drops labels without push access: give the token `issues: write` "
            "on this repository, or the next run could not find the issue and would file "
            "it again",
        )
    _require_labels(issue.labels, labels, issue.number)
    return issue.number


def _require_labels(got: Sequence[str], wanted: Sequence[str], number: int) -> None:
    """Stop when GitHub dropped a label we set: each run would set it again, in vain."""
    have = {name.casefold() for name in got}
    missing = [name for name in wanted if name.casefold() not in have]
    if missing:
        raise GitHubRefusedError(
            f"issue #{number} was saved without the label(s) {', '.join(map(repr, missing))}",
            hint="GitHub drops labels without push access: give the token `issues: write` "
            "on this repository",
        )


def _login(client: GitHubIssues, note: Callable[[str], None]) -> str | None:
    """The token's login; GitHub Actions' own token cannot read it and is its bot."""
    if not client.has_token:
        note("note: no GITHUB_TOKEN: markers are trusted without checking their author")
        return None
    try:
        return client.authenticated_login()
    except GitHubRefusedError as exc:
        if exc.status == 403 and os.environ.get("GITHUB_ACTIONS") == "true":
            return ACTIONS_LOGIN
        raise


def _list(
    client: GitHubIssues,
    results: Sequence[ClaimResult],
    sources: Mapping[str, SourceCounts],
    settings: SyncSettings,
    claimed: Collection[str],
) -> list[Issue]:
    """The labelled issues, with `closed_by` read for those whose closer matters."""
    known = client.list_issues(settings.label)
    inspect = set(issues_to_inspect(results, sources, known, settings, claimed=claimed))
    return [client.get_issue(i.number) if i.number in inspect else i for i in known]


def _line(action: Action, number: int | None, prefix: str = "") -> str:
    where = f"#{number}" if number is not None else "-"
    if action.kind is Kind.CLOSE and action.state_reason:
        what = f"{prefix}close ({action.state_reason})"
    else:
        what = f"{prefix}{action.kind.value}"
    reason = shorten(clean_text(action.reason), 240)
    return f"{what:<20} {where:<6} {clean_text(action.claim_id)}  {reason}"


def _foreign_note(claim_ids: Sequence[str]) -> str:
    """The line on stderr for results of claims that no claim file holds: skipped."""
    what = "a claim" if len(claim_ids) == 1 else f"{len(claim_ids):,} claims"
    shown = ", ".join(clean_text(shorten(i, 80)) for i in claim_ids[:_NAMED])
    more = f" and {len(claim_ids) - _NAMED:,} more" if len(claim_ids) > _NAMED else ""
    return (
        f"warning: the report judges {what} that no claim file holds, so nothing is "
        f"filed, updated or reopened for {'it' if len(claim_ids) == 1 else 'them'}: "
        f"{shown}{more}; give the report of a run over these claim files"
    )


_NAMED = 20
"""The most claim ids a note names one by one; the rest are counted."""


def _held_note(plan: Sequence[Action], held: int, settings: SyncSettings, *, dry_run: bool) -> str:
    """The line on stderr when the cap on new issues held some back."""
    created = sum(1 for action in plan if action.kind is Kind.CREATE)
    did = "would create" if dry_run else "created"
    issues = "new issue" if created == 1 else "new issues"
    more = "claim needs" if held == 1 else "claims need"
    return (
        f"cap reached: {did} {created:,} {issues}, the most one run creates "
        f"(`[issues] max_new` in claimcheck.toml, or --max-new: {settings.max_new}); "
        f"{held:,} more {more} one and get it on the next runs, in claim-file order "
        f"(exit {int(ExitCode.CAPPED)})"
    )


def _unjudged_note(claim_ids: Sequence[str]) -> str:
    """The line on stderr for claims the report lacks but the claim files hold: their
    open issues were left alone, since the report, not the claim files, is partial."""
    if len(claim_ids) == 1:
        what, left = "a claim with an open issue is", "its issue is left as it is"
    else:
        what = f"{len(claim_ids)} claims with an open issue are"
        left = "their issues are left as they are"
    return (
        f"note: {what} in the claim files but not in the report, so {left}: "
        f"{', '.join(clean_text(i) for i in claim_ids)}; "
        "give the report of a whole run (merge a sharded run's reports first with "
        "`claimcheck report merge`)"
    )


def _summary(
    plan: Sequence[Action], needs: Mapping[Need, int], acknowledged: int, *, dry_run: bool
) -> str:
    """What needs an issue (`needs_person`, the planner's own rule) and how many review
    verdicts a person acknowledged (which need none), then what was done."""
    counts = {kind: sum(1 for a in plan if a.kind is kind) for kind in Kind}
    done = ", ".join(f"{n} {kind.value}" for kind, n in counts.items() if n)
    kinds = ", ".join(f"{n} {need.value}" for need, n in needs.items())
    if acknowledged:
        kinds += f" ({acknowledged} acknowledged need none)"
    return (
        f"need an issue: {kinds}; {'dry run, would do' if dry_run else 'done'}: "
        f"{done or 'nothing to do'}"
    )
