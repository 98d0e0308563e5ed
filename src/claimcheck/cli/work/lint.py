"""What `claimcheck lint` does: check every claim file offline, and print the findings
as lines or as the JSON of `listing.py`."""

from __future__ import annotations

import re
from pathlib import Path
from typing import TYPE_CHECKING, Any

import typer

from claimcheck.claims.lint import (
    Finding,
    Level,
    Rule,
    findings_from_problems,
    lint_claims,
    lint_exit_code,
    summarize,
)
from claimcheck.claims.load import as_reported, claim_files, load_claims
from claimcheck.cli.lazy import read_yaml
from claimcheck.cli.options import ListingFormat
from claimcheck.cli.project import build_config, claim_inputs
from claimcheck.cli.verbosity import say
from claimcheck.cli.work.listing import LISTING_SCHEMA_VERSION, write_json
from claimcheck.errors import ClaimFileError
from claimcheck.judge.verdict import Observed
from claimcheck.observe.known import with_page
from claimcheck.observe.stored import observe_stored
from claimcheck.store.store import Store
from claimcheck.untrusted import clean_text

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.judge.verdict import SourceState
    from claimcheck.models import Claim


_FIELD_OF_RULE = {
    Rule.NO_SNAPSHOT: "source",
    Rule.QUOTE_NOT_FOUND: "quote",
    Rule.ABSENT_FOUND: "absent",
    Rule.CONTEXT_MISMATCH: None,  # the prefix and the suffix together
    Rule.AMBIGUOUS_QUOTE: "quote",
    Rule.SHORT_QUOTE: "quote",
}
"""The claim-file key a finding of a rule on the snapshots is about (a parser's finding
names its own)."""

_NAMED_FIELD = re.compile(
    r"^(?P<field>[A-Za-z_][\w-]*(?:\[\d+\])?(?:\.[A-Za-z_][\w-]*)*): (?P<rest>.*)$", re.S
)
"""A parser's problem after its place: `FIELD: MESSAGE` (`sources[2].quote: …`)."""


def lint(
    *,
    paths: list[Path] | None,
    output_format: ListingFormat,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
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
    states = _with_bodies(claims, states, config)
    findings += lint_claims(claims, states, min_score=config.verdict.drift_min_score)
    findings = sorted(set(findings))
    code = int(lint_exit_code(findings))
    if output_format is ListingFormat.JSON:
        write_json(_lint_document(findings, len(claims), len(files), code))
    else:
        for finding in findings:
            typer.echo(finding.render())
    say(summarize(findings, len(claims), len(files)))
    return code


def _lint_document(findings: list[Finding], claims: int, files: int, code: int) -> dict[str, Any]:
    """The findings as one JSON document, with the counts and the exit code they make."""
    levels = [finding.level for finding in findings]
    return {
        "schema_version": LISTING_SCHEMA_VERSION,
        "exit_code": code,
        "errors": levels.count(Level.ERROR),
        "warnings": levels.count(Level.WARNING),
        "claims": claims,
        "files": files,
        "findings": [_finding_fields(finding) for finding in findings],
    }


def _finding_fields(finding: Finding) -> dict[str, Any]:
    """One finding: where (file, line, claim id, key), what (rule, severity) and the
    message as the table prints it (cleaned; its quoted page text shortened)."""
    field: str | None = _FIELD_OF_RULE.get(finding.rule)
    message = finding.message
    if finding.rule in (Rule.SCHEMA, Rule.DUPLICATE_ID):
        named = _NAMED_FIELD.match(message)
        field = named["field"] if named else None
        message = named["rest"] if named else message
    elif finding.part is not None:  # a claim on several sources: the part's key
        field = f"sources[{finding.part}]" + (f".{field}" if field else "")
    return {
        "file": finding.file,
        "line": finding.line or None,
        "id": finding.claim_id,
        "field": field,
        "rule": finding.rule.value,
        "severity": finding.level.value,
        "message": clean_text(message),
    }


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


def _with_bodies(
    claims: list[Claim], states: dict[str, SourceState], config: Config
) -> dict[str, SourceState]:
    """The states, with the body read of each source a claim on a field stands on (its
    fields are read from the body, not the page)."""
    on_fields = {claim.source for claim in claims if claim.field is not None and claim.source}
    if not on_fields:
        return states
    store = Store.of(config)
    return {
        url: with_page(store, state, body=True)
        if url in on_fields and isinstance(state, Observed)
        else state
        for url, state in states.items()
    }
