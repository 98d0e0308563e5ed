"""End to end: `claimcheck archive` asks a Save Page Now server on 127.0.0.1 to capture each
claim's source, records the capture in the source's index, and every citation names it.

The sources' host names are public while the archive is asked about them: they resolve to
the page server while a run fetches them, and to a public address while `archive` runs
(`names`), so the URLs count as ones that may be named to a third party. The fake Save
Page Now server (`support.save_page_now`) follows the published SPN2 API. Nothing
connects off this machine.
"""

from __future__ import annotations

import json
import subprocess
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import pytest

from claimcheck.forges.resolve import resolve_source
from support.claim_files import claim, write_claims
from support.cli_runs import run, show, today, verify_by_id
from support.public_names import PUBLIC_ADDRESS, resolve_names
from support.replay_server import ReplayServer
from support.save_page_now import KEYS, STAMP, SavePageNowState, save_page_now

QUOTE = "The server batches incoming requests continuously."
OTHER = "Quantized weights load in half the memory."
PAGE = f"<html><body><main><h1>Serving</h1><p>{QUOTE}</p><p>{OTHER}</p></main></body></html>"
HOSTS = ("docs.example.org", "guide.example.net")
CAPTURED_DAY = "2026-12-06"


@pytest.fixture
def web() -> Iterator[ReplayServer]:
    with ReplayServer(None) as server:
        server.set_page("/serving.html", PAGE)
        yield server


@pytest.fixture
def spn() -> Iterator[tuple[str, SavePageNowState]]:
    with save_page_now() as served:
        yield served


class Names:
    """What the public-looking names resolve to: the page server's address (to fetch),
    or a public one (to be named to the archive) — from `go_public` on, or once the page
    server has answered this night (`public_once_fetched`), so that one run both fetches
    a source and may name it."""

    def __init__(self) -> None:
        self.public = False
        self.fetched: Callable[[], bool] | None = None

    def address(self) -> str:
        public = self.public or (self.fetched is not None and self.fetched())
        return PUBLIC_ADDRESS if public else "127.0.0.1"


@pytest.fixture
def names(monkeypatch: pytest.MonkeyPatch) -> Names:
    resolving = Names()
    resolve_names(monkeypatch, dict.fromkeys(HOSTS, resolving.address))
    return resolving


def go_public(names: Names) -> None:
    names.public = True


def public_once_fetched(names: Names, web: ReplayServer) -> None:
    names.public = False
    web.clear_requests()
    names.fetched = lambda: bool(web.requests_to("/serving.html"))


@pytest.fixture
def project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, spn: tuple[str, SavePageNowState]
) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WAYBACK_URL", spn[0])
    monkeypatch.setenv("GITHUB_API_URL", spn[0])  # no request leaves the machine
    monkeypatch.setenv("WAYBACK_KEYS", KEYS)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    write_config(tmp_path)
    return tmp_path


def write_config(project: Path, extra: str = "") -> None:
    (project / "claimcheck.toml").write_text(
        "[fetch]\nper_host_interval = 0\nretries = 0\n[history]\nwayback = false\n"
        "[archive]\n" + extra + ("" if "poll_seconds" in extra else "poll_seconds = 0\n")
    )


def sources(web: ReplayServer) -> tuple[str, str]:
    return tuple(f"http://{host}:{web.port}/serving.html" for host in HOSTS)  # type: ignore[return-value]


def three_claims(project: Path, web: ReplayServer) -> tuple[str, str]:
    """Two claims on the first source, one on the second, checked today."""
    first, second = sources(web)
    entries = [
        claim("batching", quote=QUOTE, source=first),
        claim("memory", quote=OTHER, source=first),
        claim("elsewhere", quote=QUOTE, source=second),
    ]
    write_claims(project / "claims", entries, checked=today())
    return first, second


def public_claim(project: Path, web: ReplayServer, names: Names) -> str:
    """One claim, checked today, on the first source, whose name is public now."""
    source = sources(web)[0]
    write_claims(
        project / "claims", [claim("batching", quote=QUOTE, source=source)], checked=today()
    )
    go_public(names)
    return source


