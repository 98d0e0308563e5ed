"""The `claimcheck issues` command: one GitHub issue per stale claim, kept in sync nightly.

It reads a JSON report (or runs verify), lists the repository's claimcheck issues,
lets `issue_sync.plan_sync` decide, and carries the plan out one write at a time.
Each action goes to stdout as one line; the summary and errors go to stderr.
"""

from __future__ import annotations

import json
import os
import re
import sys
from collections.abc import Mapping, Sequence
from dataclasses import replace
from pathlib import Path
from typing import Annotated

import typer

from claimcheck.cli.support import (
    ConfigOpt,
    SnapshotsOpt,
    build_config,
    err,
    guard,
    progress_bar,
    read_claims,
)
from claimcheck.config import Config
from claimcheck.errors import UsageError
from claimcheck.github.issues import (
    API_VERSION,
    GitHubIssues,
    GitHubRefusedError,
    GitHubUnavailableError,
)
from claimcheck.github.sync import (
    Action,
    Issue,
    Kind,
    SourceCounts,
    SyncSettings,
    issues_to_inspect,
    plan_sync,
    trusted_issues,
)
from claimcheck.models import ClaimResult
from claimcheck.report.build import ExitCode
from claimcheck.report.load import ReportError, load_report_document
from claimcheck.run import run_verify
from claimcheck.sources.state import load_state
from claimcheck.untrusted import clean_text, shorten

_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")
ACTIONS_LOGIN = "github-actions[bot]"
"""Who writes with GitHub Actions' own GITHUB_TOKEN, which may not read `GET /user`."""
LABEL_COLOR = "d93f0b"
LABEL_DESCRIPTION = "A published claim lost its support (filed by claimcheck)"


def register(app: typer.Typer) -> None:
    """Add the `issues` command to the claimcheck app."""
    app.command(name="issues")(issues)


