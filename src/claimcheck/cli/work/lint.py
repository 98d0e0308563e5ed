"""What `claimcheck lint` does: check every claim file offline."""

from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

import typer

from claimcheck.claims.lint import findings_from_problems, lint_claims, lint_exit_code, summarize
from claimcheck.claims.load import claim_files, load_claims
from claimcheck.cli.lazy import read_yaml
from claimcheck.cli.project import build_config, claim_inputs
from claimcheck.cli.selection import as_reported
from claimcheck.cli.verbosity import say
from claimcheck.errors import ClaimFileError
from claimcheck.observe.stored import observe_stored

if TYPE_CHECKING:
    from claimcheck.models import Claim


def lint(*, paths: list[Path] | None, config_path: Path | None, snapshots: Path | None) -> int:
    """The work of `claimcheck lint`, given its parsed options: its exit code."""
    config = build_config(config_path, snapshots)
    files = claim_files(claim_inputs(paths, config))
    findings = []
    try:
        claims = load_claims(files, read=read_yaml)
    except ClaimFileError as exc:
        shown = {file.as_posix(): config.report_path(file) for file in files}
        findings = findings_from_problems(exc.problems, shown)
        claims = _claims_of_good_files(files)
    claims = as_reported(claims, config)
    states, _ = observe_stored(claims, config, pages=True)
    findings += lint_claims(claims, states, min_score=config.verdict.drift_min_score)
    findings = sorted(set(findings))
    for finding in findings:
        typer.echo(finding.render())
    say(summarize(findings, len(claims), len(files)))
    return int(lint_exit_code(findings))


def _claims_of_good_files(files: list[Path]) -> list[Claim]:
    """The claims of every file that parses on its own, first of each id only."""
    claims: dict[str, Claim] = {}
    for file in files:
        try:
            for claim in load_claims([file], read=read_yaml):
                claims.setdefault(claim.id, claim)
        except ClaimFileError:
            continue
    return list(claims.values())
