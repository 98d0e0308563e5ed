"""The scheduler for real: APScheduler fires, a missed run is caught up once, signals stop cleanly.

In-process tests drive `schedule.serve` with real triggers and bounded waits; the
end-to-end tests start `python -m claimcheck schedule` against the replay server and
stop it with real signals, then read the snapshot store the way the next run will.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest
from apscheduler.triggers.cron import CronTrigger  # type: ignore[import-untyped]
from typer.testing import CliRunner

from claimcheck.claims.load import load_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.cli.app import app
from claimcheck.config import load_config
from claimcheck.errors import UsageError
from claimcheck.nightly.cycle import CyclePlan, run_cycle
from claimcheck.nightly.scheduler import cron_trigger, first_fire_after, serve, stop_on_signals
from claimcheck.store.index import INDEX
from claimcheck.store.lock import LOCK_FILE
from claimcheck.store.state import RunState, load_state, save_state
from claimcheck.store.store import Store
from support.claim_files import (
    FEB_15,
    MAR_15,
    PAGE_HTML,
    QUOTE_FEB,
    claim,
    write_claims,
    write_fast_config,
)
from support.replay_server import ReplayServer

UTC = dt.UTC
SATURDAY = dt.datetime(2026, 11, 28, 12, 0, tzinfo=UTC)
RUN_LINE = re.compile(r"^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\dZ run")

# -- the trigger -----------------------------------------------------------------------


def fire_times(trigger: CronTrigger, start: dt.datetime, count: int) -> list[dt.datetime]:
    times, when = [], start
    for _ in range(count):
        fire = first_fire_after(trigger, when)
        assert fire is not None
        times.append(fire)
        when = fire + dt.timedelta(seconds=1)
    return times


def test_crontab_weekdays_fire_on_the_days_crontab_means() -> None:
    """`1-5` is Monday to Friday, as in crontab (APScheduler 3 alone reads Tuesday-Saturday)."""
    fires = fire_times(cron_trigger("17 3 * * 1-5", "UTC"), SATURDAY, 5)

    assert [f.strftime("%a") for f in fires] == ["Mon", "Tue", "Wed", "Thu", "Fri"]
    assert {(f.hour, f.minute) for f in fires} == {(3, 17)}


def test_the_time_zone_is_the_cron_s() -> None:
    (fire,) = fire_times(cron_trigger("17 3 * * *", "Europe/Berlin"), SATURDAY, 1)

    assert fire.astimezone(UTC).time() == dt.time(2, 17)  # CET is UTC+1 in November


@pytest.mark.parametrize(
    ("cron", "zone", "problem"),
    [
        ("61 3 * * *", "UTC", "--cron"),
        ("17 3 * *", "UTC", "5 fields"),
        ("17 3 * * *", "Mars/Olympus", "no such time zone"),
        ("17 3 * * *", "../etc/passwd", "no such time zone"),
        ("0 0 31 2 *", "UTC", "'0 0 31 2 \\*': never fires"),
        ("0 0 30 2 *", "Europe/Berlin", "never fires"),
        ("0 12 31 4,6,9,11 *", "UTC", "never fires"),
    ],
    ids=[
        "minute-61",
        "four-fields",
        "unknown-zone",
        "path-as-zone",
        "31-february",
        "30-february",
        "31st-of-30-day-months",
    ],
)
def test_bad_cron_or_time_zone_is_a_usage_error(cron: str, zone: str, problem: str) -> None:
    with pytest.raises(UsageError, match=problem):
        cron_trigger(cron, zone)


def test_a_day_that_only_some_years_have_is_a_day_it_fires() -> None:
    """29 February fires in leap years, the 31st in the months that have one."""
    (leap,) = fire_times(cron_trigger("0 0 29 2 *", "UTC"), SATURDAY, 1)
    long_months = fire_times(cron_trigger("0 0 31 */2 *", "UTC", jitter=5), SATURDAY, 2)

    assert leap.date() == dt.date(2028, 2, 29)
    assert [f.date() for f in long_months] == [dt.date(2027, 1, 31), dt.date(2027, 3, 31)]


def test_jitter_delays_a_fire_time_by_at_most_its_seconds() -> None:
    plain = first_fire_after(cron_trigger("17 3 * * *", "UTC"), SATURDAY)
    jittered = first_fire_after(cron_trigger("17 3 * * *", "UTC", jitter=60), SATURDAY)

    assert plain is not None
    assert jittered is not None
    assert plain <= jittered <= plain + dt.timedelta(seconds=60)


# -- serve: the real scheduler ---------------------------------------------------------


def every_second() -> CronTrigger:
    return CronTrigger(second="*", timezone=UTC)


def serve_until(
    job: Callable[[], None],
    trigger: CronTrigger,
    done: Callable[[], bool],
    *,
    catch_up: bool = False,
    timeout: float = 5.0,
) -> float:
    """Serve until `done()` (or the timeout); how long it took."""
    stop = threading.Event()
    started = time.monotonic()

    def watch() -> None:
        while not done() and time.monotonic() - started < timeout:
            time.sleep(0.02)
        stop.set()

    watcher = threading.Thread(target=watch)
    watcher.start()
    serve(job, trigger, stop=stop, catch_up=catch_up, poll=0.02)
    watcher.join()
    return time.monotonic() - started


def test_the_scheduler_really_fires_on_its_trigger() -> None:
    fired: list[float] = []

    took = serve_until(
        lambda: fired.append(time.monotonic()), every_second(), lambda: len(fired) >= 2
    )

    assert len(fired) >= 2
    assert took < 4
    assert 0.5 < fired[1] - fired[0] < 1.5


def test_a_catch_up_runs_once_at_start_then_the_trigger_takes_over() -> None:
    """A daily trigger that cannot fire during the test: only the catch-up runs, once."""
    runs: list[float] = []
    nightly = cron_trigger("17 3 * * *", "UTC")
    started = time.monotonic()

    serve_until(lambda: runs.append(time.monotonic()), nightly, lambda: len(runs) > 1,
                catch_up=True, timeout=1.5)  # fmt: skip

    assert len(runs) == 1
    assert runs[0] - started < 1.0


def test_without_a_catch_up_nothing_runs_before_the_trigger_fires() -> None:
    runs: list[float] = []

    serve_until(lambda: runs.append(1.0), cron_trigger("17 3 * * *", "UTC"), lambda: False,
                timeout=0.5)  # fmt: skip

    assert runs == []


def test_never_two_runs_at_once_and_stop_waits_for_the_running_one() -> None:
    """A run longer than the trigger's period: later fire times are skipped, not stacked."""
    active, peak, finished = [0], [0], []
    lock = threading.Lock()

    def slow() -> None:
        with lock:
            active[0] += 1
            peak[0] = max(peak[0], active[0])
        time.sleep(1.3)
        with lock:
            active[0] -= 1
        finished.append(time.monotonic())

    stop_asked = [0.0]

    def asked() -> bool:
        if finished or active[0]:
            stop_asked[0] = stop_asked[0] or time.monotonic()
            return True
        return False

    serve_until(slow, every_second(), asked)

    assert peak[0] == 1
    assert len(finished) == 1  # serve returned only after the running job finished
    assert finished[0] >= stop_asked[0]


