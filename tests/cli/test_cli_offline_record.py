"""End to end: the offline gate judges each source as the last online run found it.

A web server on 127.0.0.1 whose answers the test changes: a page that goes (404, 410,
or was never there), one that moves (a permanent redirect to another path or host, a
docs alias that leads to another version), one that answers with something that is not
the page (a bot challenge), one that refuses its address or keeps failing. After the
online `verify`, `verify --offline` on the same store gives the same verdict, with a
reason of the same words (bar "now" / "in the snapshot of"), the same exit code, and
`--fail-on moved` fails offline as it does online; `list` and `show` say the same.
"""

from __future__ import annotations

import json
import re
from collections.abc import Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest

from support.claim_files import claim, write_claims, write_fast_config
from support.cli_runs import run, show, today, verify_by_id
from support.fault_server import CLOUDFLARE_JUST_A_MOMENT
from support.replay_server import ReplayServer

QUOTE = "The server batches incoming requests continuously."
PAGE = f"<html><body><main><h1>Serving</h1><p>{QUOTE}</p></main></body></html>"
PATH = "/guide/serving.html"
OTHER = "/handbook/serving.html"
LATEST = "/en/latest/serving.html"
V063 = "/en/v0.6.3/serving.html"
V070 = "/en/v0.7.0/serving.html"
ID = "serving"


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer) -> Path:
    monkeypatch.chdir(tmp_path)
    for name in ("GITHUB_API_URL", "WAYBACK_URL", "HF_ENDPOINT"):
        monkeypatch.setenv(name, replay.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    write_fast_config(tmp_path)
    (tmp_path / "claimcheck.toml").write_text(
        "[fetch]\nper_host_interval = 0\nretries = 0\n\n[verdict]\nmax_age_days = 0\n"
    )
    return tmp_path


def reason_class(reason: str) -> str:
    """A reason without the words that say whether the source was read now or stored."""
    reason = re.sub(
        r"in the source (now|in the snapshot of \d{4}-\d{2}-\d{2})", "in the source", reason
    )
    return re.sub(r" \(snapshot of \d{4}-\d{2}-\d{2}\)", "", reason)


@dataclass(frozen=True)
class Scene:
    """A source's life: what the server answers on the first online run (`before`,
    None: nothing) and on the last (`after`), and the verdict a reader expects then."""

    source: str
    before: Callable[[ReplayServer, pytest.MonkeyPatch], None] | None
    after: Callable[[ReplayServer, pytest.MonkeyPatch], None]
    verdict: str
    reason: str  # words the last online reason holds


def _page(path: str) -> Callable[[ReplayServer, pytest.MonkeyPatch], None]:
    return lambda server, _: (server.set_page(path, PAGE), None)[1]


def _gone(server: ReplayServer, _: pytest.MonkeyPatch) -> None:
    server.remove_page(PATH)


def _gone_410(server: ReplayServer, _: pytest.MonkeyPatch) -> None:
    server.set_page(PATH, "Gone", content_type="text/plain", status=410)


def _moved_path(server: ReplayServer, _: pytest.MonkeyPatch) -> None:
    server.set_page(OTHER, PAGE)
    server.redirect(PATH, OTHER, 301)


def _moved_host(server: ReplayServer, _: pytest.MonkeyPatch) -> None:
    server.set_page(OTHER, PAGE)
    server.redirect(PATH, f"http://localhost:{server.port}{OTHER}", 308)


def _alias_at(version: str) -> Callable[[ReplayServer, pytest.MonkeyPatch], None]:
    def answer(server: ReplayServer, _: pytest.MonkeyPatch) -> None:
        server.set_page(version, PAGE)
        server.redirect(LATEST, version, 302)

    return answer


def _challenge(server: ReplayServer, _: pytest.MonkeyPatch) -> None:
    server.set_page(PATH, CLOUDFLARE_JUST_A_MOMENT)


def _refused(_: ReplayServer, monkeypatch: pytest.MonkeyPatch) -> None:
    """Loopback is refused by default: nothing opens the server's address any more (the
    operator's own servers are opened, so they are named elsewhere, where none listens)."""
    monkeypatch.delenv("CLAIMCHECK_ALLOW_ADDRESSES")
    for name in ("GITHUB_API_URL", "WAYBACK_URL", "HF_ENDPOINT"):
        monkeypatch.setenv(name, "http://127.0.0.1:9")


def _failing(server: ReplayServer, _: pytest.MonkeyPatch) -> None:
    server.fail(PATH, 503, times=None)


SCENES = {
    "gone-404": Scene(PATH, _page(PATH), _gone, "source-gone", "answered HTTP 404"),
    "gone-410": Scene(PATH, _page(PATH), _gone_410, "source-gone", "answered HTTP 410"),
    "gone-on-first-fetch": Scene(PATH, None, _gone, "source-gone", "answered HTTP 404"),
    "moved-301-path": Scene(PATH, _page(PATH), _moved_path, "moved", "moved permanently to"),
    "moved-308-host": Scene(PATH, _page(PATH), _moved_host, "moved", "moved permanently to"),
    "docs-alias-moved": Scene(
        LATEST, _alias_at(V063), _alias_at(V070), "moved", "leads to another version"
    ),
    "suspect-challenge": Scene(PATH, _page(PATH), _challenge, "unreachable", "bot challenge"),
    "refused-address": Scene(PATH, _page(PATH), _refused, "unreachable", "refused"),
    "failing-503": Scene(PATH, _page(PATH), _failing, "unreachable", "503"),
}


def last_verdict_listed(claim_id: str) -> str:
    listed = run("list")
    assert listed.exit_code == 0, show(listed)
    (row,) = [line.split() for line in listed.stdout.splitlines() if line.startswith(claim_id)]
    return row[2]


def last_verdict_shown(claim_id: str) -> dict[str, str]:
    shown = run("show", claim_id)
    assert shown.exit_code == 0, show(shown)
    fields = dict(line.split(": ", 1) for line in shown.stdout.splitlines() if ": " in line)
    return {name.strip(): value.strip() for name, value in fields.items()}


@pytest.mark.parametrize("scene", list(SCENES.values()), ids=list(SCENES))
def test_an_offline_verify_says_what_the_last_online_run_said(
    project: Path, replay: ReplayServer, monkeypatch: pytest.MonkeyPatch, scene: Scene
) -> None:
    write_claims(
        project / "claims",
        [claim(ID, quote=QUOTE, source=replay.url(scene.source))],
        checked=today(),
    )
    if scene.before is not None:
        scene.before(replay, monkeypatch)
        run("verify")
    scene.after(replay, monkeypatch)

    online, by_id = verify_by_id()
    offline, offline_by_id = verify_by_id("--offline")
    failing_online = run("verify", "--offline", "--fail-on", "moved")
    listed = last_verdict_listed(ID)
    shown = last_verdict_shown(ID)

    on, off = by_id[ID], offline_by_id[ID]
    # Read by hand: what the server answered last is what the reader is told.
    assert on["verdict"] == scene.verdict, on["reason"]
    assert scene.reason in on["reason"]
    # Offline, the same verdict, the same words, the same exit code.
    assert (off["verdict"], off["moved_to"]) == (on["verdict"], on["moved_to"]), off["reason"]
    assert reason_class(off["reason"]) == reason_class(on["reason"])
    assert offline.exit_code == online.exit_code
    # `--fail-on moved` fails the offline gate for a moved source.
    if scene.verdict == "moved":
        assert (online.exit_code, failing_online.exit_code) == (0, 1), show(failing_online)
    # list and show agree with both.
    assert listed == on["verdict"]
    assert shown["verdict"].startswith(f"{on['verdict']} (since ")
    assert shown["reason"] == on["reason"]


def test_a_source_back_online_is_judged_anew_and_the_offline_gate_follows(
    project: Path, replay: ReplayServer
) -> None:
    write_claims(project / "claims", [claim(ID, quote=QUOTE, source=replay.url(PATH))])
    replay.set_page(PATH, PAGE)
    run("verify")
    replay.remove_page(PATH)
    _, gone = verify_by_id()
    replay.set_page(PATH, PAGE)

    _, back = verify_by_id()
    _, offline = verify_by_id("--offline")

    assert gone[ID]["verdict"] == "source-gone"
    assert (back[ID]["verdict"], offline[ID]["verdict"]) == ("verified", "verified")


def test_a_snapshot_stored_since_the_last_verify_is_judged_offline_as_it_is(
    project: Path, replay: ReplayServer
) -> None:
    """The record stands for the version it was made over; `snapshot` storing a newer
    one (the page changed after a failing night) makes the offline gate read that."""
    write_claims(
        project / "claims", [claim(ID, quote=QUOTE, source=replay.url(PATH))], checked=today()
    )
    replay.set_page(PATH, PAGE)
    run("verify")
    replay.fail(PATH, 503, times=None)
    _, failing = verify_by_id()
    replay.fail(PATH, 503, times=0)
    replay.set_page(PATH, PAGE.replace("continuously", "in fixed windows"))
    stored = run("snapshot")

    _, offline = verify_by_id("--offline")

    assert failing[ID]["verdict"] == "unreachable"
    assert stored.exit_code == 0, show(stored)
    assert offline[ID]["verdict"] == "drifted", offline[ID]["reason"]


def test_a_state_file_without_the_record_still_loads_and_reads_the_latest_snapshot(
    project: Path, replay: ReplayServer
) -> None:
    """A state.json of an older claimcheck: no `found` per source, no `stands_on`."""
    write_claims(
        project / "claims", [claim(ID, quote=QUOTE, source=replay.url(PATH))], checked=today()
    )
    replay.set_page(PATH, PAGE)
    run("verify")
    state_file = project / "snapshots" / "state.json"
    document: dict[str, Any] = json.loads(state_file.read_text())
    for entry in document["sources"].values():
        entry.pop("found", None)
    state_file.write_text(json.dumps(document))

    _, offline = verify_by_id("--offline")
    listed = last_verdict_listed(ID)

    assert (offline[ID]["verdict"], listed) == ("verified", "verified")


def test_moved_stands_night_after_night_until_the_claim_is_accepted(
    project: Path, replay: ReplayServer
) -> None:
    source = replay.url(LATEST)
    other = claim("batching", quote="The server batches incoming requests", source=source)
    write_claims(
        project / "claims", [claim(ID, quote=QUOTE, source=source), other], checked=today()
    )
    _alias_at(V063)(replay, pytest.MonkeyPatch())
    _, first = verify_by_id()
    _alias_at(V070)(replay, pytest.MonkeyPatch())
    _, moved = verify_by_id()
    _, again = verify_by_id()
    _, offline = verify_by_id("--offline")

    accepted = run("accept", ID)
    _, after = verify_by_id()
    _, offline_after = verify_by_id("--offline")

    assert (first[ID]["verdict"], first["batching"]["verdict"]) == ("verified", "verified")
    for night in (moved, again, offline):
        assert night[ID]["verdict"] == "moved", night[ID]["reason"]
        assert night[ID]["moved_to"] == replay.url(V070)
    assert accepted.exit_code == 0, show(accepted)
    assert f"stands on: {replay.url(V070)}" in accepted.stdout
    # Accepted on 0.7.0: verified there, online and offline; the other claim, which no
    # one accepted, keeps its signal.
    assert (after[ID]["verdict"], offline_after[ID]["verdict"]) == ("verified", "verified")
    assert (after["batching"]["verdict"], offline_after["batching"]["verdict"]) == (
        "moved",
        "moved",
    )


def test_moved_ends_when_the_alias_leads_back(project: Path, replay: ReplayServer) -> None:
    source = replay.url(LATEST)
    write_claims(project / "claims", [claim(ID, quote=QUOTE, source=source)], checked=today())
    _alias_at(V063)(replay, pytest.MonkeyPatch())
    verify_by_id()
    _alias_at(V070)(replay, pytest.MonkeyPatch())
    _, moved = verify_by_id()
    _alias_at(V063)(replay, pytest.MonkeyPatch())

    _, back = verify_by_id()
    _, offline = verify_by_id("--offline")

    assert moved[ID]["verdict"] == "moved"
    assert (back[ID]["verdict"], offline[ID]["verdict"]) == ("verified", "verified")


def test_a_claim_new_to_a_moved_alias_stands_on_the_version_it_leads_to(
    project: Path, replay: ReplayServer
) -> None:
    """A claim added after the alias moved was checked on the new version: no move."""
    source = replay.url(LATEST)
    write_claims(project / "claims", [claim(ID, quote=QUOTE, source=source)], checked=today())
    _alias_at(V063)(replay, pytest.MonkeyPatch())
    verify_by_id()
    _alias_at(V070)(replay, pytest.MonkeyPatch())
    verify_by_id()
    newer = claim("batching", quote="The server batches incoming requests", source=source)
    write_claims(
        project / "claims", [claim(ID, quote=QUOTE, source=source), newer], checked=today()
    )

    _, night = verify_by_id()

    assert (night[ID]["verdict"], night["batching"]["verdict"]) == ("moved", "verified")


def test_a_permanent_redirect_accepted_is_verified_at_its_target(
    project: Path, replay: ReplayServer
) -> None:
    write_claims(
        project / "claims", [claim(ID, quote=QUOTE, source=replay.url(PATH))], checked=today()
    )
    _page(PATH)(replay, pytest.MonkeyPatch())
    verify_by_id()
    _moved_path(replay, pytest.MonkeyPatch())
    _, moved = verify_by_id()

    accepted = run("accept", ID)
    _, after = verify_by_id()
    _, offline = verify_by_id("--offline")

    assert moved[ID]["verdict"] == "moved"
    assert accepted.exit_code == 0, show(accepted)
    assert f"stands on: {replay.url(OTHER)}" in accepted.stdout
    assert (after[ID]["verdict"], offline[ID]["verdict"]) == ("verified", "verified")
