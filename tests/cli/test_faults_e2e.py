"""End to end: a 200 that is not the page never replaces the page (issue 12, section 1).

The real CLI runs nightly against the fault-injection server on 127.0.0.1
(`support.fault_server`): every source answers its good version on the first night,
then one fault kind each — bot challenges, login walls, error pages, JSON errors with
status 200, 202/203/204/206, empty, binary and cut-short bodies, redirects to a login
page on another host — in both the plain-web and the GitHub-API path. Every faulted
claim must be `unreachable` with the reason in words (never stale), the store's latest
version must still be the good one, and after `[fetch] suspect_limit` (3) such nights
in a row the reason must say a person has to look. A real edit on the same night is
still stored, and a good answer afterwards resets the count.

The nights are run once for the module (they are the expensive part); the tests below
each assert one thing of them.
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from collections.abc import Iterator
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner, Result

from claimcheck.forges.resolve import resolve_source
from claimcheck.store.state import load_state
from claimcheck.store.store import Store
from support.claim_files import write_claims
from support.cli_runs import loopback_env, verify_project
from support.fault_server import FAULTS, FaultServer

# Slow: nights of the installed command against a faulty server.
pytestmark = pytest.mark.slow

QUOTE = "Widget renders every chart in under a second"
PARAGRAPH = (
    "Widget is a small charting library for dashboards that stay readable on any screen, "
    "with themes, axes, legends and tooltips that follow the reader's settings."
)
GOOD_HTML = (
    "<!DOCTYPE html><html><head><title>Widget documentation</title></head><body>"
    "<h1>Widget</h1>"
    + "".join(f"<p>{PARAGRAPH} Part {n}.</p>" for n in range(6))
    + f"<h2>Speed</h2><p>{QUOTE}, even with a million points.</p>"
    + "".join(f"<p>{PARAGRAPH} Part {n}.</p>" for n in range(6, 9))
    + "</body></html>"
).encode()
GOOD_README = (
    "# Widget\n\n"
    + "".join(f"{PARAGRAPH} Part {n}.\n\n" for n in range(6))
    + f"## Speed\n\n{QUOTE}, even with a million points.\n\n"
    + "".join(f"{PARAGRAPH} Part {n}.\n\n" for n in range(6, 9))
).encode()
EDITED_HTML = GOOD_HTML.replace(b"</body>", b"<p>Widget 2.0 adds pie charts.</p></body>")
EDITED_README = GOOD_README + b"Widget 2.0 adds pie charts.\n"
STALE = {"drifted", "missing", "source-gone", "context-changed", "moved", "expired"}
PATHS = ("web", "api")
CONTROLS = ("control", "edited")
SUSPECT_LIMIT = 3
FAULT_NIGHTS = 3
PERSON = "a person must look"
CONFIG = (
    "[fetch]\nper_host_interval = 0\nretries = 0\nper_host = 16\nconcurrency = 32\n"
    f"suspect_limit = {SUSPECT_LIMIT}\n\n[verdict]\nmax_age_days = 0\n"
)

runner = CliRunner()


@dataclass
class Source:
    """One claim's source on the fault server: which path, which fault, where stored."""

    claim_id: str
    url: str
    route: str  # the server path that answers it
    api: bool
    fault: str | None


@dataclass
class Nights:
    """What the nightly runs produced: per night the exit code, the report's results by
    claim id and the remembered state; and the store's good version of every source."""

    project: Path
    sources: list[Source]
    exit_codes: list[int] = field(default_factory=list)
    results: list[dict[str, dict[str, Any]]] = field(default_factory=list)
    states: list[dict[str, Any]] = field(default_factory=list)
    good_sha: dict[str, str] = field(default_factory=dict)
    store_after_faults: dict[str, tuple[str | None, int]] = field(default_factory=dict)

    def key(self, source: Source, api_url: str) -> str:
        return resolve_source(source.url, api_url).key


