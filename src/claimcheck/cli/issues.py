"""The `claimcheck issues` command: one GitHub issue per claim a person must act on.

It reads a JSON report (or runs verify) and the claim files' ids (only claims in
them are acted on, whatever the report names), lists the
repository's claimcheck issues, lets `github.sync.plan_sync` decide (which verdicts
file an issue and their labels come from `[issues]` in claimcheck.toml), and carries
the plan out one write at a time.
Each action goes to stdout as one line; the summary and errors go to stderr.
"""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

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
from claimcheck.errors import UsageError

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.github.issues import GitHubIssues
    from claimcheck.models import ClaimResult, Report

API_VERSION = "2022-11-28"
"""The default of --api-version: `github.issues.API_VERSION` (a test holds them equal)."""
_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


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
            help="JSON report of a whole run (`verify --format json`, `report merge`) "
            "[default: run verify now].",
            show_default=False,
        ),
    ] = None,
    dry_run: Annotated[
        bool,
        typer.Option("--dry-run", help="Print what would be done; write nothing."),
    ] = False,
    max_new: Annotated[
        int | None,
        typer.Option(
            "--max-new",
            min=0,
            metavar="N",
            help="Create at most N issues this run [default: the config's `[issues] max_new`, 20].",
            show_default=False,
        ),
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
        str | None,
        typer.Option(
            "--label",
            metavar="NAME",
            help="Label that marks claimcheck's issues [default: the config's `[issues] "
            "label`, claimcheck].",
            show_default=False,
        ),
    ] = None,
    api_version: Annotated[
        str, typer.Option("--api-version", metavar="DATE", help="X-GitHub-Api-Version header.")
    ] = API_VERSION,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Keep one GitHub issue per claim to fix or review: create, update, reopen, close.

    Stale claims get issues labelled `stale`; context-changed and moved ones
    `review` (`[issues]` in claimcheck.toml turns review issues off, expired ones
    on). Needs GITHUB_TOKEN (except with --dry-run); GITHUB_API_URL as for verify.
    Only claims in the claim files are acted on: a report's claim in none is named
    and skipped. An issue is closed as removed only when its claim is gone from the
    claim files.

    Exit 0: issues in sync; 2: bad input or usage (a shard's report: merge the
    shards' reports first), or GitHub refused (token, repository); 3: GitHub could
    not be reached or kept rate-limiting: run again; 4: more claims need a new issue
    than --max-new lets one run create: the rest are created by the next runs.
    """

    def work() -> int:
        from claimcheck.github.apply import sync_issues, sync_settings
        from claimcheck.github.issues import GitHubUnavailableError
        from claimcheck.models import ExitCode
        from claimcheck.store.state import load_state

        name = _repo_name(repo)
        config = build_config(config_path, snapshots)
        if not config.github_token and not dry_run:
            raise UsageError(
                "GITHUB_TOKEN is not set", hint="set GITHUB_TOKEN, or look first with --dry-run"
            )
        results, claimed = _judged(report, config)
        sources = load_state(config.snapshots_dir).sources
        settings = replace(
            sync_settings(config.issues),
            label=_label(label, config),
            unreachable_after=unreachable_after,
            gone_after=gone_after,
            max_new=config.issues.max_new if max_new is None else max_new,
        )
        client = github_client(
            config.github_api_url,
            name,
            config.github_token,
            api_version=api_version,
            user_agent=config.fetch.user_agent,
        )
        with client:
            try:
                return sync_issues(
                    client,
                    results,
                    sources,
                    settings,
                    dry_run=dry_run,
                    record=_out,
                    note=err,
                    claimed=claimed,
                )
            except GitHubUnavailableError as exc:
                err(f"error: {exc}")
                err(f"hint: {exc.hint}")
                return int(ExitCode.UNCHECKED)

    raise typer.Exit(guard(work))


def _label(flag: str | None, config: Config) -> str:
    """--label, else the config's; it must not be one of the kind labels."""
    if flag is None:
        return config.issues.label
    label = flag.strip()
    if not label or "," in label:
        raise UsageError(f"--label {flag!r}: give one non-empty label name without commas")
    kinds = (config.issues.stale_label, config.issues.review_label)
    if label.casefold() in (kind.casefold() for kind in kinds):
        raise UsageError(
            f"--label {flag!r} is one of the kind labels ({', '.join(kinds)})",
            hint="give another name, or change `stale_label` / `review_label` in [issues]",
        )
    return label


def github_client(
    api_url: str, repo: str, token: str | None, *, api_version: str, user_agent: str
) -> GitHubIssues:
    """The GitHub issues client (imported when the command runs; a test replaces it)."""
    from claimcheck.github.issues import GitHubIssues

    return GitHubIssues(api_url, repo, token, api_version=api_version, user_agent=user_agent)


def _judged(report: Path | None, config: Config) -> tuple[list[ClaimResult], frozenset[str]]:
    """The results to keep the issues by, and the ids of the claims in the claim files.

    The ids let the plan tell a claim removed from the claim files (its issue is
    closed) from one the report leaves out (its issue is left alone), whatever report
    it is given. A shard's report is refused outright: it leaves out every other
    shard's claims, which only the merged report holds.
    """
    if report is None:
        from claimcheck.observe.online import ONLINE
        from claimcheck.pipeline import run_verify

        claims = read_claims(None, config)
        with progress_bar(True) as on_progress:
            done, _ = run_verify(claims, config, online=ONLINE, on_progress=on_progress)
        return _some(list(done.results)), frozenset(c.id for c in claims)
    results = _some(list(_whole_report(report).results))
    return results, frozenset(c.id for c in read_claims(None, config))


def _whole_report(path: Path) -> Report:
    """The report in the file, refused when it is one shard's (`verify --shard K/N`)."""
    from claimcheck.cli.report import read_report

    loaded = read_report(path)
    shard = loaded.shard
    if shard is not None:
        raise UsageError(
            f"{path} is the report of shard {shard} only: its issues would be kept as "
            "if the other shards' claims were gone",
            hint="merge the reports of every shard first with `claimcheck report merge "
            "PART.json... --output report.json`, then run `claimcheck issues --report "
            "report.json`",
        )
    return loaded


def _some(results: list[ClaimResult]) -> list[ClaimResult]:
    """The results; none at all is refused, as it would close every issue."""
    if not results:
        raise UsageError("the report holds no claims; refusing to close every issue")
    return results


def _repo_name(repo: str | None) -> str:
    if not repo:
        raise UsageError("no repository: pass --repo OWNER/NAME or set GITHUB_REPOSITORY")
    if not _REPO.match(repo) or ".." in repo:
        raise UsageError(f"--repo {repo!r}: expected OWNER/NAME")
    return repo


def _out(line: str) -> None:
    sys.stdout.write(line + "\n")
