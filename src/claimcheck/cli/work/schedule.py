"""What `claimcheck schedule` does: check its inputs, take the lock, run verify nightly."""

from __future__ import annotations

import datetime as dt
import os
import threading
from pathlib import Path
from typing import TYPE_CHECKING

from claimcheck.cli.guard import guard
from claimcheck.cli.lazy import send_notification
from claimcheck.cli.options import FailOn
from claimcheck.cli.output import parse_outputs
from claimcheck.cli.project import build_config
from claimcheck.cli.selection import read_claims
from claimcheck.cli.verbosity import err, say
from claimcheck.models import Verdict
from claimcheck.nightly.cycle import (
    CyclePlan,
    catch_up_due,
    check_git,
    issue_repo,
    run_cycle,
    run_line,
)
from claimcheck.nightly.scheduler import cron_trigger, first_fire_after, serve, stop_on_signals
from claimcheck.store.lock import acquire_lock
from claimcheck.store.state import load_state

if TYPE_CHECKING:
    from claimcheck.config import Config


def schedule(
    *,
    paths: list[Path] | None,
    cron: str,
    timezone: str,
    jitter: int,
    outputs: list[str] | None,
    fail_on: list[FailOn] | None,
    issues: bool | None,
    commit: bool,
    once: bool,
    config_path: Path | None,
    snapshots: Path | None,
) -> int:
    """The work of `claimcheck schedule`, given its parsed options: its exit code."""
    config = build_config(config_path, snapshots)
    plan = CyclePlan(
        outputs=tuple(parse_outputs(outputs or [])),
        fail_on=frozenset(Verdict(v) for v in fail_on or []),
        issue_repo=issue_repo(issues, os.environ.get("GITHUB_REPOSITORY"), config.github_token),
        commit=commit,
        notify=send_notification,  # Apprise, imported when a first message is sent
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


def _catch_up(config: Config, plain: object) -> bool:
    """Whether a time of the jitter-free trigger passed since the last completed run.

    Without jitter: a restart between 03:17:00 and a jittered 03:17:40 must still see
    that night's run as due.
    """
    last = load_state(config.snapshots_dir).last_run
    due = first_fire_after(plain, last) if last else None
    return catch_up_due(last, due, dt.datetime.now(dt.UTC))


def _announce(plain: object, cron: str, timezone: str, jitter: int, catch_up: bool) -> None:
    upcoming = first_fire_after(plain, dt.datetime.now(dt.UTC))
    when = upcoming.isoformat(timespec="seconds") if upcoming else "never"
    late = f" (+ up to {jitter} s)" if jitter else ""
    now = "; a run is due since the last one: running it now" if catch_up else ""
    say(f"scheduled {cron!r} in {timezone}: next run {when}{late}{now}")
