"""End to end: a dead source gets a suggestion, the Wayback Machine's last capture of it
from before it went.

The real CLI against a page server on 127.0.0.1 whose page disappears between two
nights, and a fake Wayback Machine (its CDX API) on another port of 127.0.0.1. The
source's host name is public while the Wayback Machine is asked about it: it resolves
to the page server until that server has answered the night's 404, and to a public
address after (`public_after_the_404`), so the fetch reaches this machine and the URL
counts as one that may be named to a third party. Nothing connects off this machine.
"""

from __future__ import annotations

import datetime as dt
import json
import socket
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

from claimcheck.forges.resolve import resolve_source
from claimcheck.github.body import issue_body
from claimcheck.report.load import load_report_document
from claimcheck.store.store import Store
from support.claim_files import claim, write_claims
from support.cli_runs import run, show, today, verify_by_id
from support.public_names import PUBLIC_ADDRESS, resolve_names
from support.replay_server import ReplayServer

QUOTE = "The server batches incoming requests continuously."
PAGE = f"<html><body><main><h1>Serving</h1><p>{QUOTE}</p></main></body></html>"
PATH = "/guide/serving.html"
HOST = "docs.example.org"
ID = "serving"
EARLY, LATE = "20240110120000", "20240301090000"  # the archive's two captures
LATE_DAY = "2024-03-01"


@pytest.fixture
def web() -> Iterator[ReplayServer]:
    """The source's server: the page, until a test removes it."""
    with ReplayServer(None) as server:
        server.set_page(PATH, PAGE)
        yield server


@pytest.fixture
def archive() -> Iterator[ReplayServer]:
    """The fake Wayback Machine; each test says what its CDX API answers."""
    with ReplayServer(None) as server:
        yield server


@pytest.fixture
def project(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, web: ReplayServer, archive: ReplayServer
) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("WAYBACK_URL", archive.base_url)
    monkeypatch.setenv("GITHUB_API_URL", archive.base_url)  # no request leaves the machine
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    write_config(tmp_path)
    return tmp_path


def write_config(project: Path, extra: str = "") -> None:
    (project / "claimcheck.toml").write_text(
        "[fetch]\nper_host_interval = 0\nretries = 0\n[verdict]\nmax_age_days = 0\n" + extra
    )


