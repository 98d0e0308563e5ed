"""One nightly cycle and its pure decisions: catch-up, cron fields, issues, commit, log line.

The decisions are tables; the cycle runs for real against the README-history replay
server (and the fake GitHub for issues), committing into its own temporary git
repository.
"""

from __future__ import annotations

import datetime as dt
import functools
import json
import os
import subprocess
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from claimcheck.claims.load import load_claims
from claimcheck.claims.yaml_read import read_document
from claimcheck.config import load_config
from claimcheck.errors import UsageError
from claimcheck.forges.resolve import resolve_source
from claimcheck.github.issues import GitHubIssues
from claimcheck.models import Verdict
from claimcheck.nightly import cycle as cycle_module
from claimcheck.nightly.cycle import (
    CycleOutcome,
    CyclePlan,
    IssuesClient,
    catch_up_due,
    commit_message,
    commit_snapshots,
    crontab_fields,
    issue_repo,
    run_cycle,
    run_line,
)
from claimcheck.observe.online import ONLINE
from claimcheck.pipeline import run_verify
from claimcheck.report.formats import OutputFormat
from claimcheck.store.lock import LOCK_FILE, acquire_lock
from claimcheck.store.state import load_state
from support.claim_files import (
    LLAMA,
    LLAMA_URL,
    MAR_15,
    PAGE_HTML,
    claim,
    write_claims,
    write_fast_config,
)
from support.fake_github import TOKEN, Clock, FakeGitHub, require_spec
from support.killed_writer import kill_a_writer
from support.replay_server import ReplayServer

UTC = dt.UTC
NIGHT = dt.datetime(2026, 11, 30, 3, 17, tzinfo=UTC)

# -- catch-up --------------------------------------------------------------------------

DAY = dt.timedelta(days=1)
CATCH_UP = {
    "never-ran": (None, None, NIGHT, True),
    "ran-after-last-fire": (NIGHT, NIGHT + DAY, NIGHT + dt.timedelta(hours=5), False),
    "down-over-one-fire": (NIGHT, NIGHT + DAY, NIGHT + DAY + dt.timedelta(hours=1), True),
    "down-for-three-nights": (NIGHT, NIGHT + DAY, NIGHT + 3 * DAY, True),
    "due-exactly-now": (NIGHT, NIGHT + DAY, NIGHT + DAY, True),
    "trigger-ended": (NIGHT, None, NIGHT + 9 * DAY, False),
}


@pytest.mark.parametrize(("last", "due", "now", "expected"), CATCH_UP.values(), ids=CATCH_UP)
def test_catch_up_is_owed_once_a_fire_time_passed_since_the_last_run(
    last: dt.datetime | None, due: dt.datetime | None, now: dt.datetime, expected: bool
) -> None:
    assert catch_up_due(last, due, now) is expected


def test_the_catch_up_run_itself_settles_the_debt() -> None:
    """Three nights missed: one run is owed; once it ran (last_run = now) nothing is."""
    now = NIGHT + dt.timedelta(days=3, hours=2)
    assert catch_up_due(NIGHT, NIGHT + dt.timedelta(days=1), now)
    assert not catch_up_due(now, NIGHT + dt.timedelta(days=4), now + dt.timedelta(seconds=5))


# -- cron fields -----------------------------------------------------------------------

WEEKDAYS = {
    "every-day": ("17 3 * * *", "*"),
    "weekdays": ("0 9 * * 1-5", "mon,tue,wed,thu,fri"),
    "sunday-as-0": ("0 9 * * 0", "sun"),
    "sunday-as-7": ("0 9 * * 7", "sun"),
    "friday-to-sunday": ("0 9 * * 5-7", "fri,sat,sun"),
    "names": ("0 9 * * SAT,sun", "sat,sun"),
    "name-range": ("0 9 * * mon-wed", "mon,tue,wed"),
    "every-other-day-from-sunday": ("0 9 * * */2", "tue,thu,sat,sun"),
    "from-monday-step-2": ("0 9 * * 1/2", "mon,wed,fri"),
    "list-and-range": ("0 9 * * 0,3-4", "wed,thu,sun"),
}


