"""The gate's commands: `verify` judges every claim, `snapshot` only fetches, `schema`
prints the claim file's JSON Schema.

Like every command module, this imports at its top only typer, the standard library
and `cli.support`; what a command runs is imported when it runs.
"""

from __future__ import annotations

import sys
from typing import TYPE_CHECKING, Annotated

import typer

from claimcheck.cli.support import (
    ConcurrencyOpt,
    ConfigOpt,
    FailOnOpt,
    FormatName,
    JobsOpt,
    OutputsOpt,
    PathsArg,
    ProgressOpt,
    ShardOpt,
    SnapshotsOpt,
    build_config,
    emit,
    err,
    guard,
    parse_outputs,
    parse_shard_option,
    progress_bar,
    read_claims,
    say,
    select_shard,
    shard_line,
    use_color,
    writing,
)
from claimcheck.errors import UsageError

if TYPE_CHECKING:
    from claimcheck.observe.stats import RunStats


def register(app: typer.Typer) -> None:
    """Add `verify`, `snapshot` and `schema` to the claimcheck app."""
    app.command()(verify)
    app.command()(snapshot)
    app.command()(schema)


def verify(
    paths: PathsArg = None,
    offline: Annotated[
        bool,
        typer.Option("--offline", help="Judge against stored snapshots only; no network."),
    ] = False,
    fmt: Annotated[
        FormatName, typer.Option("--format", "-f", help="Report format on stdout.")
    ] = FormatName.TABLE,
    outputs: OutputsOpt = None,
    fail_on: FailOnOpt = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
    concurrency: ConcurrencyOpt = None,
    jobs: JobsOpt = None,
    progress: ProgressOpt = True,
    allow_empty: Annotated[
        bool,
        typer.Option("--allow-empty", help="Pass when there are no claims at all (else exit 2)."),
    ] = False,
    shard: ShardOpt = None,
    cite: Annotated[
        bool,
        typer.Option(
            "--cite",
            help="Ask GitHub, the Hub or the Wayback Machine which version each uncited "
            "snapshot is, so the report links it (at most 50 per run; remembered).",
        ),
    ] = False,
) -> None:
    """Fetch every source, store new snapshots and judge every claim.

    Exit 0: nothing stale; 1: a claim is stale (drifted, missing, contradicted,
    source-gone, or a --fail-on verdict); 2: bad input or usage, or no claims found (unless
    --allow-empty); 3: nothing stale, but some sources could not be checked.
    """

    def work() -> int:
        from claimcheck.models import Shard, Verdict
        from claimcheck.pipeline import run_verify
        from claimcheck.report.build import exit_code, summary_line, with_shard
        from claimcheck.report.formats import OutputFormat
        from claimcheck.report.write import write_outputs
        from claimcheck.untrusted import clean_text

        targets = parse_outputs(outputs or [])
        part = parse_shard_option(shard)
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
        claims = select_shard(every, part, config)
        if part is not None:
            say(shard_line(part, claims, every))
        report_format = OutputFormat(fmt.value)
        online = None
        if not offline:  # an offline run imports no HTTP client
            from claimcheck.observe.online import ONLINE

            online = ONLINE
        with (
            writing(config, "verify", offline=offline),
            progress_bar(progress) as on_progress,
        ):
            report, stats = run_verify(
                claims, config, online=online, on_progress=on_progress, cite=cite
            )
        if part is not None:  # the report says it holds one shard's claims only
            report = with_shard(report, Shard(index=part[0], count=part[1]))
        color = report_format is OutputFormat.TABLE and use_color(sys.stdout)
        emit(report, report_format, color=color)
        write_outputs(report, targets, stdout_format=report_format)
        if not offline:
            say(_fetch_line(stats))
        if report_format is not OutputFormat.TABLE:
            say(summary_line(report))
        return int(exit_code(report, fail_on=[Verdict(v) for v in fail_on or []]))

    raise typer.Exit(guard(work))


def snapshot(
    paths: PathsArg = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
    concurrency: ConcurrencyOpt = None,
    jobs: JobsOpt = None,
    progress: ProgressOpt = True,
    shard: ShardOpt = None,
) -> None:
    """Fetch every source and store what changed, without judging.

    Exit 0: every source fetched; 3: some could not be fetched; 2: bad input.
    """

    def work() -> int:
        from claimcheck.models import ExitCode
        from claimcheck.observe.online import run_snapshot

        part = parse_shard_option(shard)
        config = build_config(config_path, snapshots, concurrency, jobs)
        every = read_claims(paths, config, makes_store=True)
        claims = select_shard(every, part, config)
        if part is not None:
            say(shard_line(part, claims, every))
        with writing(config, "snapshot"), progress_bar(progress) as on_progress:
            stats = run_snapshot(claims, config, on_progress=on_progress)
        say(f"{_fetch_line(stats)}, {len(stats.failed)} failed")
        for url in stats.failed:
            err(f"  could not fetch {url}")
        return int(ExitCode.UNCHECKED if stats.failed else ExitCode.OK)

    raise typer.Exit(guard(work))


def schema(
    report: Annotated[
        bool, typer.Option("--report", help="The JSON report's schema instead.")
    ] = False,
) -> None:
    """Print the JSON Schema of a claim file (for editor completion and validation)."""
    import json

    from claimcheck.claims.schema import claim_file_schema
    from claimcheck.report.schema import report_schema

    document = report_schema() if report else claim_file_schema()
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


def _fetch_line(stats: RunStats) -> str:
    """What a run fetched, for stderr: sources, the requests sent for them and those sent
    to read history (apart: a history look-up is no request of a source), new and
    unchanged snapshots."""
    from claimcheck.wording import counted

    return (
        f"{counted(stats.sources, 'source')}, {counted(stats.requests, 'request')}, "
        f"{counted(stats.history_requests, 'history look-up')}, "
        f"{counted(stats.new_snapshots, 'new snapshot')}, {stats.not_modified} not modified"
    )