def add_batching(source: str) -> Any:
    """`claimcheck add` of the claim on the quote of the first paragraph."""
    return run(
        "add",
        source,
        "--id",
        "batching",
        "--page",
        "page",
        "--quote",
        QUOTE,
        "--claim",
        "It batches.",
    )


def said(result: Any) -> str:
    return result.stdout + result.stderr


def copy_of(spn_url: str, source: str) -> str:
    return f"{spn_url}/web/{STAMP}/{source}"


def test_each_source_is_captured_once_and_recorded_for_every_citation(
    project: Path,
    web: ReplayServer,
    spn: tuple[str, SavePageNowState],
    names: Names,
) -> None:
    base, state = spn
    first, second = three_claims(project, web)
    fetched, _ = verify_by_id("--no-progress")
    assert fetched.exit_code == 0, show(fetched)
    go_public(names)
    state.seen.clear()

    done = run("archive")

    assert done.exit_code == 0, show(done)
    assert done.stdout.splitlines() == [
        f"captured {first}: {copy_of(base, first)} ({CAPTURED_DAY})",
        f"captured {second}: {copy_of(base, second)} ({CAPTURED_DAY})",
    ]
    assert "2 of 2 source(s) captured" in done.stderr
    assert sorted(state.submitted()) == [first, second]  # each once, though two cite the first
    posts = [s for s in state.seen if s.method == "POST"]
    assert all(s.form["skip_first_archive"] == "1" for s in posts)
    assert all(s.form["if_not_archived_within"] == "1d" for s in posts)
    assert all(s.headers["authorization"] == f"LOW {KEYS}" for s in state.seen)
    assert KEYS.split(":")[1] not in said(done)
    index = project / "snapshots" / resolve_source(first).key / "index.json"
    notes = json.loads(index.read_text())["history"]
    assert notes["archived"] == copy_of(base, first)
    assert notes["archived_at"] == "2026-12-06T10:15:00+00:00"

    # Every citation names it from then on, offline, with no request.
    state.seen.clear()
    offline, by_id = verify_by_id("--offline", "--no-progress")
    assert offline.exit_code == 0, show(offline)
    assert by_id["batching"]["citation"]["archived"] == {
        "url": copy_of(base, first),
        "captured": "2026-12-06T10:15:00+00:00",
    }
    assert by_id["elsewhere"]["citation"]["archived"]["url"] == copy_of(base, second)
    cited = run("cite", "batching", "--offline")
    assert f"([archived {CAPTURED_DAY}]({copy_of(base, first)}))" in cited.stdout, show(cited)
    markdown = run("verify", "--offline", "--no-progress", "--format", "markdown")
    assert f"[archived {CAPTURED_DAY}]({copy_of(base, first)})" in markdown.stdout
    assert state.seen == []


def test_one_claim_by_id_and_a_dry_run(
    project: Path,
    web: ReplayServer,
    spn: tuple[str, SavePageNowState],
    names: Names,
) -> None:
    _, state = spn
    first, second = three_claims(project, web)
    go_public(names)

    dry = run("archive", "--dry-run")
    one = run("archive", "elsewhere")

    assert dry.exit_code == 0, show(dry)
    assert dry.stdout.splitlines() == [f"would capture {first}", f"would capture {second}"]
    assert one.exit_code == 0, show(one)
    # Not fetched yet: captured, but nothing to record it in.
    assert "(not recorded: no snapshot of it is stored yet)" in one.stdout
    assert state.submitted() == [second]