@pytest.mark.parametrize(("expr", "weekday"), WEEKDAYS.values(), ids=WEEKDAYS)
def test_crontab_weekdays_become_names_apscheduler_3_cannot_misread(
    expr: str, weekday: str
) -> None:
    fields = crontab_fields(expr)
    assert fields["day_of_week"] == weekday
    assert [fields[k] for k in ("minute", "hour", "day", "month")] == expr.split()[:4]


BAD_CRON = {
    "four-fields": ("17 3 * *", "expected 5 fields"),
    "six-fields": ("0 17 3 * * *", "expected 5 fields"),
    "both-day-fields": ("0 9 1 * 1", "not both"),
    "weekday-8": ("0 9 * * 8", "bad weekday"),
    "backwards-range": ("0 9 * * 5-1", "bad weekday"),
    "unknown-name": ("0 9 * * someday", "bad weekday"),
    "zero-step": ("0 9 * * */0", "bad weekday"),
}


@pytest.mark.parametrize(("expr", "problem"), BAD_CRON.values(), ids=BAD_CRON)
def test_bad_crontab_expressions_are_usage_errors(expr: str, problem: str) -> None:
    with pytest.raises(UsageError, match=problem):
        crontab_fields(expr)


# -- issues ----------------------------------------------------------------------------

ISSUES = {
    "auto-configured": (None, "desk/site", "t", "desk/site"),
    "auto-no-token": (None, "desk/site", None, None),
    "auto-no-repo": (None, None, "t", None),
    "off": (False, "desk/site", "t", None),
    "on-configured": (True, "desk/site", "t", "desk/site"),
}


@pytest.mark.parametrize(("wanted", "repo", "token", "expected"), ISSUES.values(), ids=ISSUES)
def test_issues_are_synced_when_configured_or_asked(
    wanted: bool | None, repo: str | None, token: str | None, expected: str | None
) -> None:
    assert issue_repo(wanted, repo, token) == expected


@pytest.mark.parametrize(
    ("repo", "token", "problem"),
    [(None, "t", "GITHUB_REPOSITORY"), ("desk", "t", "OWNER/NAME"), ("desk/site", None, "TOKEN")],
    ids=["no-repo", "bad-repo", "no-token"],
)
def test_asking_for_issues_without_their_settings_fails_at_start(
    repo: str | None, token: str | None, problem: str
) -> None:
    with pytest.raises(UsageError, match=problem):
        issue_repo(True, repo, token)


# -- commit message and log line -------------------------------------------------------

SUMMARY = "3 claims: 2 verified, 1 drifted"
README = "github.com/ggml-org/llama.cpp/README"
COMMITS = {
    "new-snapshots": (
        [("A", f"{README}/2026-11-30T031700Z-1a2b3c4d.md"), ("M", f"{README}/index.json"),
         ("A", "example.org/page/2026-11-30T031700Z-0a0b0c0d.html"),
         ("A", "example.org/page/index.json"), ("M", "state.json")],
        "claimcheck: 2 new snapshots of 2 sources",
    ),
    "validators-only": (
        [("M", f"{README}/index.json"), ("M", "state.json")],
        "claimcheck: snapshot records of 1 source updated",
    ),
    "state-only": ([("M", "state.json")], "claimcheck: run state updated"),
    "one-new": (
        [("A", f"{README}/a.md"), ("M", f"{README}/index.json")],
        "claimcheck: 1 new snapshot of 1 source",
    ),
    "old-folder-moved": (
        [("D", "e.org/a/index.json"), ("D", "e.org/a/2026-10-20T113000Z-0badc0de.html"),
         ("A", "e.org/a/@0123456789abcdef/index.json"),
         ("A", "e.org/a/@0123456789abcdef/2026-10-20T113000Z-0badc0de.html"),
         ("A", "e.org/a/@0123456789abcdef/2026-11-30T031700Z-0a0b0c0d.html")],
        "claimcheck: 1 new snapshot of 1 source",
    ),
}  # fmt: skip


