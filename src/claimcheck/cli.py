"""The `claimcheck` command line: builds the objects, writes stdout/stderr, maps exit codes.

The report goes to stdout, the human summary and errors to stderr. Run-level errors
are caught in one place (`_guard`) and become exit code 2 with a hint.
"""

from __future__ import annotations

import json
import os
import sys
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, TypeVar

import typer
from rich.console import Console
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TextColumn

from claimcheck.claims import claim_file_schema
from claimcheck.config import Config, load_config
from claimcheck.errors import ClaimcheckError
from claimcheck.formats import OutputFormat, render
from claimcheck.models import Claim
from claimcheck.report import ExitCode, exit_code, summary_line
from claimcheck.run import ProgressCallback, load_claims, run_snapshot, run_verify

app = typer.Typer(
    name="claimcheck",
    help="Keep published claims honest: check that each claim's quote is still on its source.",
    no_args_is_help=True,
    add_completion=False,
    pretty_exceptions_enable=False,
    rich_markup_mode=None,
)

T = TypeVar("T")

PathsArg = Annotated[
    list[Path] | None,
    typer.Argument(
        metavar="PATHS",
        help="Claim files or folders of *.yaml claim files [default: the config's claims, "
        "i.e. claims/].",
        show_default=False,
    ),
]
ConfigOpt = Annotated[
    Path | None,
    typer.Option("--config", help="Config file [default: ./claimcheck.toml when present]."),
]
SnapshotsOpt = Annotated[
    Path | None,
    typer.Option("--snapshots", help="Snapshot folder [default: the config's, snapshots/]."),
]
ConcurrencyOpt = Annotated[
    int | None,
    typer.Option("--concurrency", min=1, max=64, help="Requests in flight at once."),
]
ProgressOpt = Annotated[
    bool,
    typer.Option("--progress/--no-progress", help="Progress bar on a terminal (stderr)."),
]


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
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
    concurrency: ConcurrencyOpt = None,
    progress: ProgressOpt = True,
) -> None:
    """Fetch every source, store new snapshots and judge every claim.

    Exit 0: nothing stale; 1: a claim is stale (drifted, missing, source-gone);
    2: bad input or usage; 3: nothing stale, but some sources could not be checked.
    """

    def work() -> int:
        config = _config(config_path, snapshots, concurrency)
        claims = _claims(paths, config)
        with _progress(progress and not offline) as on_progress:
            report, stats = run_verify(claims, config, offline=offline, on_progress=on_progress)
        color = fmt is OutputFormat.TABLE and _use_color(sys.stdout)
        sys.stdout.write(render(report, fmt, color=color))
        if not offline:
            _err(
                f"{stats.sources} sources, {stats.requests} requests, "
                f"{stats.new_snapshots} new snapshots, {stats.not_modified} not modified"
            )
        if fmt is not OutputFormat.TABLE:
            _err(summary_line(report))
        return int(exit_code(report))

    raise typer.Exit(_guard(work))


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
        config = _config(config_path, snapshots, concurrency)
        claims = _claims(paths, config)
        with _progress(progress) as on_progress:
            stats = run_snapshot(claims, config, on_progress=on_progress)
        _err(
            f"{stats.sources} sources, {stats.requests} requests, "
            f"{stats.new_snapshots} new snapshots, {stats.not_modified} not modified, "
            f"{len(stats.failed)} failed"
        )
        for url in stats.failed:
            _err(f"  could not fetch {url}")
        return int(ExitCode.UNCHECKED if stats.failed else ExitCode.OK)

    raise typer.Exit(_guard(work))


@app.command()
def schema() -> None:
    """Print the JSON Schema of a claim file (for editor completion and validation)."""
    sys.stdout.write(json.dumps(claim_file_schema(), indent=2, ensure_ascii=False) + "\n")


def _config(path: Path | None, snapshots: Path | None, concurrency: int | None) -> Config:
    config = load_config(path)
    update: dict[str, object] = {}
    if snapshots is not None:
        update["snapshots"] = str(snapshots.resolve())
    if concurrency is not None:
        update["fetch"] = config.fetch.model_copy(update={"concurrency": concurrency})
    return config.model_copy(update=update) if update else config


def _claims(paths: list[Path] | None, config: Config) -> list[Claim]:
    return load_claims(paths or config.claim_paths)


def _guard(work: Callable[[], int]) -> int:
    """The one place run-level errors become a message, a hint and exit code 2."""
    try:
        return work()
    except ClaimcheckError as exc:
        _err(f"error: {exc}")
        if exc.hint:
            _err(f"hint: {exc.hint}")
        return int(ExitCode.BAD_INPUT)


@contextmanager
def _progress(enabled: bool) -> Iterator[ProgressCallback | None]:
    """A progress bar on stderr when it is a terminal; nothing otherwise."""
    if not enabled or not sys.stderr.isatty():
        yield None
        return
    console = Console(file=sys.stderr)
    with Progress(
        TextColumn("fetching"), BarColumn(), MofNCompleteColumn(), console=console, transient=True
    ) as bar:
        task = bar.add_task("fetch", total=None)

        def update(done: int, total: int) -> None:
            bar.update(task, completed=done, total=total)

        yield update


def _use_color(stream: object) -> bool:
    """Colour only on a terminal, and never when NO_COLOR is set (no-color.org)."""
    isatty = getattr(stream, "isatty", None)
    return bool(isatty and isatty()) and not os.environ.get("NO_COLOR")


def _err(message: str) -> None:
    sys.stderr.write(message + "\n")


def main() -> None:
    """Entry point of the `claimcheck` script."""
    app()