def issues(
    repo: Annotated[
        str | None,
        typer.Option(
            "--repo",
            envvar="GITHUB_REPOSITORY",
            metavar="OWNER/NAME",
            help="Repository whose issues are kept [default: $GITHUB_REPOSITORY].",
            show_default=False,
            show_envvar=False,
        ),
    ] = None,
    report: Annotated[
        Path | None,
        typer.Option(
            "--report",
            metavar="PATH",
            help="JSON report of `verify --format json` [default: run verify now].",
            show_default=False,
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print what would be done; write nothing."),
    ] = False,
    max_new: Annotated[
        int | None,
        typer.Option("--max-new", min=0, metavar="N", help="Create at most N issues this run."),
    ] = None,
    unreachable_after: Annotated[
        int,
        typer.Option(
            "--unreachable-after",
            min=1,
            metavar="N",
            help="File an unreachable source after N consecutive failed runs.",
        ),
    ] = 3,
    gone_after: Annotated[
        int,
        typer.Option(
            "--gone-after",
            min=1,
            metavar="N",
            help="File a source-gone claim after N consecutive runs.",
        ),
    ] = 2,
    label: Annotated[
        str, typer.Option("--label", metavar="NAME", help="Label that marks claimcheck's issues.")
    ] = "claimcheck",
    api_version: Annotated[
        str, typer.Option("--api-version", metavar="DATE", help="X-GitHub-Api-Version header.")
    ] = API_VERSION,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Keep one GitHub issue per stale claim: create, update, reopen and close them.

    Needs GITHUB_TOKEN (except with --dry-run); GITHUB_API_URL as for verify.

    Exit 0: issues in sync; 2: bad input or usage, or GitHub refused (token,
    repository); 3: GitHub could not be reached or kept rate-limiting: run again.
    """

    def work() -> int:
        name = _repo_name(repo)
        if not label.strip() or "," in label:
            raise UsageError(f"--label {label!r}: give one non-empty label name without commas")
        config = build_config(config_path, snapshots)
        if not config.github_token and not dry_run:
            raise UsageError(
                "GITHUB_TOKEN is not set", hint="set GITHUB_TOKEN, or look first with --dry-run"
            )
        results = _results(report, config)
        if not results:
            raise UsageError("the report holds no claims; refusing to close every issue")
        sources = load_state(config.snapshots_dir).sources
        settings = SyncSettings(
            login=None,
            label=label.strip(),
            unreachable_after=unreachable_after,
            gone_after=gone_after,
            max_new=max_new,
        )
        client = GitHubIssues(
            config.github_api_url,
            name,
            config.github_token,
            api_version=api_version,
            user_agent=config.fetch.user_agent,
        )
        with client:
            try:
                return sync_issues(client, results, sources, settings, dry_run=dry_run)
            except GitHubUnavailableError as exc:
                err(f"error: {exc}")
                err(f"hint: {exc.hint}")
                return int(ExitCode.UNCHECKED)

    raise typer.Exit(guard(work))


def sync_issues(
    client: GitHubIssues,
    results: Sequence[ClaimResult],
    sources: Mapping[str, SourceCounts],
    settings: SyncSettings,
    *,
    dry_run: bool,
) -> int:
    """List, plan and (unless dry-run) carry out; the exit code."""
    settings = replace(settings, login=_login(client))
    known = _list(client, results, sources, settings)
    plan = plan_sync(results, sources, known, settings)
    if dry_run:
        for action in plan:
            _show(action, action.number, prefix="would ")
        err(_summary(plan, dry_run=True))
        return int(ExitCode.OK)
    if any(a.kind is Kind.CREATE for a in plan):
        client.ensure_label(settings.label, LABEL_COLOR, LABEL_DESCRIPTION)
    for action in plan:
        _show(action, _carry_out(client, action, settings))
    err(_summary(plan, dry_run=False))
    return int(ExitCode.OK)


def _carry_out(client: GitHubIssues, action: Action, settings: SyncSettings) -> int | None:
    """Do one action; the issue number it touched."""
    number = action.number
    if action.kind is Kind.CREATE:
        assert action.title is not None
        assert action.body is not None
        return _create(client, action.title, action.body, action.claim_id, settings)
    if action.kind is Kind.NOTHING or number is None:
        return number
    if action.kind is Kind.UPDATE:
        client.update_issue(number, title=action.title, body=action.body)
    elif action.kind is Kind.REOPEN:
        client.update_issue(
            number, state="open", state_reason="reopened", title=action.title, body=action.body
        )
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
    client: GitHubIssues, title: str, body: str, claim_id: str, settings: SyncSettings
) -> int:
    """Create an issue; after a failure, list again and create only if it is still missing."""
    try:
        issue = client.create_issue(title, body, [settings.label])
    except GitHubUnavailableError as exc:
        if exc.final:
            raise
        err(f"creating the issue of {claim_id} failed ({exc}); listing again before retrying")
        mine = trusted_issues(client.list_issues(settings.label), settings)
        existing = [i for i in mine.get(claim_id, []) if i.state == "open"]
        if existing:
            return existing[0].number
        issue = client.create_issue(title, body, [settings.label])
    if settings.label.casefold() not in (name.casefold() for name in issue.labels):
        raise GitHubRefusedError(
            f"issue #{issue.number} was created without the label {settings.label!r}",
            hint="GitHub drops labels without push access: give the token `issues: write` "
            "on this repository, or the next run could not find the issue and would file "
            "it again",
        )
    return issue.number


def _login(client: GitHubIssues) -> str | None:
    """The token's login; GitHub Actions' own token cannot read it and is its bot."""
    if not client.has_token:
        err("note: no GITHUB_TOKEN: markers are trusted without checking their author")
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
) -> list[Issue]:
    """The labelled issues, with `closed_by` read for those whose closer matters."""
    known = client.list_issues(settings.label)
    inspect = set(issues_to_inspect(results, sources, known, settings))
    return [client.get_issue(i.number) if i.number in inspect else i for i in known]


def _results(report: Path | None, config: Config) -> list[ClaimResult]:
    if report is None:
        claims = read_claims(None, config)
        with progress_bar(True) as on_progress:
            done, _ = run_verify(claims, config, offline=False, on_progress=on_progress)
        return list(done.results)
    try:
        document = json.loads(report.read_text(encoding="utf-8"))
    except (OSError, UnicodeDecodeError, ValueError) as exc:
        raise ReportError(f"{report}: cannot read the report: {exc}") from exc
    return list(load_report_document(document).results)


def _repo_name(repo: str | None) -> str:
    if not repo:
        raise UsageError("no repository: pass --repo OWNER/NAME or set GITHUB_REPOSITORY")
    if not _REPO.match(repo) or ".." in repo:
        raise UsageError(f"--repo {repo!r}: expected OWNER/NAME")
    return repo


def _show(action: Action, number: int | None, prefix: str = "") -> None:
    where = f"#{number}" if number is not None else "-"
    if action.kind is Kind.CLOSE and action.state_reason:
        what = f"{prefix}close ({action.state_reason})"
    else:
        what = f"{prefix}{action.kind.value}"
    reason = shorten(clean_text(action.reason), 240)
    sys.stdout.write(f"{what:<20} {where:<6} {clean_text(action.claim_id)}  {reason}\n")


def _summary(plan: Sequence[Action], *, dry_run: bool) -> str:
    counts = {kind: sum(1 for a in plan if a.kind is kind) for kind in Kind}
    done = ", ".join(f"{n} {kind.value}" for kind, n in counts.items() if n)
    return f"{'dry run, would do' if dry_run else 'done'}: {done or 'nothing to do'}"
