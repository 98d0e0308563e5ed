"""One nightly cycle (verify, reports, issues, commit) and the pure decisions around it.

The decisions (is a run owed at start-up, which cron fields, whether to sync issues,
what the commit and log lines say) take plain values and do no I/O, so they are
tested as tables; `run_cycle` is the thin I/O part that both `schedule` and
`schedule --once` call, so a cron user and a daemon user get the same night.
"""

from __future__ import annotations

import datetime as dt
import os
import shutil
import subprocess
import sys
import threading
import time
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from claimcheck.config import Config
from claimcheck.errors import ClaimcheckError, RunStopped, UsageError
from claimcheck.github.apply import sync_issues, sync_settings
from claimcheck.github.issues import GitHubIssues, GitHubUnavailableError
from claimcheck.models import Claim, ExitCode, Report, Verdict
from claimcheck.notify.message import run_links
from claimcheck.notify.run import Send, configured, notify_results
from claimcheck.observe.archive import archive_sources, sources_of
from claimcheck.observe.drift import newly_drifted
from claimcheck.observe.online import ONLINE
from claimcheck.observe.stats import ProgressCallback
from claimcheck.pipeline import run_verify
from claimcheck.report.build import exit_code, summary_line
from claimcheck.report.formats import OutputFormat
from claimcheck.report.write import write_outputs
from claimcheck.store.files import TEMP_PREFIX, remove_stale_temp_files
from claimcheck.store.lock import LOCK_FILE
from claimcheck.store.state import STATE_FILE, load_state, record_last_run
from claimcheck.untrusted import clean_text
from claimcheck.wording import counted

DEFAULT_CRON = "17 3 * * *"
_CRON_NAMES = ("minute", "hour", "day", "month", "day_of_week")
_WEEKDAYS = ("sun", "mon", "tue", "wed", "thu", "fri", "sat")
_METADATA = frozenset({"index.json", STATE_FILE, ".gitkeep", ".gitignore"})
_TEMP = f"**/{TEMP_PREFIX}*"
"""Every temporary file of the store, at any depth (git pathspec)."""

# -- pure decisions ---------------------------------------------------------------------


def catch_up_due(last_run: dt.datetime | None, due: dt.datetime | None, now: dt.datetime) -> bool:
    """Whether a run is owed at start-up: one was due since the last completed run.

    `due` is the first scheduled time after `last_run` (without jitter). However many
    were missed, this says yes once, and the run it starts moves `last_run` past them:
    a restart right after does not run again. No run on record counts as owed.
    """
    if last_run is None:
        return True
    return due is not None and due <= now


def crontab_fields(expr: str) -> dict[str, str]:
    """The five crontab fields as APScheduler 3's CronTrigger arguments.

    APScheduler 3 numbers weekdays from Monday = 0 where crontab has Sunday = 0 (its
    issue #286), so `1-5` would silently mean Tuesday to Saturday: weekday numbers and
    names are turned into explicit names here. Crontab runs when either restricted
    day field matches, APScheduler when both do; rather than guess, that is refused.
    """
    values = expr.split()
    if len(values) != len(_CRON_NAMES):
        raise UsageError(
            f"--cron {expr!r}: expected 5 fields (minute hour day month weekday), "
            f"got {len(values)}",
            hint='for example --cron "17 3 * * *" runs at 03:17 every day',
        )
    fields = dict(zip(_CRON_NAMES, values, strict=True))
    if fields["day"] != "*" and fields["day_of_week"] != "*":
        raise UsageError(
            f"--cron {expr!r}: restrict the day of month or the weekday, not both",
            hint="crontab and APScheduler disagree on what both would mean",
        )
    fields["day_of_week"] = _weekday_names(fields["day_of_week"], expr)
    return fields


def _weekday_names(field: str, expr: str) -> str:
    if field == "*":
        return field
    days: set[int] = set()
    for item in field.split(","):
        span, _, step_text = item.partition("/")
        low, _, high = span.partition("-")
        try:
            first, last = (0, 6) if span == "*" else (_weekday(low), _weekday(high or low))
            step = int(step_text) if step_text else 1
        except ValueError:
            first = last = step = -1
        if first < 0 or step < 1 or (high and last < first):
            raise UsageError(f"--cron {expr!r}: bad weekday {item!r} (0-7 or sun-sat)")
        if step_text and not high and span != "*":
            last = 6  # crontab's `a/n` means from a to the end of the week
        days.update(day % 7 for day in range(first, last + 1, step))
    if not days:
        raise UsageError(f"--cron {expr!r}: the weekday field {field!r} names no day")
    return ",".join(_WEEKDAYS[day] for day in sorted(days, key=lambda d: (d - 1) % 7))


