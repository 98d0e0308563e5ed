"""History against real servers on 127.0.0.1: backfill from GitHub and Wayback, blame."""

from __future__ import annotations

import asyncio
import datetime as dt
import json
import math
import re
import shutil
import threading
from collections import Counter
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import urlsplit

import pytest
from typer.testing import CliRunner

from claimcheck.cli.app import app
from claimcheck.forges.forge import Absent, Version
from claimcheck.forges.github import GitHubFile
from claimcheck.forges.history import Asked, History
from claimcheck.forges.resolve import resolve_source
from claimcheck.judge.anchor import normalize_text
from claimcheck.judge.verdict import page_text as visible_text
from claimcheck.models import MediaType
from claimcheck.net.fetch import Fetched, FetchOutcome, FetchRequest
from claimcheck.net.fetcher import Fetcher, FetchSettings
from support.counting_server import answer, counting_server
from support.public_names import resolve_publicly, resolving_publicly
from support.replay_server import RecordedRequest, ReplayServer, Reply

LLAMA = "ggml-org/llama.cpp"
# The quantization bullet as the llama.cpp README wrote it from June to August 2023.
QUOTE_2023 = "4-bit, 5-bit and 8-bit integer quantization support"
FAST = FetchSettings(per_host_interval=0.0, retries=0)
runner = CliRunner()


def holds(quote: str, body: bytes) -> bool:
    text = visible_text(body.decode(), MediaType.MARKDOWN).casefold()
    return normalize_text(quote).casefold() in text


def first_commit_without(replay: ReplayServer, quote: str, since: dt.datetime) -> str:
    """The oldest corpus commit after `since` whose README lacks the quote: blame's answer."""
    for entry in reversed(replay.commits_of(LLAMA)):
        if entry.commit_date > since and entry.date <= dt.date(2024, 3, 15):
            body = replay.readme_as_of(LLAMA, entry.date)
            if body is not None and not holds(quote, body):
                return entry.commit
    raise AssertionError("the corpus has no such commit")


def test_blame_bisects_to_the_commit_that_changed_the_quote(replay: ReplayServer) -> None:
    replay.as_of = dt.date(2024, 3, 15)
    source = GitHubFile("ggml-org", "llama.cpp", None, None)
    baseline = replay.entry_as_of(LLAMA, dt.date(2023, 6, 15))
    assert baseline is not None
    assert holds(QUOTE_2023, replay.readme_as_of(LLAMA, dt.date(2023, 6, 15)) or b"")

    async def run() -> tuple[object, int, int]:
        async with Fetcher(FAST) as fetcher:
            history = History(fetcher, api_url=replay.base_url, token=None)
            commits = await history.github.commits(source, since=baseline.commit_date)
            culprit, fetched = await history.github.blame(
                source, baseline.commit_date, lambda body: holds(QUOTE_2023, body)
            )
            return culprit, fetched, len(commits or [])

    replay.clear_requests()
    culprit, fetched, commits = asyncio.run(run())
    assert getattr(culprit, "sha", None) == first_commit_without(
        replay, QUOTE_2023, baseline.commit_date
    )
    assert commits >= 8
    assert fetched <= math.ceil(math.log2(commits + 1))
    readme = replay.requests_to(f"/repos/{LLAMA}/readme")
    versions = [r for r in readme if "raw" in r.headers.get("accept", "")]
    assert len(versions) == fetched  # file fetches are logarithmic, not linear
    # The README's path (for the commit history) is asked once, not once per commit.
    assert len([r for r in readme if r not in versions]) == 1


def test_commits_follow_link_pagination(replay: ReplayServer) -> None:
    source = GitHubFile("ggml-org", "llama.cpp", None, None)

    async def run() -> int:
        async with Fetcher(FAST) as fetcher:
            history = History(fetcher, api_url=replay.base_url, token=None)
            return len(await history.github.commits(source, per_page=5) or [])

    assert asyncio.run(run()) == len(replay.commits_of(LLAMA))
    assert len(replay.requests_to(f"/repos/{LLAMA}/commits")) > 1


WAYBACK_PAGE = "<html><body><p>The engine supports Metal and CUDA.</p></body></html>"


def wayback(replay: ReplayServer, timestamp: str, available: bool = True) -> None:
    copy = f"{replay.base_url}/web/{timestamp}/https://docs.example.org/engine"
    answer = {
        "url": "https://docs.example.org/engine",
        "archived_snapshots": {
            "closest": {
                "status": "200",
                "available": available,
                "url": copy,
                "timestamp": timestamp,
            }
        },
    }
    replay.set_page("/wayback/available", json.dumps(answer), content_type="application/json")
    replay.set_page(f"/web/{timestamp}id_/https://docs.example.org/engine", WAYBACK_PAGE)