def public_source(
    web: ReplayServer, monkeypatch: pytest.MonkeyPatch, host: str = HOST, path: str = PATH
) -> str:
    """A source on a public-looking name (see the module's docstring)."""
    previous = socket.getaddrinfo

    def getaddrinfo(name: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        if isinstance(name, bytes):
            name = name.decode()
        if isinstance(name, str) and name.lower().rstrip(".") == host:
            gone = any(r.status == 404 for r in web.requests_to(path))
            address = PUBLIC_ADDRESS if gone else "127.0.0.1"
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port or 0)))]
        return previous(name, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
    return f"http://{host}:{web.port}{path}"


def write_claim(project: Path, source: str) -> None:
    """Checked today: no baseline is wanted, so the archive hears of nothing else."""
    write_claims(project / "claims", [claim(ID, quote=QUOTE, source=source)], checked=today())


def offer_captures(archive: ReplayServer, source: str) -> None:
    """The CDX API's answer: a header row and two captures that answered 200."""
    rows = [["timestamp", "original"], [EARLY, source], [LATE, source]]
    archive.set_page("/cdx/search/cdx", json.dumps(rows), content_type="application/json")


def night(web: ReplayServer, *args: str) -> tuple[int, dict[str, Any], str]:
    """One online `verify --format json`: its exit code, the claim's entry, its stderr."""
    web.clear_requests()  # each night starts with the name on the page server
    result, by_id = verify_by_id("--no-progress", *args)
    return result.exit_code, by_id[ID], result.stderr


def first_night_then_gone(project: Path, web: ReplayServer, source: str) -> dt.datetime:
    """A night with the page, then the page removed: when the source was last seen."""
    write_claim(project, source)
    code, entry, _ = night(web)
    assert (code, entry["verdict"]) == (0, "verified"), entry
    latest = Store(project / "snapshots").latest(resolve_source(source).key)
    assert latest is not None
    web.remove_page(PATH)
    return latest.fetched_at


# --- the suggestion --------------------------------------------------------------------


def test_a_gone_source_gets_its_last_capture_from_before_it_went(
    project: Path, web: ReplayServer, archive: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = public_source(web, monkeypatch)
    offer_captures(archive, source)
    alive = first_night_then_gone(project, web, source)

    code, entry, _ = night(web)

    copy = f"{archive.base_url}/web/{LATE}/{source}"
    assert code == 1  # the suggestion changes neither the verdict nor the exit code
    assert entry["verdict"] == "source-gone"
    assert entry["archived"] == {"url": copy, "captured": "2024-03-01T09:00:00+00:00"}
    assert entry["reason"] == (
        f"the source answered HTTP 404 at {source}; last archived copy: {copy} ({LATE_DAY})"
    )
    (asked,) = archive.requests_to("/cdx/search/cdx")
    assert asked.query["url"] == source
    assert asked.query["filter"] == "statuscode:200"
    assert asked.query["to"] == alive.astimezone(dt.UTC).strftime("%Y%m%d%H%M%S")
    assert archive.requests_to("/wayback/available") == []


def test_the_suggestion_is_in_the_markdown_report_and_the_issue_body(
    project: Path, web: ReplayServer, archive: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = public_source(web, monkeypatch)
    offer_captures(archive, source)
    first_night_then_gone(project, web, source)
    web.clear_requests()

    done = run("verify", "--no-progress", "--format", "markdown", "--output", "json=report.json")

    copy = f"{archive.base_url}/web/{LATE}/{source}"
    assert done.exit_code == 1, show(done)
    shown = copy.replace("://", "\u200b://")  # defanged in text: GitHub links nothing
    assert f"last archived copy: {shown} \\({LATE_DAY}\\)" in done.stdout  # the reason
    assert f"- **Last archived copy:** [the capture of {LATE_DAY}]({copy})" in done.stdout
    report = load_report_document(json.loads(Path("report.json").read_text()))
    (result,) = report.results
    body = issue_body(result, failures=2)
    assert f"| Last archived copy | [the capture of {LATE_DAY}]({copy}) |" in body
    assert "or at its last archived copy (above)" in body


def test_the_offline_gate_and_later_nights_show_the_same_copy_without_asking_again(
    project: Path, web: ReplayServer, archive: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = public_source(web, monkeypatch)
    offer_captures(archive, source)
    first_night_then_gone(project, web, source)
    _, gone, _ = night(web)
    archive.clear_requests()

    offline, by_id = verify_by_id("--offline", "--no-progress")
    _, again, _ = night(web)  # the second night the source is gone

    assert offline.exit_code == 1, show(offline)
    assert by_id[ID]["archived"] == gone["archived"]
    assert by_id[ID]["reason"] == gone["reason"]
    assert again["archived"] == gone["archived"]
    assert again["reason"] == gone["reason"]
    assert archive.requests == []  # kept in state.json: asked once, ever
    found = json.loads(Path("snapshots/state.json").read_text())["sources"][source]["found"]
    assert found["archived_url"] == gone["archived"]["url"]


def test_the_archive_is_asked_once_per_gone_source_however_many_claims_cite_it(
    project: Path, web: ReplayServer, archive: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    first = public_source(web, monkeypatch)
    second = public_source(web, monkeypatch, "guide.example.net", "/other.html")
    web.set_page("/other.html", PAGE)
    offer_captures(archive, first)  # the fake answers the same rows for any URL
    entries = [
        claim("one", quote=QUOTE, source=first),
        claim("two", quote=QUOTE, source=first),
        claim("three", quote=QUOTE, source=second),
    ]
    write_claims(project / "claims", entries, checked=today())
    web.clear_requests()
    assert verify_by_id("--no-progress")[0].exit_code == 0
    web.remove_page(PATH)
    web.remove_page("/other.html")
    web.clear_requests()

    result, by_id = verify_by_id("--no-progress")

    assert result.exit_code == 1, show(result)
    assert {entry["verdict"] for entry in by_id.values()} == {"source-gone"}
    assert all(entry["archived"] is not None for entry in by_id.values())
    asked = sorted(r.query["url"] for r in archive.requests_to("/cdx/search/cdx"))
    assert asked == sorted([first, second])


def test_a_snapshot_run_judges_nothing_and_asks_the_archive_nothing(
    project: Path, web: ReplayServer, archive: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    source = public_source(web, monkeypatch)
    offer_captures(archive, source)
    first_night_then_gone(project, web, source)
    web.clear_requests()

    done = run("snapshot", "--no-progress")

    assert done.exit_code in (0, 3), show(done)
    assert any(r.status == 404 for r in web.requests_to(PATH))  # it did find the page gone
    assert archive.requests == []


# --- never for an internal address, never when off --------------------------------------


@pytest.mark.parametrize(
    "host",
    [
        pytest.param("127.0.0.1", id="loopback-address"),
        pytest.param("wiki.corp.example", id="name-resolving-to-loopback"),
    ],
)
def test_an_internal_source_gets_no_suggestion_and_is_never_named_to_the_archive(
    project: Path,
    web: ReplayServer,
    archive: ReplayServer,
    monkeypatch: pytest.MonkeyPatch,
    host: str,
) -> None:
    resolve_names(monkeypatch, {"wiki.corp.example": "127.0.0.1"})  # allowed, still internal
    source = f"http://{host}:{web.port}{PATH}"
    offer_captures(archive, source)
    first_night_then_gone(project, web, source)

    code, entry, _ = night(web)

    assert (code, entry["verdict"]) == (1, "source-gone")
    assert entry["archived"] is None
    assert "archived" not in entry["reason"]
    assert archive.requests == []


def test_with_the_wayback_machine_off_there_is_no_suggestion(
    project: Path, web: ReplayServer, archive: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_config(project, "[history]\nwayback = false\n")
    source = public_source(web, monkeypatch)
    offer_captures(archive, source)
    first_night_then_gone(project, web, source)

    code, entry, _ = night(web)

    assert (code, entry["verdict"], entry["archived"]) == (1, "source-gone", None)
    assert archive.requests == []


# --- a failing archive is no suggestion, never a crash -----------------------------------


def _server_error(archive: ReplayServer, source: str) -> None:
    archive.fail("/cdx/search/cdx", status=503, times=None)


def _garbage(archive: ReplayServer, source: str) -> None:
    archive.set_page("/cdx/search/cdx", "<html>not json", content_type="application/json")


def _no_capture(archive: ReplayServer, source: str) -> None:
    archive.set_page("/cdx/search/cdx", "[]", content_type="application/json")


def _rows_of_nonsense(archive: ReplayServer, source: str) -> None:
    rows = [["timestamp", "original"], ["not-a-date", source], [LATE], {"a": 1}, [LATE, ""]]
    archive.set_page("/cdx/search/cdx", json.dumps(rows), content_type="application/json")


def _dropped(archive: ReplayServer, source: str) -> None:
    archive.drop("/cdx/search/cdx")


@pytest.mark.parametrize(
    ("fault", "asked"),
    [
        (_server_error, 1),
        (_garbage, 1),
        (_no_capture, 1),
        (_rows_of_nonsense, 1),
        (_dropped, 2),  # a connection that broke off is opened once more, as for any fetch
    ],
)
def test_a_failing_wayback_machine_means_no_suggestion(
    project: Path,
    web: ReplayServer,
    archive: ReplayServer,
    monkeypatch: pytest.MonkeyPatch,
    fault: Any,
    asked: int,
) -> None:
    source = public_source(web, monkeypatch)
    fault(archive, source)
    first_night_then_gone(project, web, source)

    code, entry, stderr = night(web, "-vv")

    assert (code, entry["verdict"], entry["archived"]) == (1, "source-gone", None)
    assert entry["reason"] == f"the source answered HTTP 404 at {source}"
    assert "Traceback" not in stderr
    assert f"claimcheck.wayback: no archived copy of {source}" in stderr  # said at debug level
    assert len(archive.requests_to("/cdx/search/cdx")) == asked


@pytest.mark.parametrize(
    ("fault", "asked_again"),
    [
        (_no_capture, 0),  # the archive said it holds none: recorded, not asked again
        (_server_error, 1),  # no answer: asked again the next night
        (_garbage, 1),
    ],
)
def test_the_archive_is_asked_again_only_when_it_gave_no_answer(
    project: Path,
    web: ReplayServer,
    archive: ReplayServer,
    monkeypatch: pytest.MonkeyPatch,
    fault: Any,
    asked_again: int,
) -> None:
    source = public_source(web, monkeypatch)
    fault(archive, source)
    first_night_then_gone(project, web, source)
    night(web)
    archive.clear_requests()

    code, entry, _ = night(web)

    assert (code, entry["verdict"], entry["archived"]) == (1, "source-gone", None)
    assert len(archive.requests_to("/cdx/search/cdx")) == asked_again
    found = json.loads(Path("snapshots/state.json").read_text())["sources"][source]["found"]
    assert found.get("unarchived", False) is (asked_again == 0)