def test_the_first_signal_sets_stop_and_restores_the_previous_handlers() -> None:
    stop = threading.Event()
    before = signal.getsignal(signal.SIGTERM)
    calls: list[int] = []
    signal.signal(signal.SIGTERM, lambda signum, _frame: calls.append(signum))
    try:
        with stop_on_signals(stop):
            signal.raise_signal(signal.SIGTERM)
            assert stop.is_set()
            assert calls == []  # ours handled it
            signal.raise_signal(signal.SIGTERM)  # the second goes where it used to
            assert calls == [signal.SIGTERM]
    finally:
        signal.signal(signal.SIGTERM, before)


# -- end to end: `python -m claimcheck schedule` in its own process --------------------


class Process:
    """A claimcheck process whose stderr lines are read as they come."""

    def __init__(self, args: list[str], cwd: Path, env: dict[str, str]) -> None:
        self.popen = subprocess.Popen(
            [sys.executable, "-m", "claimcheck", *args],
            cwd=cwd,
            env=env,
            stdout=subprocess.DEVNULL,
            stderr=subprocess.PIPE,
            text=True,
        )
        self.lines: list[str] = []
        self._queue: queue.Queue[str | None] = queue.Queue()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        assert self.popen.stderr is not None
        for line in self.popen.stderr:
            self._queue.put(line.rstrip("\n"))
        self._queue.put(None)

    def wait_for(self, pattern: str, timeout: float = 20.0) -> str:
        """The first new stderr line matching `pattern`; fails after `timeout`."""
        deadline = time.monotonic() + timeout
        while (left := deadline - time.monotonic()) > 0:
            try:
                line = self._queue.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.lines.append(line)
            if re.search(pattern, line):
                return line
        pytest.fail(f"no line matching {pattern!r}; stderr so far:\n" + "\n".join(self.lines))

    def stop(self, sig: signal.Signals = signal.SIGTERM, timeout: float = 20.0) -> int:
        """Send `sig`, wait for the exit, collect the rest of stderr; the exit code."""
        self.popen.send_signal(sig)
        code = self.popen.wait(timeout=timeout)
        self._reader.join(timeout=5)
        while (line := self._queue.get_nowait() if not self._queue.empty() else None) is not None:
            self.lines.append(line)
        assert self.popen.stderr is not None
        self.popen.stderr.close()
        return code

    def kill(self) -> None:
        if self.popen.poll() is None:
            self.popen.kill()
            self.popen.wait(timeout=10)
        if self.popen.stderr is not None:
            self.popen.stderr.close()