@pytest.mark.parametrize(("changes", "subject"), COMMITS.values(), ids=COMMITS)
def test_the_commit_message_counts_what_changed(
    changes: list[tuple[str, str]], subject: str
) -> None:
    message = commit_message(changes, SUMMARY)
    lines = message.splitlines()
    assert lines[0] == subject
    assert lines[1:3] == ["", SUMMARY]
    folders = {p.rsplit("/", 1)[0] for status, p in changes if "/" in p and status != "D"}
    assert [line[2:] for line in lines[4:]] == sorted(folders)


def test_the_log_line_is_one_line_with_counts_duration_and_requests() -> None:
    outcome = CycleOutcome(
        started=NIGHT,
        seconds=12.34,
        exit_code=1,
        summary=SUMMARY,
        requests=38,
        history_requests=5,
        new_snapshots=3,
        issues="issues: done: 1 create",
        commit="committed 'claimcheck: 3 new snapshots of 2 sources'",
    )
    line = run_line(outcome)
    assert "\n" not in line
    assert line == (
        "2026-11-30T03:17:00Z run: 3 claims: 2 verified, 1 drifted; 38 requests, "
        "5 history look-ups, 3 new snapshots, 12.3 s; issues: done: 1 create; "
        "committed 'claimcheck: 3 new snapshots of 2 sources'; exit 1"
    )
    abandoned = run_line(CycleOutcome(started=NIGHT, seconds=1.0, abandoned=True))
    assert abandoned == "2026-11-30T03:17:00Z run abandoned after 1.0 s: stopping, nothing stored"