def _weekday(text: str) -> int:
    name = text.lower()
    if name in _WEEKDAYS:
        return _WEEKDAYS.index(name)
    number = int(text)
    if not 0 <= number <= 7:
        raise ValueError(text)
    return number  # 7 is Sunday too; `% 7` folds it


def issue_repo(wanted: bool | None, repo: str | None, token: str | None) -> str | None:
    """The repository whose issues each run syncs, or None to sync none.

    `wanted` None syncs when both the repository and the token are configured; True
    insists (a missing one is a usage error, caught before the first run).
    """
    if wanted is False or (wanted is None and not (repo and token)):
        return None
    if not repo or repo.count("/") != 1 or repo.startswith("/") or repo.endswith("/"):
        raise UsageError(f"--issues needs GITHUB_REPOSITORY as OWNER/NAME, not {repo!r}")
    if not token:
        raise UsageError("--issues needs GITHUB_TOKEN with `issues: write`")
    return repo


def commit_message(changes: Sequence[tuple[str, str]], summary: str) -> str:
    """A commit message counting what changed in the snapshots folder.

    `changes` are git's (status, path) pairs relative to the folder; a new file other
    than an index or the state is a new snapshot, unless a file of its name went from
    another folder in the same commit: the store moved an old-style folder's versions
    (`Store._move_legacy`), and a folder whose files all went is no source of the run.
    """
    gone = {PurePosixPath(p).name for status, p in changes if status == "D"}
    new = sum(
        1
        for status, path in changes
        if status == "A" and _is_body(path) and PurePosixPath(path).name not in gone
    )
    sources = sorted(
        {str(PurePosixPath(p).parent) for status, p in changes if "/" in p and status != "D"}
    )
    if new:
        subject = f"claimcheck: {counted(new, 'new snapshot')} of {counted(len(sources), 'source')}"
    elif sources:
        subject = f"claimcheck: snapshot records of {counted(len(sources), 'source')} updated"
    else:
        subject = "claimcheck: run state updated"
    listed = [f"- {source}" for source in sources[:50]]
    if len(sources) > 50:
        listed.append(f"- … and {len(sources) - 50} more")
    return "\n".join([subject, "", summary, *(["", *listed] if listed else [])]) + "\n"


def _is_body(path: str) -> bool:
    return PurePosixPath(path).name not in _METADATA


# -- one cycle --------------------------------------------------------------------------


@dataclass(frozen=True)
class CyclePlan:
    """What every run of a schedule does besides verifying.

    `notify`: how a notification is sent (`notify.run.Send`; the command line's sends
    through Apprise); each run notifies when a route is configured (`[notify]` routes
    or `CLAIMCHECK_NOTIFY` in the environment). None: never.
    """

    outputs: tuple[tuple[OutputFormat, Path], ...] = ()
    fail_on: frozenset[Verdict] = frozenset()
    issue_repo: str | None = None
    commit: bool = False
    notify: Send | None = None


@dataclass(frozen=True)
class CycleOutcome:
    """What one run did, for its log line and `--once`'s exit code."""

    started: dt.datetime
    seconds: float
    exit_code: int = 0
    summary: str = ""
    requests: int = 0
    history_requests: int = 0
    new_snapshots: int = 0
    issues: str | None = None
    notified: str | None = None
    commit: str | None = None
    captures: str | None = None
    abandoned: bool = False


def run_line(outcome: CycleOutcome) -> str:
    """The one log line of a run: when, verdict counts, the sources' requests and the
    history look-ups (apart, as the run's summary counts them), duration, the rest."""
    when = outcome.started.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
    took = f"{outcome.seconds:.1f} s"
    if outcome.abandoned:
        return f"{when} run abandoned after {took}: stopping, nothing stored"
    parts = [
        outcome.summary,
        f"{counted(outcome.requests, 'request')}, "
        f"{counted(outcome.history_requests, 'history look-up')}, "
        f"{counted(outcome.new_snapshots, 'new snapshot')}, {took}",
        *(p for p in (outcome.captures, outcome.issues, outcome.notified, outcome.commit) if p),
        f"exit {outcome.exit_code}",
    ]
    return f"{when} run: " + "; ".join(parts)


class _StoppingError(RunStopped):
    """Raised from the progress callback to leave a run; it keeps nothing it stored."""


IssuesClient = Callable[..., GitHubIssues]