@pytest.mark.parametrize(
    ("timestamp", "available", "found"),
    [
        ("20261015093000", True, True),
        ("20261101000000", True, False),
        ("20261015093000", False, False),
    ],
    ids=["before-check-date", "after-check-date", "not-archived"],
)
def test_wayback_backfill(
    replay: ReplayServer, timestamp: str, available: bool, found: bool
) -> None:
    wayback(replay, timestamp, available)

    async def run() -> object:
        async with Fetcher(FAST) as fetcher:
            history = History(
                fetcher,
                api_url=replay.base_url,
                token=None,
                wayback_url=replay.base_url,
                resolver=resolving_publicly(),  # a public page: it may be asked about
            )
            until = dt.datetime(2026, 10, 20, 23, 59, tzinfo=dt.UTC)
            return await history.wayback.version("https://docs.example.org/engine", until)

    version = asyncio.run(run())
    assert isinstance(version, Version) is found
    # A later capture is an answer worth remembering; no answer is asked again.
    assert isinstance(version, Absent) is (available and not found)
    if found:
        assert getattr(version, "body", b"") == WAYBACK_PAGE.encode()
        (ask,) = replay.requests_to("/wayback/available")
        assert ask.query["url"] == "https://docs.example.org/engine"
        assert ask.query["timestamp"].startswith("20261020")


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    (tmp_path / "claims").mkdir()
    (tmp_path / "claimcheck.toml").write_text(
        "[fetch]\nper_host_interval = 0\n[verdict]\nmax_age_days = 0\n"
    )
    return tmp_path


