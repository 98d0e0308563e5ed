"""What `claimcheck issues` does: plan the GitHub issues from a report and carry the plan out."""

from __future__ import annotations

import re
import sys
from dataclasses import replace
from pathlib import Path
from typing import TYPE_CHECKING

from claimcheck.cli.lazy import online_stages, pipeline_run_verify
from claimcheck.cli.project import build_config
from claimcheck.cli.selection import read_claims
from claimcheck.cli.terminal import progress_bar
from claimcheck.cli.verbosity import err
from claimcheck.cli.work.render_report import read_report
from claimcheck.errors import UsageError
from claimcheck.github.apply import sync_issues, sync_settings
from claimcheck.github.issues import GitHubIssues, GitHubUnavailableError
from claimcheck.models import ExitCode
from claimcheck.store.state import load_state

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.models import ClaimResult, Report


def issues(
    *,
    repo: str | None,
    report: Path | None,
    dry_run: bool,
    max_new: int | None,
    unreachable_after: int,
    gone_after: int,
    label: str | None,
    api_version: str,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
    """The work of `claimcheck issues`, given its parsed options: its exit code."""
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


_REPO = re.compile(r"^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$")


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
    return GitHubIssues(api_url, repo, token, api_version=api_version, user_agent=user_agent)


def _judged(report: Path | None, config: Config) -> tuple[list[ClaimResult], frozenset[str]]:
    """The results to keep the issues by, and the ids of the claims in the claim files.

    The ids let the plan tell a claim removed from the claim files (its issue is
    closed) from one the report leaves out (its issue is left alone), whatever report
    it is given. A shard's report is refused outright: it leaves out every other
    shard's claims, which only the merged report holds.
    """
    if report is None:
        claims = read_claims(None, config)
        with progress_bar(True) as on_progress:
            run_verify = pipeline_run_verify()  # reading a report judges nothing
            done, _ = run_verify(claims, config, online=online_stages(), on_progress=on_progress)
        return _some(list(done.results)), frozenset(c.id for c in claims)
    results = _some(list(_whole_report(report).results))
    return results, frozenset(c.id for c in read_claims(None, config))


def _whole_report(path: Path) -> Report:
    """The report in the file, refused when it is one shard's (`verify --shard K/N`)."""
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