def run_cycle(
    claims: Sequence[Claim],
    config: Config,
    plan: CyclePlan,
    *,
    stop: threading.Event | None = None,
    issues_client: IssuesClient = GitHubIssues,
) -> CycleOutcome:
    """Verify online, write the reports, then sync issues, notify and commit unless stopping.

    A stop request during fetching abandons the run at the next finished fetch, and the
    run keeps no snapshot: those of sources whose answers came earlier are undone
    (`Store.batch`), so an abandoned night stores nothing.
    After that the run finishes its reports but starts no issue sync, notification or
    commit, which the next run does with the same data.
    """
    stop = stop or threading.Event()
    started, clock = dt.datetime.now(dt.UTC), time.monotonic()
    if stop.is_set():
        return CycleOutcome(started, 0.0, abandoned=True)
    remove_stale_temp_files(config.snapshots_dir, before=started)  # a killed night's debris
    before = load_state(config.snapshots_dir) if "drift" in config.archive.on else None
    try:
        report, stats = run_verify(claims, config, online=ONLINE, on_progress=_checker(stop))
    except _StoppingError:
        return CycleOutcome(started, time.monotonic() - clock, abandoned=True)
    captures = None
    if before is not None and not stop.is_set():
        captures, written = _capture_drifted(newly_drifted(report, before), config)
        stats.stored_files = [*stats.stored_files, *written]
    record_last_run(config.snapshots_dir, report.generated_at)
    write_outputs(report, list(plan.outputs))
    issues = notified = commit = None
    numbers: dict[str, int] = {}
    if plan.issue_repo:
        issues = (
            "issues skipped (stopping)"
            if stop.is_set()
            else _sync(report, config, plan.issue_repo, issues_client, claims, numbers)
        )
    stored = list(stats.stored_files)
    if plan.notify is not None and configured(config, os.environ):
        if stop.is_set():
            notified = "notifying skipped (stopping)"
        else:
            notified = _notify(report, config, plan.notify, numbers)
            stored.append(config.snapshots_dir / STATE_FILE)  # what each route was told
    if plan.commit:
        commit = "commit skipped (stopping)" if stop.is_set() else _commit(config, report, stored)
    return CycleOutcome(
        started=started,
        seconds=time.monotonic() - clock,
        exit_code=int(exit_code(report, fail_on=plan.fail_on)),
        summary=summary_line(report),
        requests=stats.requests,
        history_requests=stats.history_requests,
        new_snapshots=stats.new_snapshots,
        issues=issues,
        notified=notified,
        commit=commit,
        captures=captures,
    )


_STOPPABLE = frozenset({"fetching", "fetching and reading history", "reading history"})
"""The phases a stop leaves the run in: those of the store's batch, which a stop undoes.
Once they are over, the snapshots are stored and the run writes its reports."""


def _checker(stop: threading.Event) -> ProgressCallback:
    def check(phase: str, _done: int, _total: int) -> None:
        if stop.is_set() and phase in _STOPPABLE:
            raise _StoppingError

    return check


def _notify(report: Report, config: Config, send: Send, issues: dict[str, int]) -> str:
    """Tell the routes of the night's transitions; the run line's words on it.

    Each route that fails is a line on stderr (naming the route and its variable,
    never a URL) and is told again the next night; nothing here changes the exit code.
    """
    try:
        done = notify_results(
            report.results,
            config,
            send=send,
            env=os.environ,
            links=run_links(os.environ, issues),
            say=lambda line: print(line, file=sys.stderr, flush=True),
        )
    except ClaimcheckError as exc:
        return f"notifying failed: {exc}"
    return done.line()


def _sync(
    report: Report,
    config: Config,
    repo: str,
    issues_client: IssuesClient,
    claims: Sequence[Claim],
    numbers: dict[str, int],
) -> str:
    """Sync the issues; what it says goes into the run's line, a failure too.

    Each action goes to stdout (kept: a record of what was filed); the notes and the
    summary are gathered into the run's one log line. Only the claims the run read are
    acted on, and at most `[issues] max_new` issues are created: past the cap, the
    next night creates the next ones (not a failure).
    """
    if not report.results:
        return "issues skipped (no claims)"
    said: list[str] = []
    try:
        sources = load_state(config.snapshots_dir).sources
        client = issues_client(
            config.github_api_url, repo, config.github_token, user_agent=config.fetch.user_agent
        )
        with client:
            code = sync_issues(
                client,
                report.results,
                sources,
                sync_settings(config.issues),
                dry_run=False,
                record=lambda line: print(line, flush=True),
                note=said.append,
                claimed=frozenset(claim.id for claim in claims),
                filed=numbers.__setitem__,
            )
    except (ClaimcheckError, GitHubUnavailableError) as exc:
        return f"issues failed: {exc}"
    summary = "; ".join(line for line in said if line)
    if code in (ExitCode.OK, ExitCode.CAPPED):
        return f"issues: {summary}"
    return f"issues failed (exit {code}): {summary}"


class CommitError(ClaimcheckError):
    """git could not commit the snapshots."""

    hint = "the snapshots folder must be in a git work tree with user.name and user.email set"


def check_git(folder: Path) -> None:
    """Fail before the first run, not at 3 a.m., when --commit cannot work."""
    folder.mkdir(parents=True, exist_ok=True)
    _git(folder, "rev-parse", "--is-inside-work-tree")