# -- the cycle, for real ---------------------------------------------------------------


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer) -> Path:
    """A project folder as the current directory, sources on the replay server."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    monkeypatch.delenv("GITHUB_STEP_SUMMARY", raising=False)
    write_fast_config(tmp_path)
    replay.as_of = MAR_15
    write_claims(tmp_path / "claims", [claim()], checked="2024-03-15")
    return tmp_path


def cycle(
    plan: CyclePlan | None = None,
    *,
    stop: threading.Event | None = None,
    issues_client: IssuesClient = GitHubIssues,
) -> CycleOutcome:
    """One cycle over the claims of the current folder, as `schedule` runs it."""
    config = load_config(None)
    claims = load_claims(config.claim_paths, read=read_document)
    return run_cycle(claims, config, plan or CyclePlan(), stop=stop, issues_client=issues_client)


def verified() -> list[Path]:
    """One online verify over the claims of the current folder, as a night runs it: the
    files it wrote or removed, which a commit of it names."""
    config = load_config(None)
    _, stats = run_verify(
        load_claims(config.claim_paths, read=read_document), config, online=ONLINE
    )
    return stats.stored_files


def stored(project: Path) -> list[str]:
    snapshots = project / "snapshots"
    return sorted(p.relative_to(snapshots).as_posix() for p in snapshots.rglob("*") if p.is_file())


def test_a_cycle_verifies_online_writes_the_reports_and_remembers_the_run(project: Path) -> None:
    plan = CyclePlan(
        outputs=((OutputFormat.JSON, Path("out/report.json")), (OutputFormat.HTML, Path("r.html")))
    )

    outcome = cycle(plan)

    assert (outcome.exit_code, outcome.summary) == (0, "1 claim: 1 verified"), outcome
    assert outcome.requests >= 1
    assert outcome.new_snapshots == 1
    assert not outcome.abandoned
    assert json.loads((project / "out/report.json").read_text())["counts"]["verified"] == 1
    assert (project / "r.html").read_text().startswith("<!")
    last_run = load_state(project / "snapshots").last_run
    assert last_run is not None
    assert last_run >= outcome.started - dt.timedelta(seconds=1)


def test_fail_on_makes_a_review_verdict_fail_the_cycle(project: Path, replay: ReplayServer) -> None:
    # At head the Contributing section no longer stands under Usage: its sentence holds
    # verbatim, but the headings over it changed: context-changed.
    moved = claim("contributing", quote="Collaborators will be invited based on contributions")
    write_claims(project / "claims", [claim(), moved], checked="2024-03-15")
    replay.as_of = None

    outcome = cycle(CyclePlan(fail_on=frozenset({Verdict.CONTEXT_CHANGED})))

    assert "context-changed" in outcome.summary
    assert outcome.exit_code == 1


def test_a_stop_before_the_cycle_starts_does_nothing(project: Path) -> None:
    stop = threading.Event()
    stop.set()

    outcome = cycle(stop=stop)

    assert outcome.abandoned
    assert stored(project) == []


def test_a_stop_during_fetching_leaves_the_run_before_anything_is_stored(
    project: Path, replay: ReplayServer
) -> None:
    """The page answers 503 with Retry-After: 1 first; the stop comes during that wait.
    The README's answer may have come, and been stored, before it: a run left before
    its end keeps none of its new versions (`Store.batch`)."""
    replay.set_page("/docs/page.html", PAGE_HTML)
    replay.fail("/docs/page.html", status=503, times=1, headers={"Retry-After": "1"})
    entries = [claim(), claim("page", source=f"{replay.base_url}/docs/page.html")]
    write_claims(project / "claims", entries, checked="2024-03-15")
    stop = threading.Event()
    watcher = threading.Thread(target=_stop_on_first_answer, args=(replay, "/docs/page.html", stop))
    watcher.start()

    outcome = cycle(stop=stop)

    watcher.join()
    assert outcome.abandoned
    # Neither source stored, no state.json; the pages kept below `.cache` are derived
    # from bodies by their digest, and never committed.
    assert [path for path in stored(project) if not path.startswith(".cache/")] == []
    assert run_line(outcome).endswith("nothing stored")


def test_a_stop_once_the_snapshots_are_stored_writes_the_reports_and_skips_the_rest(
    project: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """A stop that comes while the run judges: what it stored stays, its reports are
    written, and the issue sync and the commit are left to the next night."""
    stop = threading.Event()
    real = cycle_module.run_verify

    def judged_then_stopped(*args: Any, on_progress: Any, **kwargs: Any) -> Any:
        def told(phase: str, done: int, total: int) -> None:
            if phase == "judging":
                stop.set()
            on_progress(phase, done, total)

        return real(*args, on_progress=told, **kwargs)

    monkeypatch.setattr(cycle_module, "run_verify", judged_then_stopped)
    plan = CyclePlan(
        outputs=((OutputFormat.JSON, Path("out/report.json")),),
        issue_repo="desk/site",
        commit=True,
    )

    outcome = cycle(plan, stop=stop)

    assert stop.is_set()
    assert not outcome.abandoned
    assert (outcome.issues, outcome.commit) == (
        "issues skipped (stopping)",
        "commit skipped (stopping)",
    )
    assert json.loads((project / "out" / "report.json").read_text())["counts"]["verified"] == 1
    assert [p for p in stored(project) if p.endswith("index.json")]


def _stop_on_first_answer(replay: ReplayServer, path: str, stop: threading.Event) -> None:
    deadline = time.monotonic() + 10
    while not any(r.path == path for r in replay.requests) and time.monotonic() < deadline:
        time.sleep(0.01)
    stop.set()


# -- commit ----------------------------------------------------------------------------


@pytest.fixture
def git_project(project: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """The project as its own git repository, with an identity and no user config."""
    monkeypatch.setenv("GIT_CONFIG_GLOBAL", os.devnull)
    monkeypatch.setenv("GIT_CONFIG_NOSYSTEM", "1")
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Night Desk")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "desk@example.org")
    git(project, "init", "--quiet", "--initial-branch=main")
    git(project, "add", "claims", "claimcheck.toml")
    git(project, "commit", "--quiet", "-m", "claims")
    return project


def git(folder: Path, *args: str) -> str:
    return subprocess.run(
        ["git", "-C", str(folder), *args], capture_output=True, text=True, check=True
    ).stdout


def test_commit_commits_the_snapshots_alone_with_a_counting_message(git_project: Path) -> None:
    (git_project / "notes.txt").write_text("the user's own staged work\n")
    git(git_project, "add", "notes.txt")
    plan = CyclePlan(commit=True)

    with acquire_lock(git_project / "snapshots", "test"):  # held, as `schedule` holds it
        first = cycle(plan)
        second = cycle(plan)

    assert first.commit == "committed 'claimcheck: 1 new snapshot of 1 source'"
    assert second.commit == "nothing to commit"  # nothing changed: not even the state
    subjects = git(git_project, "log", "--format=%s").splitlines()
    assert subjects[0] == "claimcheck: 1 new snapshot of 1 source"
    assert not git(git_project, "status", "--porcelain", "--", "snapshots")  # cache ignored
    body = git(git_project, "log", "-1", "--format=%b")
    assert "1 claim: 1 verified" in body
    assert f"github.com/{LLAMA}/README" in body
    committed = git(git_project, "show", "--name-only", "--format=", "HEAD").split()
    assert all(name.startswith("snapshots/") for name in committed)
    assert f"snapshots/{LOCK_FILE}" not in git(git_project, "ls-files")
    assert "notes.txt" in git(git_project, "diff", "--cached", "--name-only")  # still staged


def test_a_failed_commit_is_reported_in_the_line_not_raised(project: Path) -> None:
    """No git repository here: the run still counts; its line says the commit failed."""
    outcome = cycle(CyclePlan(commit=True))

    assert outcome.exit_code == 0
    assert outcome.commit is not None
    assert outcome.commit.startswith("commit failed: git "), outcome.commit
    assert "not a git repository" in outcome.commit


# -- issues ----------------------------------------------------------------------------


@pytest.fixture
def github(project: Path, monkeypatch: pytest.MonkeyPatch) -> Iterator[FakeGitHub]:
    """The fake GitHub as the API (issues); the claims' sources are plain pages."""
    with FakeGitHub(require_spec(), repo="desk/site") as fake:
        monkeypatch.setenv("GITHUB_API_URL", fake.base_url)
        monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
        monkeypatch.delenv("GITHUB_ACTIONS", raising=False)
        yield fake
    assert not fake.errors, "\n".join(fake.errors)


