"""The `report` commands: merge the JSON reports of a run's shards, render a JSON report.

`verify --shard K/N` in N parallel jobs writes N partial reports; `report merge` makes
them the report of one run (report/merge.py decides, this module reads and writes
the files), and `report render` turns any JSON report into the other formats, with
verify's exit code, so the job that merges can annotate, summarize and gate.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Any

import typer

from claimcheck.cli.guard import guard
from claimcheck.cli.inputs import build_config, parse_outputs, writing
from claimcheck.cli.options import ConfigOpt, FailOnOpt, FormatName, OutputsOpt, SnapshotsOpt
from claimcheck.cli.output import emit, use_color
from claimcheck.cli.verbosity import say
from claimcheck.errors import StoreError, UsageError

if TYPE_CHECKING:
    from claimcheck.models import Report

report_app = typer.Typer(
    name="report",
    help="Merge the JSON reports of a run's shards; render a JSON report in any format.",
    no_args_is_help=True,
    rich_markup_mode=None,
)


def register(app: typer.Typer) -> None:
    """Add the `report` command group to the claimcheck app."""
    app.add_typer(report_app, name="report")


@report_app.command("merge")
def merge(
    parts: Annotated[
        list[Path],
        typer.Argument(
            metavar="PART.json",
            help="The JSON reports of every shard of one run (`verify --shard K/N "
            "--format json`, each K from 1 to N once).",
            show_default=False,
        ),
    ],
    output: Annotated[
        Path | None,
        typer.Option(
            "--output",
            "-o",
            metavar="PATH",
            help="Write the merged JSON report to PATH [default: stdout].",
            show_default=False,
        ),
    ] = None,
    states: Annotated[
        list[Path] | None,
        typer.Option(
            "--state",
            metavar="STATE.json",
            help="A shard's state file (its snapshots/state.json after its verify); "
            "repeat for each shard. Their changes are folded into the snapshots' "
            "state.json, as one run over all the claims would have left it.",
            show_default=False,
        ),
    ] = None,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Merge the JSON reports of a run's shards into the report of the whole run.

    The results in claim-file order, the counts and exit code recomputed, the
    earliest start time, offline only if every part was. Render it with `claimcheck
    report render`, sync issues with `claimcheck issues --report`. With --state, the
    shards' remembered verdicts and failure counts go into the snapshots' state.json
    too, so that `claimcheck issues` counts a failing source's nights under sharding.

    Exit 0: merged; 2: a part cannot be read, is not a JSON report, has a field
    out of its bounds (named by its JSON path, e.g. shard.count), or names no
    shard (a whole run's report, or one from before reports named their shard), the
    parts are not every shard of one run once (the missing or repeated shard is
    named), the parts' schema versions differ, or a claim is in two parts (both are
    named); a state file cannot be read, did not start from the snapshots' state, or
    changed an entry another changed differently (the state is then left as it was).
    """

    def work() -> int:
        from claimcheck.report.build import summary_line
        from claimcheck.report.formats import OutputFormat
        from claimcheck.report.merge import merge_documents
        from claimcheck.report.write import write_outputs

        merged = merge_documents([(str(path), read_document(path)) for path in parts])
        if states:
            config = build_config(config_path, snapshots)
            with writing(config, "report merge --state"):
                told = merge_state_files(states, config.snapshots_dir)
        if output is None:
            emit(merged, OutputFormat.JSON)
        else:
            write_outputs(merged, [(OutputFormat.JSON, output)])
        say(f"merged {len(parts)} reports: {summary_line(merged)}")
        if states:
            say(told)
        return 0

    raise typer.Exit(guard(work))


@report_app.command("render")
def render_report(
    report: Annotated[
        Path,
        typer.Argument(
            metavar="REPORT.json",
            help="A JSON report (`verify --format json`, `report merge`).",
            show_default=False,
        ),
    ],
    fmt: Annotated[
        FormatName, typer.Option("--format", "-f", help="Report format on stdout.")
    ] = FormatName.TABLE,
    outputs: OutputsOpt = None,
    fail_on: FailOnOpt = None,
) -> None:
    """Render a JSON report in another format, as verify would have.

    The github format also goes to the job summary in GitHub Actions. No network,
    no snapshots needed.

    Exit as verify's with this report: 0 nothing stale; 1 a claim is stale (or a
    --fail-on verdict); 3 nothing stale, but some sources could not be checked; 2:
    the report cannot be read or has a field out of its bounds, or bad usage.
    """

    def work() -> int:
        from claimcheck.models import Verdict
        from claimcheck.report.build import exit_code, summary_line
        from claimcheck.report.formats import OutputFormat
        from claimcheck.report.write import write_outputs

        targets = parse_outputs(outputs or [])
        loaded = read_report(report)
        report_format = OutputFormat(fmt.value)
        color = report_format is OutputFormat.TABLE and use_color(sys.stdout)
        emit(loaded, report_format, color=color)
        write_outputs(loaded, targets, stdout_format=report_format)
        if report_format is not OutputFormat.TABLE:
            say(summary_line(loaded))
        return int(exit_code(loaded, fail_on=[Verdict(v) for v in fail_on or []]))

    raise typer.Exit(guard(work))


_PART_STATE_HINT = (
    "give the state.json each shard's verify wrote (claimcheck-part-K/state.json in the "
    "sharded workflow)"
)


def merge_state_files(parts: list[Path], snapshots: Path) -> str:
    """Fold the shards' state files into the state in `snapshots`; what changed, said.

    Everything is read and checked before the state is written, so a bad part leaves
    the state as it was.
    """
    from claimcheck.store.state import (
        STATE_FILE,
        load_state,
        merge_states,
        read_state,
        save_state,
    )
    from claimcheck.untrusted import clean_text
    from claimcheck.wording import counted

    base = load_state(snapshots)
    read = []
    for path in parts:
        try:
            read.append((str(path), read_state(path)))
        except FileNotFoundError as exc:
            raise UsageError(f"--state {path}: no such file") from exc
        except StoreError as exc:
            raise StoreError(str(exc), hint=_PART_STATE_HINT) from exc
    merged = merge_states(base, read)
    save_state(snapshots, merged)
    claims = sum(1 for key, entry in merged.claims.items() if base.claims.get(key) != entry)
    sources = sum(1 for key, entry in merged.sources.items() if base.sources.get(key) != entry)
    return (
        f"merged {len(parts)} state files into {clean_text(str(snapshots / STATE_FILE))}: "
        f"{counted(claims, 'claim')} and {counted(sources, 'source')} changed"
    )


def read_document(path: Path) -> Any:
    """The parsed JSON of a report file, within the loader's size bound; an error that
    names the file otherwise."""
    from claimcheck.report.load import read_report_document

    return read_report_document(path)


def read_report(path: Path) -> Report:
    """The report of a JSON report file; every problem names the file."""
    from claimcheck.report.load import ReportError, load_report_document

    document = read_document(path)
    try:
        return load_report_document(document)
    except ReportError as exc:
        raise ReportError(f"{path}: {exc}") from exc
