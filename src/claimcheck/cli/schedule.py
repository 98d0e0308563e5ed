"""The `schedule` and `init` commands: nightly runs in a long-lived process, and their set-up.

`schedule` checks every input before it takes the lock and waits for the first fire
time, so a typo fails at start, not at 3 a.m.; each run then logs one line to stderr.
"""

from __future__ import annotations

import datetime as dt
import os
import sys
import threading
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import typer

from claimcheck.cli.guard import guard
from claimcheck.cli.inputs import build_config, parse_outputs, read_claims
from claimcheck.cli.options import ConfigOpt, FailOnOpt, OutputsOpt, PathsArg, SnapshotsOpt
from claimcheck.cli.verbosity import err, say

if TYPE_CHECKING:
    from claimcheck.config import Config

DEFAULT_CRON = "17 3 * * *"
"""The default of --cron: `nightly.cycle.DEFAULT_CRON` (a test holds them equal)."""


def register(app: typer.Typer) -> None:
    """Add the `schedule` and `init` commands to the claimcheck app."""
    app.command(name="schedule")(schedule)
    app.command(name="init")(init)


def schedule(
    paths: PathsArg = None,
    cron: Annotated[
        str,
        typer.Option(
            "--cron",
            metavar="EXPR",
            help="When to run: crontab's five fields (minute hour day month weekday).",
        ),
    ] = DEFAULT_CRON,
    timezone: Annotated[
        str, typer.Option("--timezone", metavar="NAME", help="IANA time zone of --cron.")
    ] = "UTC",
    jitter: Annotated[
        int,
        typer.Option(
            "--jitter", min=0, metavar="SECONDS", help="Start each run up to SECONDS late."
        ),
    ] = 0,
    outputs: OutputsOpt = None,
    fail_on: FailOnOpt = None,
    issues: Annotated[
        bool | None,
        typer.Option(
            "--issues/--no-issues",
            help="Keep one GitHub issue per claim to fix or review after each run, as "
            "`[issues]` says [default: when "
            "GITHUB_REPOSITORY and GITHUB_TOKEN are set].",
            show_default=False,
        ),
    ] = None,
    commit: Annotated[
        bool,
        typer.Option("--commit", help="Commit the changed snapshots to git after each run."),
    ] = False,
    once: Annotated[
        bool,
        typer.Option("--once", help="Run once now and exit with verify's exit code."),
    ] = False,
    config_path: ConfigOpt = None,
    snapshots: SnapshotsOpt = None,
) -> None:
    """Run verify nightly: fetch, store, judge, write the reports, sync issues, commit.

    A run missed while the process was down runs once at start-up. One run at a time
    per snapshots folder, also across processes. SIGTERM or SIGINT: no new work, the
    current run finishes (or is left before it stores anything), exit 0. One line per
    run on stderr. Claim files are read again for every run.

    Exit (with --once): as verify; 0 when stopped by a signal; 2: bad input, or
    another process holds the lock.
    """

    def work() -> int:
        from claimcheck.models import Verdict
        from claimcheck.nightly.cycle import CyclePlan, check_git, issue_repo, run_cycle, run_line
        from claimcheck.nightly.scheduler import cron_trigger, serve, stop_on_signals
        from claimcheck.store.lock import acquire_lock

        config = build_config(config_path, snapshots)
        plan = CyclePlan(
            outputs=tuple(parse_outputs(outputs or [])),
            fail_on=frozenset(Verdict(v) for v in fail_on or []),
            issue_repo=issue_repo(issues, os.environ.get("GITHUB_REPOSITORY"), config.github_token),
            commit=commit,
        )
        plain = cron_trigger(cron, timezone)
        trigger = cron_trigger(cron, timezone, jitter) if jitter else plain
        if not once:
            read_claims(paths, config)  # a bad claim file fails now, not at the first run
        if commit:
            check_git(config.snapshots_dir)
        stop = threading.Event()
        command = "claimcheck schedule" + (" --once" if once else "")
        with acquire_lock(config.snapshots_dir, command) as lock, stop_on_signals(stop):
            if lock.previous is not None:
                err(f"took over the lock left by {lock.previous.describe()}")

            def cycle() -> int:
                claims = read_claims(paths, config, makes_store=True)
                outcome = run_cycle(claims, config, plan, stop=stop)
                say(run_line(outcome))
                return outcome.exit_code

            if once:
                code = guard(cycle)
                return 0 if stop.is_set() else code
            catch_up = _catch_up(config, plain)
            _announce(plain, cron, timezone, jitter, catch_up)

            def job() -> None:
                guard(cycle)  # a bad claim file is logged with its hint; the schedule goes on

            serve(job, trigger, stop=stop, catch_up=catch_up)
            say("stopped")
            return 0

    raise typer.Exit(guard(work))


def _catch_up(config: Config, plain: object) -> bool:
    """Whether a time of the jitter-free trigger passed since the last completed run.

    Without jitter: a restart between 03:17:00 and a jittered 03:17:40 must still see
    that night's run as due.
    """
    from claimcheck.nightly.cycle import catch_up_due
    from claimcheck.nightly.scheduler import first_fire_after
    from claimcheck.store.state import load_state

    last = load_state(config.snapshots_dir).last_run
    due = first_fire_after(plain, last) if last else None
    return catch_up_due(last, due, dt.datetime.now(dt.UTC))


def _announce(plain: object, cron: str, timezone: str, jitter: int, catch_up: bool) -> None:
    from claimcheck.nightly.scheduler import first_fire_after

    upcoming = first_fire_after(plain, dt.datetime.now(dt.UTC))
    when = upcoming.isoformat(timespec="seconds") if upcoming else "never"
    late = f" (+ up to {jitter} s)" if jitter else ""
    now = "; a run is due since the last one: running it now" if catch_up else ""
    say(f"scheduled {cron!r} in {timezone}: next run {when}{late}{now}")


def init(
    folder: Annotated[
        Path,
        typer.Argument(
            metavar="FOLDER", help="The repository to set up.", show_default="the current folder"
        ),
    ] = Path(),
    force: Annotated[
        bool, typer.Option("--force", help="Overwrite files that are already there.")
    ] = False,
) -> None:
    """Set up a repository: claims/, snapshots/, claimcheck.toml and two GitHub workflows.

    The workflows are a nightly run (snapshots committed, issues kept, HTML report
    uploaded) and a pull-request gate. Exit 0: written; 2: a file is already there
    (nothing is written) or cannot be written.
    """

    def work() -> int:
        from claimcheck.nightly.init import write_project

        for path in write_project(folder, today=dt.datetime.now(dt.UTC).date(), force=force):
            sys.stdout.write(f"created {(folder / path).as_posix()}\n")
        say(
            "next: replace claims/example.yaml with your claims, run `claimcheck verify`, "
            "and commit claims/, snapshots/ and .github/"
        )
        return 0

    raise typer.Exit(guard(work))