def _env(server: FaultServer) -> dict[str, str | None]:
    return loopback_env(server.base_url, "127.0.0.0/8,::1,localhost")  # the other host too


def _verify(project: Path, server: FaultServer) -> tuple[Result, dict[str, Any]]:
    return verify_project(project, _env(server))


def _project(root: Path, server: FaultServer, faults: list[str]) -> tuple[Path, list[Source]]:
    """A project whose claims cite one web page and one README per fault, plus controls."""
    project = root
    (project / "claimcheck.toml").write_text(CONFIG)
    sources: list[Source] = []
    for name in [*CONTROLS, *faults]:
        fault = None if name in CONTROLS else name
        url = server.add_page(name, GOOD_HTML)
        sources.append(Source(f"web-{name}", url, f"/web/{name}.html", False, fault))
        route = server.add_readme(f"acme/{name}", GOOD_README)
        sources.append(Source(f"api-{name}", f"https://github.com/acme/{name}", route, True, fault))
    today = dt.datetime.now(dt.UTC).date().isoformat()  # a baseline from tonight: no backfill
    entries = [
        {
            "id": s.claim_id,
            "claim": f"Widget is fast ({s.claim_id})",
            "source": s.url,
            "quote": QUOTE,
        }
        for s in sources
    ]
    write_claims(project / "claims", entries, checked=today)
    return project, sources


@pytest.fixture(scope="module")
def fault_server() -> Iterator[FaultServer]:
    """One fault server for the module's nights."""
    with FaultServer() as server:
        yield server
    assert not server.errors, "\n".join(server.errors)


_NIGHTS: dict[str, Nights] = {}


@pytest.fixture
def nights(fault_server: FaultServer, tmp_path_factory: pytest.TempPathFactory) -> Nights:
    """Night 1 good; nights 2-4 every fault (and a real edit); night 5 good again.

    Run once, by the first test that asks (so under that test's no-network guard).
    """
    if "run" in _NIGHTS:
        return _NIGHTS["run"]
    server = fault_server
    project, sources = _project(tmp_path_factory.mktemp("faults"), server, list(FAULTS))
    ran = Nights(project, sources)
    store_dir = project / "snapshots"

    def night() -> None:
        result, document = _verify(project, server)
        ran.exit_codes.append(result.exit_code)
        ran.results.append({r["id"]: r for r in document["results"]})
        ran.states.append(json.loads((store_dir / "state.json").read_text()))

    night()
    for source in sources:
        latest = Store(store_dir).latest(ran.key(source, server.base_url))
        assert latest is not None, source.claim_id
        ran.good_sha[source.claim_id] = latest.sha256
    for source in sources:
        server.set_fault(source.route, source.fault)
        if source.claim_id.endswith("-edited"):
            server.set_good(source.route, EDITED_README if source.api else EDITED_HTML)
    for _ in range(FAULT_NIGHTS):
        night()
    store = Store(store_dir)
    for source in sources:
        versions = store.versions(ran.key(source, server.base_url))
        ran.store_after_faults[source.claim_id] = (
            versions[-1].sha256 if versions else None,
            len(versions),
        )
    for source in sources:
        server.set_fault(source.route, None)
    night()
    _NIGHTS["run"] = ran
    return ran


def _faulted(nights: Nights) -> list[Source]:
    return [s for s in nights.sources if s.fault is not None]


CASES = [pytest.param(name, path, id=f"{path}-{name}") for name in FAULTS for path in PATHS]


def test_the_first_night_verifies_every_claim(nights: Nights) -> None:
    assert nights.exit_codes[0] == 0
    verdicts = {r["verdict"] for r in nights.results[0].values()}
    assert verdicts == {"verified"}, nights.results[0]