@pytest.fixture
def project(tmp_path: Path, replay: ReplayServer) -> Path:
    """Claims of llama.cpp's README and of one web page, all served by the replay server."""
    write_fast_config(tmp_path)
    replay.set_page("/docs/page.html", PAGE_HTML)
    entries = [
        claim(quote=QUOTE_FEB),
        claim("page", source=f"{replay.base_url}/docs/page.html"),
    ]
    write_claims(tmp_path / "claims", entries, checked="2024-02-15")
    return tmp_path


@pytest.fixture
def spawn(project: Path, replay: ReplayServer) -> Iterator[Callable[..., Process]]:
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.upper().endswith("_PROXY") and not key.startswith("GITHUB_")
    }
    env.update(GITHUB_API_URL=replay.base_url, WAYBACK_URL=replay.base_url, NO_COLOR="1")
    started: list[Process] = []

    def start(*args: str) -> Process:
        process = Process(["schedule", "--no-issues", *args], project, env)
        started.append(process)
        return process

    yield start
    for process in started:
        process.kill()


def earlier_night(project: Path, replay: ReplayServer) -> None:
    """A completed night, run in this process (no need to pay for a process start)."""
    config = load_config(project / "claimcheck.toml", env={"GITHUB_API_URL": replay.base_url})
    config = config.model_copy(update={"wayback_url": replay.base_url})
    outcome = run_cycle(load_claims(config.claim_paths, read=read_document), config, CyclePlan())
    assert outcome.exit_code == 0, outcome


def run_lines(process: Process) -> list[str]:
    return [line for line in process.lines if RUN_LINE.match(line)]


def assert_store_is_whole(snapshots: Path) -> None:
    """What the next run reads: every index parses, names files that exist; no temp files."""
    indexes = list(snapshots.rglob(INDEX))
    store = Store(snapshots)
    for index in indexes:
        document = json.loads(index.read_text(encoding="utf-8"))
        for version in document["versions"]:
            assert (index.parent / version["file"]).is_file(), (index, version["file"])
        assert store.versions(index.parent.relative_to(snapshots).as_posix())
    assert not [p for p in snapshots.rglob(".tmp-*")]
    load_state(snapshots)  # parses, or raises
    assert not (snapshots / LOCK_FILE).exists()


def test_a_cron_that_never_fires_is_refused_at_start_not_served_forever(
    project: Path, replay: ReplayServer, spawn: Callable[..., Process]
) -> None:
    """31 February: it said `next run never`, ran the catch-up once, then waited forever."""
    process = spawn("--cron", "0 0 31 2 *")

    line = process.wait_for("never fires")
    code = process.popen.wait(timeout=20)

    assert code == 2, "\n".join(process.lines)
    assert line == (
        "error: --cron '0 0 31 2 *': never fires: no date has that day of the month in those months"
    )
    assert replay.requests == []
    assert not (project / "snapshots").exists()


def test_a_missed_run_is_caught_up_once_at_start_and_not_again_after_a_restart(
    project: Path, replay: ReplayServer, spawn: Callable[..., Process]
) -> None:
    replay.as_of = FEB_15
    three_nights_ago = dt.datetime.now(UTC) - dt.timedelta(days=3)
    save_state(project / "snapshots", RunState(last_run=three_nights_ago))

    first = spawn("--cron", "17 3 * * *")
    first.wait_for(r"^scheduled '17 3 \* \* \*' in UTC: next run .*running it now$")
    first.wait_for(RUN_LINE.pattern)
    time.sleep(0.5)  # a second run would have started by now
    assert first.stop() == 0, "\n".join(first.lines)

    assert len(run_lines(first)) == 1, first.lines
    assert "run: 2 claims: 2 verified;" in run_lines(first)[0]
    assert first.lines[-1] == "stopped"
    last_run = load_state(project / "snapshots").last_run
    assert last_run is not None
    assert last_run > three_nights_ago + dt.timedelta(days=2)

    second = spawn("--cron", "17 3 * * *")
    announced = second.wait_for(r"^scheduled ")
    assert "running it now" not in announced
    time.sleep(0.5)
    assert second.stop() == 0
    assert run_lines(second) == []
    assert load_state(project / "snapshots").last_run == last_run