def test_issues_are_synced_after_the_run(
    project: Path, replay: ReplayServer, github: FakeGitHub, capsys: pytest.CaptureFixture[str]
) -> None:
    replay.set_page("/docs/page.html", PAGE_HTML)
    page = f"{replay.base_url}/docs/page.html"
    entries = [
        claim("holds", source=page),
        claim("gone-quote", quote="zero-bit weights", source=page),
    ]
    write_claims(project / "claims", entries, checked=dt.date.today().isoformat())
    clock = Clock()
    client = functools.partial(GitHubIssues, sleep=clock.sleep, clock=clock.time)

    outcome = cycle(CyclePlan(issue_repo="desk/site"), issues_client=client)

    assert outcome.issues == "issues: need an issue: 1 stale, 0 review; done: 1 create", outcome
    said = capsys.readouterr()
    assert said.err == ""  # the run's one line is the caller's to print
    assert said.out.startswith("create ")  # each action, as `claimcheck issues` prints it
    assert outcome.exit_code == 1
    (issue,) = github.open_issues()
    assert "gone-quote" in (issue.body or "")


def test_the_nightly_creates_at_most_max_new_issues_a_night(
    project: Path, replay: ReplayServer, github: FakeGitHub
) -> None:
    """`[issues] max_new` caps the nightly run's creates as it caps `claimcheck issues`;
    past it the night says so in its line (not a failure) and the next creates the rest."""
    replay.set_page("/docs/page.html", PAGE_HTML)
    page = f"{replay.base_url}/docs/page.html"
    entries = [claim(f"gone-{n}", quote="zero-bit weights", source=page) for n in range(3)]
    write_claims(project / "claims", entries, checked=dt.date.today().isoformat())
    with (project / "claimcheck.toml").open("a", encoding="utf-8") as config:
        config.write("\n[issues]\nmax_new = 2\n")
    clock = Clock()
    client = functools.partial(GitHubIssues, sleep=clock.sleep, clock=clock.time)

    first = cycle(CyclePlan(issue_repo="desk/site"), issues_client=client)

    assert first.issues is not None
    assert first.issues.startswith("issues: need an issue: 3 stale"), first
    assert "cap reached: created 2 new issues" in first.issues
    assert len(github.open_issues()) == 2
    second = cycle(CyclePlan(issue_repo="desk/site"), issues_client=client)
    assert second.issues is not None
    assert "cap reached" not in second.issues, second
    assert len(github.open_issues()) == 3