@pytest.mark.parametrize(("fault", "path"), CASES)
def test_a_bad_answer_is_unreachable_and_keeps_the_good_snapshot(
    nights: Nights, fault: str, path: str
) -> None:
    spec = FAULTS[fault]
    result = nights.results[1][f"{path}-{fault}"]
    assert result["verdict"] == "unreachable", result
    assert spec.reason_for(path == "api") in result["reason"], result["reason"]
    assert "last stored snapshot is from" in result["reason"]
    assert result["snapshot"] is not None  # judged with the last good snapshot at hand
    latest, count = nights.store_after_faults[f"{path}-{fault}"]
    assert (latest, count) == (nights.good_sha[f"{path}-{fault}"], 1)  # not superseded


def test_figures_no_claim_wrongly_stale_no_good_snapshot_superseded(nights: Nights) -> None:
    faulted = _faulted(nights)
    wrongly_stale = [
        (n, s.claim_id)
        for n in range(1, 1 + FAULT_NIGHTS)
        for s in faulted
        if nights.results[n][s.claim_id]["verdict"] in STALE
    ]
    superseded = [
        s.claim_id
        for s in faulted
        if nights.store_after_faults[s.claim_id] != (nights.good_sha[s.claim_id], 1)
    ]
    assert len(FAULTS) >= 50
    assert len(faulted) == 2 * len(FAULTS)
    assert wrongly_stale == []
    assert superseded == []
    assert nights.exit_codes[1 : 1 + FAULT_NIGHTS] == [3] * FAULT_NIGHTS  # could not check


def test_a_real_edit_on_the_same_night_is_still_stored(nights: Nights) -> None:
    for path in PATHS:
        assert nights.results[1][f"{path}-edited"]["verdict"] == "verified"
        assert nights.results[1][f"{path}-control"]["verdict"] == "verified"
        latest, count = nights.store_after_faults[f"{path}-edited"]
        assert count == 2
        assert latest != nights.good_sha[f"{path}-edited"]


@pytest.mark.parametrize("path", PATHS)
def test_after_three_suspicious_nights_a_person_must_look(nights: Nights, path: str) -> None:
    for name, spec in FAULTS.items():
        claim_id, source = (
            f"{path}-{name}",
            next(s.url for s in nights.sources if s.claim_id == f"{path}-{name}"),
        )
        reasons = [nights.results[n][claim_id]["reason"] for n in range(1, 1 + FAULT_NIGHTS)]
        counts = [
            nights.states[n]["sources"][source]["suspect"] for n in range(1, 1 + FAULT_NIGHTS)
        ]
        if not spec.gate:  # no answer at all: a network failure, never a person's job
            assert counts == [0, 0, 0], name
            assert not any(PERSON in r for r in reasons), name
            continue
        assert counts == [1, 2, 3], name
        assert [PERSON in r for r in reasons] == [False, False, True], (name, reasons)
        assert "1 of 3 such answers in a row" in reasons[0]
        assert f"3 runs in a row: {PERSON}" in reasons[2]
        assert nights.results[3][claim_id]["verdict"] == "unreachable"  # still not stale


def test_a_good_answer_again_verifies_and_resets_the_count(nights: Nights) -> None:
    last = FAULT_NIGHTS
    after = nights.results[last + 1]
    assert {r["verdict"] for r in after.values()} == {"verified"}, after
    assert nights.exit_codes[last + 1] == 0
    suspects = {url: s["suspect"] for url, s in nights.states[last + 1]["sources"].items()}
    assert set(suspects.values()) == {0}