def _capture_drifted(drifted: Sequence[Claim], config: Config) -> tuple[str | None, list[Path]]:
    """`[archive] on = ["drift"]`: the sources of the claims that drifted tonight captured;
    the log line's part and the index files the captures changed (to commit). A failure
    is said in the line and changes nothing else."""
    if not drifted:
        return None, []
    try:
        done, written = archive_sources(sources_of(drifted), config)
    except ClaimcheckError as exc:
        return f"no capture of drifted sources: {clean_text(str(exc))}", []
    made = sum(1 for one in done if one.copy is not None)
    return f"{made} of {counted(len(done), 'drifted source')} captured", written


def _commit(config: Config, report: Report, files: Sequence[Path]) -> str:
    try:
        return commit_snapshots(config.snapshots_dir, summary_line(report), files)
    except ClaimcheckError as exc:
        return f"commit failed: {exc}"


def commit_snapshots(folder: Path, summary: str, files: Iterable[Path]) -> str:
    """Commit the files a run wrote or removed in the snapshots folder, by name; what
    was done.

    `files` are the run's (`RunStats.stored_files`): each is staged by its own name,
    never the folder as a whole, so nothing else in it (a file a person or another
    program put there) and nothing outside it goes into claimcheck's commit, and the
    commit takes only those paths (`--only`), leaving whatever else the user has
    staged out of it. A file the folder's .gitignore ignores stays out, as `git add`
    leaves it; temporary files (`.tmp-*`, a killed write's debris) and the run lock
    are never named, and any temporary file an older claimcheck committed is taken out.
    """
    names = _names_in(folder, files)
    if names:
        ignored = set(_git(folder, "check-ignore", "-z", "--stdin", stdin=_nul(names), ok=(0, 1)))
        names = [name for name in names if name not in ignored]
    if names:  # added, updated or (gone from the folder) removed, as each is now
        _git(folder, "update-index", "--add", "--remove", "-z", "--stdin", stdin=_nul(names))
    temp = f":(glob){_TEMP}"
    committed_temp = _git(folder, "ls-files", "-z", "--", temp)
    if committed_temp:
        _git(folder, "rm", "-r", "--cached", "--quiet", "--ignore-unmatch", "--", temp)
    ours = {*names, *committed_temp}
    listed = _git(folder, "diff", "--cached", "--name-status", "--relative", "--no-renames", "-z")
    changes = [
        (status[:1], path)
        for status, path in zip(listed[::2], listed[1::2], strict=True)
        if path in ours
    ]
    if not changes:
        return "nothing to commit"
    message = commit_message(changes, summary)
    _git(
        folder,
        "commit",
        "--quiet",
        "--only",
        f"--message={message}",
        "--pathspec-from-file=-",
        "--pathspec-file-nul",
        stdin=_nul([path for _, path in changes]),
        literal=True,
    )
    return f"committed {message.splitlines()[0]!r}"


def _names_in(folder: Path, files: Iterable[Path]) -> list[str]:
    """`files` as POSIX paths from `folder`, each once: those inside it alone, and never
    a temporary file or the run lock."""
    top = folder.resolve()
    names: dict[str, None] = {}
    for file in files:
        path = Path(os.path.abspath(file))
        path = path.parent.resolve() / path.name  # the file itself, if a link, not followed
        if path.is_relative_to(top) and path != top:
            name = path.relative_to(top).as_posix()
            if not path.name.startswith(TEMP_PREFIX) and path.name != LOCK_FILE:
                names[name] = None
    return list(names)


def _nul(names: Sequence[str]) -> str:
    return "".join(f"{name}\0" for name in names)


def _git(
    folder: Path,
    *args: str,
    stdin: str | None = None,
    ok: tuple[int, ...] = (0,),
    literal: bool = False,
) -> list[str]:
    """Run git in `folder`; its output's lines, or its NUL-separated fields when `-z`
    is among `args`. `literal`: pathspecs are names, no glob or magic in them."""
    git = shutil.which("git")
    if git is None:
        raise CommitError("git is not installed")
    done = subprocess.run(  # noqa: S603 - fixed git arguments, no shell
        [git, *(["--literal-pathspecs"] if literal else []), "-C", str(folder), *args],
        input=stdin,
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode not in ok:
        said = (done.stderr or done.stdout).strip().splitlines()
        # git's error, not its advice: its "hint:" lines come after what went wrong.
        problem = [line for line in said if not line.startswith("hint:")] or said
        raise CommitError(
            f"git {args[0]} failed: {clean_text(problem[0]) if problem else done.returncode}"
        )
    if "-z" in args:
        return [field for field in done.stdout.split("\0") if field]
    return done.stdout.splitlines()