@pytest.mark.parametrize(
    ("section", "labels"),
    [("", [["claimcheck", "review"]]), ("\n[issues]\nreview = false\n", [])],
    ids=["review-by-default", "review-off"],
)
def test_the_nightly_files_review_issues_as_the_config_says(
    project: Path, replay: ReplayServer, github: FakeGitHub, section: str, labels: list[list[str]]
) -> None:
    """A page that moved for good (301): moved, a review issue, unless `[issues] review =
    false`; the nightly run reads `[issues]` as `claimcheck issues` does."""
    replay.set_page("/docs/new-page.html", PAGE_HTML)
    replay.redirect("/docs/page.html", "/docs/new-page.html")
    alias = claim("aliased", source=f"{replay.base_url}/docs/page.html")
    write_claims(project / "claims", [alias], checked=dt.date.today().isoformat())
    with (project / "claimcheck.toml").open("a", encoding="utf-8") as config:
        config.write(section)
    clock = Clock()
    client = functools.partial(GitHubIssues, sleep=clock.sleep, clock=clock.time)

    outcome = cycle(CyclePlan(issue_repo="desk/site"), issues_client=client)

    assert "1 moved" in outcome.summary, outcome
    assert [i.labels for i in github.open_issues()] == labels


def test_nights_of_the_cycle_file_each_claim_to_act_on_once_and_close_it_when_settled(
    project: Path, replay: ReplayServer, github: FakeGitHub
) -> None:
    """Three nights over pages that change. Night 2: one page rewords the quote
    (drifted), one now says what an absence claim denies (contradicted), one moved for
    good (301: moved); each gets one issue, stale or review. Night 3: the reworded page
    is back, the desk points the moved claim at the new address: both issues close; the
    contradiction stands and its issue stays. The same night again writes nothing."""
    reworded = PAGE_HTML.replace("1.5-bit, ", "")
    denied = PAGE_HTML.replace("</p>", " The project is now in maintenance mode.</p>")
    for name in ("holds", "changes", "denies", "moves"):
        replay.set_page(f"/docs/{name}.html", PAGE_HTML)
    page = f"{replay.base_url}/docs"
    today = dt.date.today().isoformat()

    def claims(moves_to: str = "moves") -> None:
        entries = [
            claim("holds", source=f"{page}/holds.html"),
            claim("changes", source=f"{page}/changes.html"),
            claim("denies", quote=None, source=f"{page}/denies.html", absent="maintenance mode"),
            claim("moves", source=f"{page}/{moves_to}.html"),
        ]
        write_claims(project / "claims", entries, checked=today)

    clock = Clock()
    client = functools.partial(GitHubIssues, sleep=clock.sleep, clock=clock.time)

    def night() -> CycleOutcome:
        return cycle(CyclePlan(issue_repo="desk/site"), issues_client=client)

    def open_issues() -> dict[str, list[str]]:
        return {i.title.split(" for claim ")[1].split()[0]: i.labels for i in github.open_issues()}

    claims()
    first = night()
    assert first.summary == "4 claims: 4 verified", first
    assert github.issues == {}

    replay.set_page("/docs/changes.html", reworded)
    replay.set_page("/docs/denies.html", denied)
    replay.set_page("/docs/moved-here.html", PAGE_HTML)
    replay.redirect("/docs/moves.html", "/docs/moved-here.html")
    second = night()
    assert "1 drifted" in second.summary, second
    assert "1 contradicted" in second.summary, second
    assert "1 moved" in second.summary, second
    assert open_issues() == {
        "changes": ["claimcheck", "stale"],
        "denies": ["claimcheck", "stale"],
        "moves": ["claimcheck", "review"],
    }
    assert second.issues == "issues: need an issue: 2 stale, 1 review; done: 3 create", second

    replay.set_page("/docs/changes.html", PAGE_HTML)
    claims(moves_to="moved-here")
    third = night()
    assert "1 contradicted" in third.summary, third
    assert open_issues() == {"denies": ["claimcheck", "stale"]}
    closed = {i.number: i for i in github.issues.values() if i.state == "closed"}
    assert sorted((i.state_reason, i.comments[-1].split(":")[0]) for i in closed.values()) == [
        ("completed", "The claim has support again (**verified**)"),
        ("completed", "The claim is **verified** now"),
    ]

    mark = len(github.requests)
    night()
    assert [r for r in github.requests[mark:] if r.method != "GET"] == []
    assert len(github.issues) == 3


