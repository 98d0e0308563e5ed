"""The `claimcheck` command line: builds the objects, writes stdout/stderr, maps exit codes.

The report goes to stdout, the human summary and errors to stderr. Run-level errors
are caught in one place (`cli_support.guard`) and become exit code 2 with a hint.
"""

from __future__ import annotations

import json
import shutil
import sys
from importlib.metadata import version as package_version
from typing import Annotated

import typer

from claimcheck.claims.parse import claim_file_schema
from claimcheck.cli import editor as cli_editor
from claimcheck.cli import history as cli_history
from claimcheck.cli import issues as cli_issues
from claimcheck.cli import schedule as cli_schedule
from claimcheck.cli.support import (
    ConcurrencyOpt,
    ConfigOpt,
    FailOnOpt,
    OutputsOpt,
    PathsArg,
    ProgressOpt,
    SnapshotsOpt,
    build_config,
    err,
    guard,
    parse_outputs,
    progress_bar,
    read_claims,
    use_color,
    writing,
)
from claimcheck.errors import UsageError
from claimcheck.models import ExitCode, Verdict
from claimcheck.report.build import exit_code, summary_line
from claimcheck.report.formats import OutputFormat, render
from claimcheck.report.load import report_schema
from claimcheck.report.write import write_outputs
from claimcheck.run import run_snapshot, run_verify
from claimcheck.untrusted import clean_text

app = typer.Typer(
    name="claimcheck",
    help="Keep published claims honest: check that each claim's quote is still on its source.",
    no_args_is_help=True,
    add_completion=True,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
    context_settings={"help_option_names": ["-h", "--help"]},
)


def _print_version(value: bool) -> None:
    if value:
        typer.echo(f"claimcheck {package_version('claimcheck')}")
        raise typer.Exit(int(ExitCode.OK))


@app.callback()
def _root(
    version: Annotated[
        bool,
        typer.Option(
            "--version",
            "-V",
            help="Print claimcheck's version and exit.",
            callback=_print_version,
            is_eager=True,
        ),
    ] = False,
) -> None:
    """Keep published claims honest: check that each claim's quote is still on its source."""


@app.command()
def verify(
    paths: PathsArg = None,
    offline: Annotated[
        bool,
        typer.Option("--offline", help="Judge against stored snapshots only; no network."),
    ] = False,
    fmt: Annotated[
        OutputFormat, typer.Option("--format", "-f", help="Report format on stdout.")
    ] = OutputFormat.TABLE,
    outputs: OutputsOpt = None,
    fail_on: FailOnOpt = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
    concurrency: ConcurrencyOpt = None,
    progress: ProgressOpt = True,
    allow_empty: Annotated[
        bool,
        typer.Option("--allow-empty", help="Pass when there are no claims at all (else exit 2)."),
    ] = False,
) -> None:
    """Fetch every source, store new snapshots and judge every claim.

    Exit 0: nothing stale; 1: a claim is stale (drifted, missing, source-gone, or a
    --fail-on verdict); 2: bad input or usage, or no claims found (unless
    --allow-empty); 3: nothing stale, but some sources could not be checked.
    """

    def work() -> int:
        targets = parse_outputs(outputs or [])
        config = build_config(config_path, snapshots, concurrency)
        claims = read_claims(paths, config)
        if not claims and not allow_empty:
            searched = ", ".join(clean_text(str(p)) for p in (paths or config.claim_paths))
            raise UsageError(
                f"no claims found in {searched}: a gate with nothing to check must not pass",
                hint="write claim files there (`claimcheck init` writes an example), "
                "point at them with PATHS or `claims` in claimcheck.toml, or pass "
                "--allow-empty",
            )
        with (
            writing(config, "verify", offline=offline),
            progress_bar(progress and not offline) as on_progress,
        ):
            report, stats = run_verify(claims, config, offline=offline, on_progress=on_progress)
        color = fmt is OutputFormat.TABLE and use_color(sys.stdout)
        width = shutil.get_terminal_size().columns if sys.stdout.isatty() else None
        sys.stdout.write(render(report, fmt, color=color, width=width))
        write_outputs(report, targets, stdout_format=fmt)
        if not offline:
            err(
                f"{stats.sources} sources, {stats.requests} requests, "
                f"{stats.new_snapshots} new snapshots, {stats.not_modified} not modified"
            )
        if fmt is not OutputFormat.TABLE:
            err(summary_line(report))
        return int(exit_code(report, fail_on=[Verdict(v) for v in fail_on or []]))

    raise typer.Exit(guard(work))


@app.command()
def snapshot(
    paths: PathsArg = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
    concurrency: ConcurrencyOpt = None,
    progress: ProgressOpt = True,
) -> None:
    """Fetch every source and store what changed, without judging.

    Exit 0: every source fetched; 3: some could not be fetched; 2: bad input.
    """

    def work() -> int:
        config = build_config(config_path, snapshots, concurrency)
        claims = read_claims(paths, config)
        with writing(config, "snapshot"), progress_bar(progress) as on_progress:
            stats = run_snapshot(claims, config, on_progress=on_progress)
        err(
            f"{stats.sources} sources, {stats.requests} requests, "
            f"{stats.new_snapshots} new snapshots, {stats.not_modified} not modified, "
            f"{len(stats.failed)} failed"
        )
        for url in stats.failed:
            err(f"  could not fetch {url}")
        return int(ExitCode.UNCHECKED if stats.failed else ExitCode.OK)

    raise typer.Exit(guard(work))


@app.command()
def schema(
    report: Annotated[
        bool, typer.Option("--report", help="The JSON report's schema instead.")
    ] = False,
) -> None:
    """Print the JSON Schema of a claim file (for editor completion and validation)."""
    document = report_schema() if report else claim_file_schema()
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")


cli_issues.register(app)
cli_history.register(app)
cli_editor.register(app)
cli_schedule.register(app)


def main() -> None:
    """Entry point of the `claimcheck` script."""
    app()
