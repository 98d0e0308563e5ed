"""APScheduler wiring for `claimcheck schedule`: the cron trigger, the scheduler, the signals.

No decisions are made here (they are in `nightly`): this module only turns them into
APScheduler 3 objects and keeps the process's main thread free to receive signals.
"""

from __future__ import annotations

import datetime as dt
import signal
import threading
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from types import FrameType
from typing import Any
from zoneinfo import ZoneInfo, ZoneInfoNotFoundError

from apscheduler.schedulers.background import (  # type: ignore[import-untyped]
    BackgroundScheduler,
)
from apscheduler.triggers.cron import CronTrigger  # type: ignore[import-untyped]

from claimcheck.errors import UsageError
from claimcheck.nightly.cycle import crontab_fields

JOB_ID = "claimcheck"
STOP_SIGNALS = (signal.SIGTERM, signal.SIGINT)


def cron_trigger(cron: str, timezone: str, jitter: int = 0) -> Any:
    """A CronTrigger from crontab fields in an IANA time zone; bad input is a usage error.

    So is an expression that never fires (`0 0 31 2 *`, the 31st of February): each
    field is valid alone, and the scheduler would run a catch-up once, then wait
    forever without a word. Five fields name no year, so one that fires at all fires
    again within a few years of any day: asking for its next time from now tells.
    """
    try:
        zone = ZoneInfo(timezone)
    except (ZoneInfoNotFoundError, ValueError) as exc:
        raise UsageError(
            f"--timezone {timezone!r}: no such time zone",
            hint="use an IANA name such as UTC or Europe/Berlin",
        ) from exc
    try:
        trigger = CronTrigger(**crontab_fields(cron), timezone=zone, jitter=jitter or None)
    except ValueError as exc:
        raise UsageError(f"--cron {cron!r}: {exc}") from exc
    if first_fire_after(trigger, dt.datetime.now(zone)) is None:
        raise UsageError(
            f"--cron {cron!r}: never fires: no date has that day of the month in those months",
            hint='for example --cron "17 3 * * *" runs at 03:17 every day',
        )
    return trigger


def first_fire_after(trigger: Any, when: dt.datetime) -> dt.datetime | None:
    """The trigger's first fire time at or after `when` (its jitter included, if any)."""
    fire: dt.datetime | None = trigger.get_next_fire_time(None, when)
    return fire


def serve(
    job: Callable[[], None],
    trigger: Any,
    *,
    stop: threading.Event,
    catch_up: bool,
    poll: float = 1.0,
) -> None:
    """Run `job` at the trigger's times until `stop` is set, then wait for a running job.

    One job, one instance at a time (`max_instances=1`); fire times missed while the
    process was busy or asleep collapse into one run (`coalesce`), however late
    (`misfire_grace_time=None`). A catch-up is the job's first run, set to now, so it
    is subject to the same rules and the trigger takes over after it.
    """
    scheduler = BackgroundScheduler(timezone=trigger.timezone)
    first: dict[str, dt.datetime] = {}
    if catch_up:
        first["next_run_time"] = dt.datetime.now(trigger.timezone)
    scheduler.add_job(
        job,
        trigger,
        id=JOB_ID,
        name="claimcheck run",
        coalesce=True,
        max_instances=1,
        misfire_grace_time=None,
        **first,
    )
    scheduler.start()
    try:
        while not stop.wait(poll):
            pass
    finally:
        scheduler.shutdown(wait=True)


@contextmanager
def stop_on_signals(stop: threading.Event) -> Iterator[None]:
    """SIGTERM and SIGINT set `stop`; after the first, a second one acts as it used to.

    The handler only sets an event (writing from it could re-enter a half-done write
    to stderr): the work in progress notices it at its next safe point. Restoring the
    previous handlers lets an impatient second Ctrl-C or SIGTERM end the process at
    once (every store write is atomic, so even that leaves the store whole).
    """
    previous = {sig: signal.getsignal(sig) for sig in STOP_SIGNALS}

    def handle(_signum: int, _frame: FrameType | None) -> None:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
        stop.set()

    for sig in STOP_SIGNALS:
        signal.signal(sig, handle)
    try:
        yield
    finally:
        for sig, handler in previous.items():
            signal.signal(sig, handler)