# -- temp files of a killed run --------------------------------------------------------


def test_a_killed_writers_temp_file_is_removed_by_the_next_cycle_and_never_committed(
    git_project: Path,
) -> None:
    snapshots = git_project / "snapshots"
    key = resolve_source(LLAMA_URL).key
    temp = kill_a_writer(snapshots, key, LLAMA_URL)

    long_ago = NIGHT - 365 * DAY  # a `schedule` holding the lock since before the kill
    with acquire_lock(snapshots, "schedule", now=long_ago):
        assert temp.exists()  # younger than that lock: kept so far
        outcome = cycle(CyclePlan(commit=True))

    assert outcome.commit == "committed 'claimcheck: 1 new snapshot of 1 source'"
    assert not temp.exists()
    tracked = git(git_project, "ls-files", "snapshots").split()
    assert tracked
    assert not [name for name in tracked if "/.tmp-" in name]


def test_commit_works_while_the_lock_is_held_in_a_folder_init_set_up(git_project: Path) -> None:
    """`init` writes snapshots/.gitignore, which ignores the lock; naming the ignored lock
    in `git add` made git refuse the whole add, so a scheduled --commit never committed.
    The .gitignore is the person's to commit (as `init` says), not the run's."""
    from claimcheck.nightly.init import SNAPSHOTS_GITIGNORE

    snapshots = git_project / "snapshots"
    snapshots.mkdir()
    (snapshots / ".gitignore").write_text(SNAPSHOTS_GITIGNORE)
    (git_project / "notes.txt").write_text("the user's own staged work\n")
    git(git_project, "add", "notes.txt")
    with acquire_lock(snapshots, "test"):
        written = verified()
        message = commit_snapshots(snapshots, "1 claim: 1 verified", written)

    assert message.startswith("committed 'claimcheck: 1 new snapshot of 1 source'")
    tracked = git(git_project, "ls-files", "snapshots").split()
    assert f"snapshots/{resolve_source(LLAMA_URL).key}/index.json" in tracked
    assert "snapshots/.gitignore" not in tracked  # not the run's
    assert "snapshots/.claimcheck.lock" not in tracked
    assert git(git_project, "diff", "--cached", "--name-only").split() == ["notes.txt"]


def test_commit_never_stages_temp_files_and_takes_out_committed_ones(git_project: Path) -> None:
    snapshots = git_project / "snapshots"
    key = resolve_source(LLAMA_URL).key
    committed_before = snapshots / key / ".tmp-1-oldbuggy.json"  # an older claimcheck's
    committed_before.parent.mkdir(parents=True)
    committed_before.write_text("{")
    git(git_project, "add", "-f", str(committed_before))
    git(git_project, "commit", "--quiet", "-m", "a temp file committed by mistake")
    committed_before.unlink()
    with acquire_lock(snapshots, "test"):
        written = verified()
    fresh = kill_a_writer(snapshots, key, LLAMA_URL)  # killed after this run's sweep
    top = snapshots / ".tmp-2-abcdefgh.json"
    top.write_text("{")

    message = commit_snapshots(snapshots, "1 claim: 1 verified", [*written, fresh, top])

    assert message.startswith("committed 'claimcheck: 1 new snapshot of 1 source'")
    tracked = git(git_project, "ls-files", "snapshots").split()
    assert f"snapshots/{key}/index.json" in tracked
    assert not [name for name in tracked if ".tmp-" in name]
    assert fresh.exists()  # left on disk for the next run's sweep
    assert top.exists()
    assert commit_snapshots(snapshots, "again", written) == "nothing to commit"
