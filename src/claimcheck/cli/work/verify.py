"""What `claimcheck verify` does: fetch, store, judge, write the report, say the exit code."""

from __future__ import annotations

import sys
from pathlib import Path

from claimcheck.cli.lazy import archive_hook, notify_claims, online_stages
from claimcheck.cli.options import FailOn, FormatName
from claimcheck.cli.output import emit, parse_outputs
from claimcheck.cli.project import build_config
from claimcheck.cli.selection import read_claims
from claimcheck.cli.shards import parse_shard_option, select_shard, shard_line
from claimcheck.cli.terminal import progress_bar, use_color
from claimcheck.cli.verbosity import say
from claimcheck.cli.work.changed import select_changed
from claimcheck.cli.work.fetched import fetch_line
from claimcheck.errors import UsageError
from claimcheck.models import Shard, Verdict
from claimcheck.observe.drift import newly_drifted
from claimcheck.pipeline import run_verify
from claimcheck.report.build import exit_code, summary_line, with_shard
from claimcheck.report.formats import OutputFormat
from claimcheck.report.write import write_outputs
from claimcheck.store.lock import writing
from claimcheck.store.state import load_state
from claimcheck.untrusted import clean_text


def verify(
    *,
    paths: list[Path] | None,
    offline: bool,
    fmt: FormatName,
    outputs: list[str] | None,
    fail_on: list[FailOn] | None,
    config_path: Path | None,
    snapshots: Path | None,
    concurrency: int | None,
    jobs: int | None,
    progress: bool,
    allow_empty: bool,
    shard: str | None,
    cite: bool,
    changed_since: str | None,
    notify: bool,
) -> int:
    """The work of `claimcheck verify`, given its parsed options: its exit code."""
    targets = parse_outputs(outputs or [])
    part = parse_shard_option(shard)
    if notify and part is not None:
        raise UsageError(
            "--notify with --shard: each shard would tell only of its own claims",
            hint="merge the shards' reports (`claimcheck report merge`), then run "
            "`claimcheck notify --report report.json`",
        )
    config = build_config(config_path, snapshots, concurrency, jobs)
    every = read_claims(paths, config, makes_store=not offline)
    if not every and not allow_empty:
        searched = ", ".join(clean_text(str(p)) for p in (paths or config.claim_paths))
        raise UsageError(
            f"no claims found in {searched}: a gate with nothing to check must not pass",
            hint="write claim files there (`claimcheck init` writes an example), "
            "point at them with PATHS or `claims` in claimcheck.toml, or pass "
            "--allow-empty",
        )
    preface = ""
    if changed_since is not None:
        changed = select_changed(every, changed_since, config)
        say(changed.line())
        every, preface = changed.claims, changed.markdown()
    claims = select_shard(every, part, config)
    if part is not None:
        say(shard_line(part, claims, every))
    report_format = OutputFormat(fmt.value)
    online = None if offline else online_stages()  # offline: no HTTP client
    with (
        writing(config, "verify", offline=offline),
        progress_bar(progress) as on_progress,
    ):
        drift = not offline and "drift" in config.archive.on
        before = load_state(config.snapshots_dir) if drift else None
        report, stats = run_verify(
            claims, config, online=online, on_progress=on_progress, cite=cite
        )
        if before is not None:
            archive_hook()("drift", newly_drifted(report, before), config)
    if part is not None:  # the report says it holds one shard's claims only
        report = with_shard(report, Shard(index=part[0], count=part[1]))
    color = report_format is OutputFormat.TABLE and use_color(sys.stdout)
    emit(report, report_format, color=color)
    write_outputs(report, targets, stdout_format=report_format, preface=preface)
    if not offline:
        say(fetch_line(stats))
    if report_format is not OutputFormat.TABLE:
        say(summary_line(report))
    if notify:  # after the report: a failing route changes no verdict or exit code
        notify_claims(report.results, config)
    return int(exit_code(report, fail_on=[Verdict(v) for v in fail_on or []]))