@pytest.mark.parametrize(
    ("args", "sig"),
    [(["--once"], signal.SIGTERM), ([], signal.SIGINT)],
    ids=["once-sigterm", "scheduler-sigint"],
)
def test_a_signal_in_the_middle_of_a_run_exits_0_and_leaves_the_store_whole(
    project: Path,
    replay: ReplayServer,
    spawn: Callable[..., Process],
    args: list[str],
    sig: signal.Signals,
) -> None:
    """A night that would store new snapshots is stopped while a page makes it wait."""
    replay.as_of = FEB_15
    earlier_night(project, replay)
    if "--once" not in args:  # the scheduler's run is the catch-up of a missed night
        earlier = load_state(project / "snapshots").last_run
        assert earlier is not None
        missed = earlier - dt.timedelta(days=2)
        save_state(
            project / "snapshots",
            load_state(project / "snapshots").model_copy(update={"last_run": missed}),
        )
    before = load_state(project / "snapshots")
    replay.as_of = MAR_15  # the README changed since: this night would store it
    replay.fail("/docs/page.html", status=503, times=1, headers={"Retry-After": "1"})
    flaky = [r for r in replay.requests if r.path == "/docs/page.html"]

    night = spawn("--output", "json=report.json", *args)
    deadline = time.monotonic() + 20
    while len([r for r in replay.requests if r.path == "/docs/page.html"]) == len(flaky):
        assert time.monotonic() < deadline, "the run never reached the page"
        time.sleep(0.02)
    code = night.stop(sig)

    assert code == 0, "\n".join(night.lines)
    assert any("run abandoned after" in line for line in night.lines), night.lines
    assert not [line for line in night.lines if "Traceback" in line or "Warning" in line]
    snapshots = project / "snapshots"
    assert_store_is_whole(snapshots)
    assert load_state(snapshots) == before  # the abandoned night recorded nothing
    assert len(list(snapshots.rglob("*.md"))) == 1  # the February README only
    assert not (project / "report.json").exists()


# -- the command, in this process ------------------------------------------------------


@pytest.fixture
def here(project: Path, replay: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project as the current folder, its sources on the replay server."""
    monkeypatch.chdir(project)
    for name in [n for n in os.environ if n.startswith("GITHUB_") or n.upper().endswith("_PROXY")]:
        monkeypatch.delenv(name)
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    return project


def test_once_runs_one_cycle_logs_one_line_and_exits_with_verify_s_code(
    here: Path, replay: ReplayServer
) -> None:
    replay.as_of = MAR_15  # QUOTE_FEB was reworded: drifted, exit 1

    result = CliRunner().invoke(
        app, ["schedule", "--once", "--output", "json=report.json"], catch_exceptions=False
    )

    assert result.exit_code == 1, result.stderr
    (line,) = result.stderr.splitlines()
    assert RUN_LINE.match(line)
    assert "2 claims: 1 verified, 1 drifted;" in line
    assert line.endswith("; exit 1")
    assert json.loads((here / "report.json").read_text())["exit_code"] == 1
    assert not (here / "snapshots" / LOCK_FILE).exists()


@pytest.mark.parametrize(
    ("args", "problem"),
    [
        (["--cron", "17 3 * * 1 2"], "expected 5 fields"),
        (["--timezone", "Europe/Atlantis"], "no such time zone"),
        (["--issues"], "GITHUB_REPOSITORY"),
        (["--commit"], "git rev-parse failed"),
        (["--output", "pdf=report.pdf"], "expected FORMAT=PATH"),
        (["--cron", "0 0 31 2 *"], "never fires"),
    ],
    ids=["cron", "timezone", "issues-unconfigured", "commit-outside-git", "output", "never"],
)
def test_bad_options_fail_at_start_before_any_fetch(
    here: Path, replay: ReplayServer, args: list[str], problem: str
) -> None:
    result = CliRunner().invoke(app, ["schedule", "--once", *args], catch_exceptions=False)

    assert result.exit_code == 2
    assert problem in result.stderr
    assert replay.requests == []