def test_the_installed_command_keeps_the_page_through_a_bot_challenge(
    tmp_path: Path,
) -> None:
    """The real `claimcheck` executable in a subprocess: good night, then a challenge."""
    executable = Path(sys.executable).parent / "claimcheck"
    assert executable.is_file(), f"{executable} not installed: pip install -e ."
    with FaultServer() as server:
        project, sources = _project(tmp_path, server, ["cloudflare-just-a-moment"])
        env = {k: v for k, v in os.environ.items() if not k.lower().endswith("_proxy")}
        env.update({k: v for k, v in _env(server).items() if v is not None})
        env.pop("GITHUB_TOKEN", None)

        def verify() -> subprocess.CompletedProcess[str]:
            return subprocess.run(
                [str(executable), "verify", "--format", "json", "--no-progress"],
                cwd=project,
                env=env,
                capture_output=True,
                text=True,
                timeout=120,
                check=False,
            )

        first = verify()
        assert first.returncode == 0, first.stderr
        for source in sources:
            server.set_fault(source.route, source.fault)
        second = verify()
        assert not server.errors
    assert second.returncode == 3, second.stderr
    results = {r["id"]: r for r in json.loads(second.stdout)["results"]}
    for path in PATHS:
        faulted = results[f"{path}-cloudflare-just-a-moment"]
        assert faulted["verdict"] == "unreachable"
        expected = "bot challenge" if path == "web" else "is an HTML page"
        assert expected in faulted["reason"]
    store = Store(project / "snapshots")
    for source in sources:
        assert len(store.versions(resolve_source(source.url, server.base_url).key)) == 1
    assert load_state(project / "snapshots").sources  # remembered for the next night


# -- the first night: no good version to compare a bad answer with ------------------------

NEEDS_A_GOOD_VERSION = {
    ("collapse", "web"), ("collapse", "api"),  # a short page is a page, unless it was long
    ("spa-shell", "api"),  # as Markdown its title is text: short, not empty
    ("cut-short-half", "api"), ("cut-short-tenth", "api"),  # the same cut twice: a short README
}  # fmt: skip
"""Bad answers a first fetch cannot tell from a real page: each is a plausible page on
its own, and only a good version stored before shows it for what it is (see the nights
above, where each is caught). Every other bad answer is caught on the very first
night, when there is nothing to compare it with."""


@pytest.fixture(scope="module")
def first_night(
    fault_server: FaultServer, tmp_path_factory: pytest.TempPathFactory
) -> tuple[Path, list[Source], dict[str, dict[str, Any]], int]:
    """One night whose every fault answers the very first request of its source."""
    server = fault_server
    project, sources = _project(tmp_path_factory.mktemp("first"), server, list(FAULTS))
    for source in sources:
        server.set_fault(source.route, source.fault)
    try:
        result, document = _verify(project, server)
    finally:
        for source in sources:
            server.set_fault(source.route, None)
    return project, sources, {r["id"]: r for r in document["results"]}, result.exit_code


FIRST_CASES = [
    pytest.param(name, path, id=f"{path}-{name}")
    for name in FAULTS
    for path in PATHS
    if (name, path) not in NEEDS_A_GOOD_VERSION
]


@pytest.mark.parametrize(("fault", "path"), FIRST_CASES)
def test_a_bad_first_answer_is_unreachable_and_never_stored(
    first_night: tuple[Path, list[Source], dict[str, dict[str, Any]], int],
    fault: str,
    path: str,
) -> None:
    project, sources, results, _ = first_night
    source = next(s for s in sources if s.fault == fault and s.api == (path == "api"))
    result = results[source.claim_id]
    assert result["verdict"] == "unreachable", result
    assert FAULTS[fault].reason_for(source.api) in result["reason"], result["reason"]
    if FAULTS[fault].gate:  # no good snapshot to speak of yet
        assert "nothing is stored" in result["reason"], result["reason"]
        assert "last good snapshot" not in result["reason"], result["reason"]
    key = resolve_source(source.url, "http://127.0.0.1").key
    assert Store(project / "snapshots").versions(key) == []


def test_the_first_night_with_bad_answers_calls_no_claim_stale(
    first_night: tuple[Path, list[Source], dict[str, dict[str, Any]], int],
) -> None:
    _, sources, results, _ = first_night
    wrongly = {
        s.claim_id: results[s.claim_id]["verdict"]
        for s in sources
        if results[s.claim_id]["verdict"] in STALE
        and (s.fault, "api" if s.api else "web") not in NEEDS_A_GOOD_VERSION
    }
    assert wrongly == {}
    controls = {s.claim_id: results[s.claim_id]["verdict"] for s in sources if s.fault is None}
    assert set(controls.values()) == {"verified"}, controls