def test_without_keys_nothing_is_sent(
    project: Path,
    web: ReplayServer,
    spn: tuple[str, SavePageNowState],
    names: Names,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, state = spn
    three_claims(project, web)
    go_public(names)
    monkeypatch.delenv("WAYBACK_KEYS")

    missing = run("archive")
    monkeypatch.setenv("WAYBACK_KEYS", "only-one-key")
    malformed = run("archive")

    assert missing.exit_code == 2, show(missing)
    assert "set WAYBACK_KEYS to ACCESS:SECRET" in missing.stderr
    assert malformed.exit_code == 2, show(malformed)
    assert "WAYBACK_KEYS is not ACCESS:SECRET" in malformed.stderr
    assert "only-one-key" not in said(malformed)
    assert state.seen == []


def test_keys_do_not_go_to_an_archive_only_the_config_file_names(
    project: Path,
    web: ReplayServer,
    spn: tuple[str, SavePageNowState],
    names: Names,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, state = spn
    three_claims(project, web)
    go_public(names)
    monkeypatch.delenv("WAYBACK_URL")
    (project / "claimcheck.toml").write_text(f'wayback_url = "{base}"\n')

    done = run("archive")

    assert done.exit_code == 2, show(done)
    assert "WAYBACK_KEYS is not sent to" in done.stderr
    assert state.seen == []
    assert KEYS.split(":")[1] not in said(done)


def test_a_source_on_an_internal_address_is_never_sent(
    project: Path, web: ReplayServer, spn: tuple[str, SavePageNowState]
) -> None:
    _, state = spn
    internal = f"http://127.0.0.1:{web.port}/serving.html"
    write_claims(
        project / "claims", [claim("inside", quote=QUOTE, source=internal)], checked=today()
    )

    done = run("archive")

    assert done.exit_code == 0, show(done)
    assert f"not sent {internal}: not sent to the Wayback Machine" in done.stderr
    assert state.submitted() == []


def test_a_busy_archive_is_asked_again_after_its_retry_after(
    project: Path,
    web: ReplayServer,
    spn: tuple[str, SavePageNowState],
    names: Names,
) -> None:
    base, state = spn
    public_claim(project, web, names)
    state.busy = 1

    done = run("archive")

    assert done.exit_code == 0, show(done)
    assert state.submitted() == [sources(web)[0]] * 2
    assert copy_of(base, sources(web)[0]) in done.stdout


def test_failures_are_said_and_exit_3_and_a_daily_limit_ends_the_run(
    project: Path,
    web: ReplayServer,
    spn: tuple[str, SavePageNowState],
    names: Names,
) -> None:
    _, state = spn
    first, second = three_claims(project, web)
    go_public(names)
    state.failing[first] = ("error:too-many-redirects", "Too many <b>redirects</b>")
    failed = run("archive")
    state.failing.clear()
    state.daily_left = 0
    state.seen.clear()
    limited = run("archive")

    assert failed.exit_code == 3, show(failed)
    assert (
        f"not captured {first}: the capture failed: error:too-many-redirects — "
        "Too many <b>redirects</b>"
    ) in failed.stderr
    assert f"captured {second}" in failed.stdout
    assert limited.exit_code == 3, show(limited)
    assert "error:too-many-daily-captures" in limited.stderr
    # the first refusal ends the run's captures: at most the ones already in flight
    assert len(state.submitted()) <= 2


def test_a_capture_still_pending_at_the_timeout_is_reported(
    project: Path,
    web: ReplayServer,
    spn: tuple[str, SavePageNowState],
    names: Names,
) -> None:
    _, state = spn
    write_config(project, "timeout = 0.3\npoll_seconds = 0.05\n")
    public_claim(project, web, names)
    state.pending_polls = 10_000

    done = run("archive")

    assert done.exit_code == 3, show(done)
    assert "the capture was still pending after 0.3 s (job spn2-" in done.stderr


def test_a_recent_capture_is_no_failure(
    project: Path,
    web: ReplayServer,
    spn: tuple[str, SavePageNowState],
    names: Names,
) -> None:
    _, state = spn
    public_claim(project, web, names)
    state.recent.add(sources(web)[0])

    done = run("archive")

    assert done.exit_code == 0, show(done)
    assert "no new capture: the archive says The same snapshot had been made" in done.stderr


def test_a_secret_written_into_the_config_file_is_refused(project: Path) -> None:
    (project / "claimcheck.toml").write_text('wayback_keys = "a:b"\n')

    done = run("archive")

    assert done.exit_code == 2, show(done)
    assert "claimcheck.toml:1: wayback_keys: a secret is never read" in done.stderr


def test_archive_on_add_accept_and_drift(
    project: Path,
    web: ReplayServer,
    spn: tuple[str, SavePageNowState],
    names: Names,
) -> None:
    _, state = spn
    first, _ = sources(web)
    write_config(project, 'on = ["add", "accept", "drift"]\n')
    write_claims(project / "claims", [claim("memory", quote=OTHER, source=first)])

    # add: the source is fetched, the claim written, then its source captured
    public_once_fetched(names, web)
    added = add_batching(first)
    assert added.exit_code == 0, show(added)
    assert f"captured {first}" in added.stderr
    assert state.submitted() == [first]

    # drift: the sentence changes a little; the night captures the source once
    web.set_page("/serving.html", PAGE.replace("continuously", "continuously and fairly"))
    public_once_fetched(names, web)
    night, by_id = verify_by_id("--no-progress")
    assert by_id["batching"]["verdict"] == "drifted", show(night)
    assert state.submitted() == [first] * 2
    public_once_fetched(names, web)
    again, by_id = verify_by_id("--no-progress")  # still drifted: not captured again
    assert by_id["batching"]["verdict"] == "drifted", show(again)
    assert state.submitted() == [first] * 2

    # accept: the claim re-baselined, its source captured
    go_public(names)
    accepted = run("accept", "batching")
    assert accepted.exit_code == 0, show(accepted)
    assert f"captured {first}" in accepted.stderr
    assert state.submitted() == [first] * 3


def test_a_failing_capture_on_add_changes_nothing_else(
    project: Path,
    web: ReplayServer,
    spn: tuple[str, SavePageNowState],
    names: Names,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    _, state = spn
    first, _ = sources(web)
    write_config(project, 'on = ["add"]\n')
    write_claims(project / "claims", [claim("memory", quote=OTHER, source=first)])
    monkeypatch.delenv("WAYBACK_KEYS")

    public_once_fetched(names, web)
    added = add_batching(first)

    assert added.exit_code == 0, show(added)
    assert "warning: no capture was asked for ([archive] on = add)" in added.stderr
    assert "batching" in (project / "claims" / "page.yaml").read_text()
    assert state.seen == []


def git(project: Path, *args: str) -> str:
    done = subprocess.run(
        ["git", "-C", str(project), *args], check=True, capture_output=True, text=True
    )
    return done.stdout


def test_the_nightly_daemon_captures_on_drift_and_commits_the_record(
    project: Path,
    web: ReplayServer,
    spn: tuple[str, SavePageNowState],
    names: Names,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    base, state = spn
    first, _ = sources(web)
    for role in ("AUTHOR", "COMMITTER"):
        monkeypatch.setenv(f"GIT_{role}_NAME", "Night Desk")
        monkeypatch.setenv(f"GIT_{role}_EMAIL", "desk@example.org")
    write_config(project, 'on = ["drift"]\n')
    write_claims(project / "claims", [claim("batching", quote=QUOTE, source=first)])
    git(project, "init", "--quiet", "--initial-branch=main")
    git(project, "add", "claims", "claimcheck.toml")
    git(project, "commit", "--quiet", "-m", "claims")
    once = ("schedule", "--once", "--commit", "--no-issues")

    public_once_fetched(names, web)
    quiet = run(*once)  # verified: nothing drifted, nothing captured
    web.set_page("/serving.html", PAGE.replace("continuously", "continuously and fairly"))
    public_once_fetched(names, web)
    drifted = run(*once)

    assert quiet.exit_code == 0, show(quiet)
    assert drifted.exit_code == 1, show(drifted)
    assert "1 of 1 drifted source captured" in drifted.stderr + drifted.stdout
    assert state.submitted() == [first]
    index = f"snapshots/{resolve_source(first).key}/index.json"
    committed = json.loads(git(project, "show", f"HEAD:{index}"))
    assert committed["history"]["archived"] == copy_of(base, first)
    assert git(project, "status", "--porcelain", "snapshots") == ""