def test_backfill_command_stores_baselines_with_their_true_dates(
    project: Path, replay: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    resolve_publicly(monkeypatch, "docs.example.org")  # a public page: Wayback is asked
    replay.set_page("/engine", WAYBACK_PAGE)
    wayback(replay, "20261015093000")
    (project / "claims" / "p.yaml").write_text(
        "page: p\nchecked: 2023-06-15\nclaims:\n"
        f"  - id: quant\n    claim: c\n    source: https://github.com/{LLAMA}\n"
        f'    quote: "{QUOTE_2023}"\n'
        "  - id: docs\n    claim: c\n    source: https://docs.example.org/engine\n"
        "    quote: supports Metal and CUDA\n    checked: 2026-10-20\n"
    )
    result = runner.invoke(app, ["backfill"])
    assert result.exit_code == 0, result.output
    assert "2 baselines stored" in result.stderr
    index = json.loads(
        (project / "snapshots/github.com/ggml-org/llama.cpp/README/index.json").read_text()
    )
    (version,) = index["versions"]
    entry = replay.entry_as_of(LLAMA, dt.date(2023, 6, 15))
    assert entry is not None
    assert version["origin"] == f"commit {entry.commit}"
    assert dt.datetime.fromisoformat(version["fetched_at"]) == entry.commit_date
    docs_key = resolve_source("https://docs.example.org/engine").key
    docs = json.loads((project / "snapshots" / docs_key / "index.json").read_text())
    assert docs["versions"][0]["origin"].startswith("wayback ")
    again = runner.invoke(app, ["backfill"])
    assert "0 baselines stored" in again.stderr  # running twice is safe


def test_blame_command_names_the_commit(project: Path, replay: ReplayServer) -> None:
    replay.as_of = dt.date(2024, 3, 15)
    (project / "claims" / "p.yaml").write_text(
        "page: p\nchecked: 2023-06-15\nclaims:\n"
        f"  - id: quant\n    claim: c\n    source: https://github.com/{LLAMA}\n"
        f'    quote: "{QUOTE_2023}"\n'
    )
    result = runner.invoke(app, ["blame", "quant"])
    assert result.exit_code == 0, result.output
    baseline = replay.entry_as_of(LLAMA, dt.date(2023, 6, 15))
    assert baseline is not None
    assert (
        f"commit {first_commit_without(replay, QUOTE_2023, baseline.commit_date)}" in result.stdout
    )
    assert "drifted" in result.stdout or "missing" in result.stdout
    assert runner.invoke(app, ["blame", "nope"]).exit_code == 2


def test_diff_of_a_drifted_claim_shows_its_baseline_unit_beside_the_text_now(
    project: Path, replay: ReplayServer
) -> None:
    replay.as_of = dt.date(2024, 3, 15)
    (project / "claims" / "p.yaml").write_text(
        "page: p\nchecked: 2023-06-15\nclaims:\n"
        f"  - id: quant\n    claim: c\n    source: https://github.com/{LLAMA}\n"
        f'    quote: "{QUOTE_2023}"\n'
    )
    assert runner.invoke(app, ["verify", "--format", "json"]).exit_code == 1

    result = runner.invoke(app, ["diff", "quant"])

    assert result.exit_code == 0, result.output
    assert "--- now (the closest text)" in result.stdout
    assert "(quote not found)" not in result.stdout
    assert "--- word diff" in result.stdout
    assert "{+" in result.stdout  # what the closest text added
    missing = runner.invoke(app, ["diff", "nope"])
    assert missing.exit_code == 2


def test_a_wayback_capture_that_is_a_challenge_page_never_becomes_a_baseline(
    project: Path, replay: ReplayServer
) -> None:
    timestamp = "20261015093000"
    wayback(replay, timestamp)
    challenge = (
        "<!DOCTYPE html><html><head><title>Just a moment...</title></head><body>"
        "<p>Checking your browser before accessing docs.example.org.</p></body></html>"
    )
    replay.set_page(f"/web/{timestamp}id_/https://docs.example.org/engine", challenge)
    (project / "claims" / "p.yaml").write_text(
        "page: p\nchecked: 2026-10-20\nclaims:\n"
        "  - id: docs\n    claim: c\n    source: https://docs.example.org/engine\n"
        "    quote: supports Metal and CUDA\n"
    )

    result = runner.invoke(app, ["backfill"])

    assert result.exit_code == 3, result.output  # could not check: no baseline to be had
    assert "0 baselines stored, 1 not found" in result.stderr
    assert not list((project / "snapshots").rglob("index.json"))


def _claims(project: Path, *claims: tuple[str, str, str]) -> None:
    lines = ["page: p", "checked: 2026-01-01", "claims:"]
    for claim_id, checked, quote in claims:
        lines += [
            f"  - id: {claim_id}",
            "    claim: c",
            f"    source: https://github.com/{LLAMA}",
            f"    checked: {checked}",
            f'    quote: "{quote}"',
        ]
    (project / "claims" / "p.yaml").write_text("\n".join(lines) + "\n")


def _asked(replay: ReplayServer) -> dict[str, int]:
    """The API requests of a run by what they asked for."""
    kinds = {"raw": 0, "readme": 0, "commits": 0, "at-ref": 0}
    for request in replay.requests_to(f"/repos/{LLAMA}/"):
        if request.path.endswith("/commits"):
            kinds["commits"] += 1
        elif "ref" in request.query:
            kinds["at-ref"] += 1
        elif "raw" in request.headers.get("accept", ""):
            kinds["raw"] += 1
        else:
            kinds["readme"] += 1  # the content object: the README and its path
    return kinds


def test_a_baseline_unchanged_since_is_not_downloaded_again_and_its_path_is_asked_once(
    project: Path, replay: ReplayServer
) -> None:
    """Cold: two requests — the README (its content object names its path too) and its
    commits — and no second download of a file that did not change since the check
    date. Warm: one conditional request. A new claim with an older date asks for its
    version, but not for the path again."""
    replay.as_of = dt.date(2023, 6, 20)
    _claims(project, ("quant", "2023-06-15", QUOTE_2023))
    replay.clear_requests()
    assert runner.invoke(app, ["verify"]).exit_code == 0
    assert _asked(replay) == {"raw": 0, "readme": 1, "commits": 1, "at-ref": 0}
    index_path = project / "snapshots/github.com/ggml-org/llama.cpp/README/index.json"
    index = json.loads(index_path.read_text())
    assert index["history"]["readme_path"] == "README.md"
    head = replay.entry_as_of(LLAMA, dt.date(2023, 6, 20))
    assert head is not None
    assert [v["origin"] for v in index["versions"]] == [f"commit {head.commit}", "fetch"]
    assert len({v["file"] for v in index["versions"]}) == 1  # one body, stored once

    replay.clear_requests()
    assert runner.invoke(app, ["verify"]).exit_code == 0
    assert _asked(replay) == {"raw": 0, "readme": 1, "commits": 0, "at-ref": 0}
    (conditional,) = replay.requests_to(f"/repos/{LLAMA}/readme")
    assert conditional.status == 304

    _claims(project, ("quant", "2023-06-15", QUOTE_2023), ("old", "2023-04-15", "llama"))
    replay.clear_requests()
    runner.invoke(app, ["verify"])
    assert _asked(replay) == {"raw": 0, "readme": 1, "commits": 1, "at-ref": 1}


def test_a_claim_older_than_its_source_asks_history_once(
    project: Path, replay: ReplayServer
) -> None:
    """History that answers "nothing that old" is remembered; a failure is not."""
    replay.as_of = dt.date(2024, 3, 15)
    _claims(project, ("ancient", "2020-01-15", "llama"))
    replay.clear_requests()
    runner.invoke(app, ["verify"])
    assert _asked(replay)["commits"] >= 1
    index_path = project / "snapshots/github.com/ggml-org/llama.cpp/README/index.json"
    assert json.loads(index_path.read_text())["history"]["none_until"] == "2020-01-15"

    replay.clear_requests()
    runner.invoke(app, ["verify"])
    assert _asked(replay) == {"raw": 0, "readme": 1, "commits": 0, "at-ref": 0}


@pytest.mark.parametrize(("status", "remembered"), [(404, True), (503, False)])
def test_history_that_answers_404_is_remembered_and_a_failure_is_not(
    project: Path, replay: ReplayServer, status: int, remembered: bool
) -> None:
    """A commits API that says "not found" is asked once; one that fails, every run."""
    replay.as_of = dt.date(2024, 3, 15)
    _claims(project, ("quant", "2024-03-01", "llama"))
    replay.fail(f"/repos/{LLAMA}/commits", status=status, times=None)
    runner.invoke(app, ["verify"])
    replay.clear_requests()
    runner.invoke(app, ["verify"])
    assert (_asked(replay)["commits"] == 0) is remembered


class _HeldReadme(ReplayServer):
    """Holds one repository's README until another's commits are asked (or 5 s pass)."""

    def __init__(self, corpus: Path, held: str) -> None:
        super().__init__(corpus)
        self.held = held
        self.other_history_asked = threading.Event()
        self.released_by_history: bool | None = None

    def handle(
        self, method: str, target: str, headers: dict[str, str], body: bytes
    ) -> tuple[Reply, RecordedRequest]:
        path = urlsplit(target).path
        if path == f"/repos/{self.held}/readme" and self.released_by_history is None:
            self.released_by_history = self.other_history_asked.wait(timeout=5)
        elif path.endswith("/commits") and not path.startswith(f"/repos/{self.held}/"):
            self.other_history_asked.set()
        return super().handle(method, target, headers, body)


def test_history_is_asked_as_each_answer_arrives_not_after_every_fetch(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, corpus_root: Path
) -> None:
    """A slow source does not hold up the others' history: llama.cpp's commits are asked
    while vLLM's README is still on its way, and both baselines are stored as if asked
    one phase after the other."""
    held = "vllm-project/vllm"
    with _HeldReadme(corpus_root, held) as server:
        server.as_of = dt.date(2023, 6, 20)  # both quotes hold: no blame asks commits
        monkeypatch.chdir(tmp_path)
        monkeypatch.setenv("GITHUB_API_URL", server.base_url)
        monkeypatch.delenv("GITHUB_TOKEN", raising=False)
        (tmp_path / "claimcheck.toml").write_text(
            "[fetch]\nper_host_interval = 0\n[verdict]\nmax_age_days = 0\n"
        )
        (tmp_path / "claims").mkdir()
        (tmp_path / "claims" / "p.yaml").write_text(
            "page: p\nchecked: 2023-06-15\nclaims:\n"
            f"  - id: quant\n    claim: c\n    source: https://github.com/{LLAMA}\n"
            f'    quote: "{QUOTE_2023}"\n'
            f"  - id: vllm\n    claim: c\n    source: https://github.com/{held}\n"
            "    quote: Build from source\n"  # vLLM was still CacheFlow then
        )
        result = runner.invoke(app, ["verify", "--format", "json"])

        assert result.exit_code == 0, result.output
        assert server.released_by_history is True
        for repository in (LLAMA, held):
            assert len(server.requests_to(f"/repos/{repository}/commits")) == 1
            index = tmp_path / "snapshots/github.com" / repository / "README/index.json"
            origins = [v["origin"] for v in json.loads(index.read_text())["versions"]]
            assert origins[0].startswith("commit ")  # the baseline, by its true date
            assert origins[-1] == "fetch"
        assert server.errors == []


def test_claims_judged_as_their_sources_settle_are_judged_as_an_offline_run_judges_them(
    project: Path, replay: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    """An online run judges each source's claims inside the fetch, once its history is
    in; an offline run afterwards, with nothing kept, judges every claim after reading
    the store alone. Both say the same of every claim: verified, drifted or missing,
    against the same baselines."""
    from claimcheck import judging

    early: list[int] = []
    real = judging.JudgedAsSettled.settled

    def counted(self: Any, url: str, state: Any) -> None:
        before = len(self.judged)
        real(self, url, state)
        early.append(len(self.judged) - before)

    monkeypatch.setattr(judging.JudgedAsSettled, "settled", counted)
    replay.as_of = dt.date(2024, 3, 15)
    _claims(
        project,
        ("quant-2023", "2023-06-15", QUOTE_2023),  # held then, not now: stale
        ("quant-old", "2023-04-15", "llama"),
        ("quant-new", "2024-02-20", "llama"),
        ("quant-none", "2023-09-15", "a sentence that was never in the README"),
    )
    online = runner.invoke(app, ["verify", "--format", "json"])
    assert online.exit_code == 1, online.output
    assert sum(early) == 4  # every claim, each as its source settled

    for kept in (project / "snapshots" / ".cache").iterdir():
        if kept.is_dir():
            shutil.rmtree(kept)
        elif kept.name.endswith(".json"):
            kept.unlink()
    offline = runner.invoke(app, ["verify", "--offline", "--format", "json"])

    def judged(output: str) -> list[tuple[Any, ...]]:
        fields = ("id", "verdict", "reason", "baseline", "baseline_origin", "diff", "found")
        results = json.loads(output)["results"]
        when = r" \(snapshot of \d{4}-\d\d-\d\d\)| in the snapshot of \d{4}-\d\d-\d\d| now"
        for r in results:  # an offline run names the snapshot it read; an online, "now"
            r["reason"] = re.sub(when, "", r["reason"])
        return [tuple(r[f] for f in fields) for r in results]

    assert judged(online.stdout) == judged(offline.stdout)
    assert {r[1] for r in judged(online.stdout)} >= {"verified", "missing"}


# -- each history or blame request is sent once a run -------------------------------------

# The quantization bullet before 2024-02-29 (the commit 052051d8ae of that day removed it).
QUOTE_FEB = "2-bit, 3-bit, 4-bit, 5-bit, 6-bit and 8-bit integer quantization support"


def _sent(replay: ReplayServer) -> Counter[tuple[str, str, str]]:
    """How many times each request reached the server: path, query, media type."""
    return Counter(
        (r.path, "&".join(f"{k}={v}" for k, v in sorted(r.query.items())), r.headers["accept"])
        for r in replay.requests
    )


def test_three_stale_claims_on_one_source_send_each_history_request_once(
    project: Path, replay: ReplayServer
) -> None:
    """Three claims on llama.cpp's README, checked on three days, all stale: history
    (the commit list, the file at the commits in force) and blame (the commits since
    each baseline, the bisection's files) share one answer per request."""
    replay.as_of = dt.date(2024, 3, 15)
    _claims(
        project,
        ("jan", "2024-01-10", QUOTE_FEB),
        ("feb", "2024-02-05", QUOTE_FEB),
        ("late", "2024-02-20", QUOTE_FEB),
    )
    replay.clear_requests()

    result = runner.invoke(app, ["verify", "--format", "json"])

    assert result.exit_code == 1, result.output
    judged = {
        r["id"]: (r["verdict"], r["baseline"], r["blame"]["sha"][:10])
        for r in json.loads(result.stdout)["results"]
    }
    # The README of 2023-12-31 (edd1ab7) was in force on Jan 10, that of 2024-01-31
    # (1cfb537) in February until 052051d removed the bullet on the 29th.
    assert judged == {
        "jan": ("drifted", "2023-12-31", "052051d8ae"),
        "feb": ("drifted", "2024-01-31", "052051d8ae"),
        "late": ("drifted", "2024-01-31", "052051d8ae"),
    }
    sent = _sent(replay)
    assert [request for request, times in sent.items() if times > 1] == []
    commits = [query for path, query, _ in sent if path.endswith("/commits")]
    assert len(commits) == 3  # the newest commits; those since each of two baselines
    # The source's one request and history's look-ups, counted apart.
    look_ups = sum(sent.values()) - 1
    assert f"1 source, 1 request, {look_ups} history look-ups," in result.stderr


def test_the_steps_of_a_run_share_historys_answers(replay: ReplayServer) -> None:
    """Asked at once by several claims, or again by a later step over its own fetcher
    and event loop (backfill after the fetch, blame after the judging), one request
    reaches the server once and every asker has its answer."""
    replay.as_of = dt.date(2024, 3, 15)
    source = GitHubFile("ggml-org", "llama.cpp", None, None)
    asked = Asked()
    days = [dt.date(2024, 1, 10), dt.date(2024, 2, 5), dt.date(2024, 2, 20)]

    async def step() -> list[Version | Absent | None]:
        async with Fetcher(FAST) as fetcher:
            history = History(fetcher, api_url=replay.base_url, token=None, asked=asked)
            ends = [dt.datetime.combine(d, dt.time.max, tzinfo=dt.UTC) for d in days]
            return list(await asyncio.gather(*(history.github.version(source, e) for e in ends)))

    replay.clear_requests()
    first = asyncio.run(step())
    sent_first = _sent(replay)
    again = asyncio.run(step())

    assert again == first
    assert [getattr(v, "origin", None) for v in first] == [
        "commit edd1ab7bc34c10a780ee7f9a4499f7689cdad36d",
        "commit 1cfb5372cf5707c8ec6dde7c874f4a44a6c4c915",
        "commit 1cfb5372cf5707c8ec6dde7c874f4a44a6c4c915",
    ]
    assert _sent(replay) == sent_first  # the second step sent nothing
    assert set(sent_first.values()) == {1}
    assert len(sent_first) == 4  # README path, newest commits, two files
    fresh = asyncio.run(_versions_without_sharing(replay, source, days))
    assert fresh == first  # the same answers as histories that share nothing


async def _versions_without_sharing(
    replay: ReplayServer, source: GitHubFile, days: list[dt.date]
) -> list[Version | Absent | None]:
    found = []
    for day in days:
        async with Fetcher(FAST) as fetcher:
            history = History(fetcher, api_url=replay.base_url, token=None)
            end = dt.datetime.combine(day, dt.time.max, tzinfo=dt.UTC)
            found.append(await history.github.version(source, end))
    return found


def test_the_answers_a_run_keeps_are_bounded_the_least_recently_used_let_go(
    replay: ReplayServer,
) -> None:
    """Room for one README: the older of two files asked is sent again, the newer not."""
    source = GitHubFile("ggml-org", "llama.cpp", None, "README.md")
    jan, feb = (
        "edd1ab7bc34c10a780ee7f9a4499f7689cdad36d",
        "1cfb5372cf5707c8ec6dde7c874f4a44a6c4c915",
    )
    room = 60_000  # llama.cpp's README is 56,015 bytes at the end of January 2024
    asked = Asked(limit=room)

    async def files(*shas: str) -> list[bytes | None]:
        async with Fetcher(FAST) as fetcher:
            history = History(fetcher, api_url=replay.base_url, token=None, asked=asked)
            return [await history.github.file_at(source, sha) for sha in shas]

    replay.clear_requests()
    first = asyncio.run(files(jan, feb))
    assert all(body is not None and len(body) < room < 2 * len(body) for body in first)
    assert asyncio.run(files(feb, jan)) == first[::-1]  # February's kept, January's sent again
    refs = [r.query["ref"] for r in replay.requests]
    assert refs == [jan, feb, jan]


def test_a_request_whose_askers_were_cancelled_is_sent_again() -> None:
    """A stopped step cancels its askers and their fetch with them (nothing outlives its
    fetcher); the same request asked afterwards is sent anew, not left unanswered."""
    with counting_server() as server:
        first = threading.Event()

        def route(handler: BaseHTTPRequestHandler) -> None:
            if not first.is_set():
                first.set()
                server.release.wait(10)  # the first answer never comes in time
            answer(200, b"[]", content_type="application/json")(handler)

        server.routes["/commits"] = route
        asked = Asked()
        request = FetchRequest(url=server.url("/commits"))

        async def scenario() -> FetchOutcome:
            async with Fetcher(FAST) as fetcher:
                askers = [asyncio.create_task(asked.fetch(fetcher, request)) for _ in range(2)]
                await asyncio.to_thread(first.wait, 10)
                for asker in askers:
                    asker.cancel()
                await asyncio.gather(*askers, return_exceptions=True)
                assert all(asker.cancelled() for asker in askers)
                return await asked.fetch(fetcher, request)

        outcome = asyncio.run(scenario())
        server.release.set()

    assert isinstance(outcome, Fetched)
    assert (outcome.status, outcome.body) == (200, b"[]")
    assert server.requests == 2
