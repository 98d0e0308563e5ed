"""End to end: the real `claimcheck` CLI against the GitHub-shaped replay server on 127.0.0.1.

Every test works in a fresh project folder (claims/, snapshots/) with GITHUB_API_URL
pointing at the replay server, which serves real llama.cpp README history as of a
chosen date and misbehaves on request (404/410, redirects, renamed repos, 503s,
dropped connections, spent rate limits).
"""

from __future__ import annotations

import datetime as dt
import json
import os
import subprocess
import sys
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from typer.testing import CliRunner, Result

from claimcheck.forges.resolve import resolve_source
from claimcheck.models import MediaType
from claimcheck.report.schema import report_schema
from claimcheck.store.store import Store
from support import paths
from support.claim_files import (
    FEB_15,
    LLAMA,
    LLAMA_URL,
    MAR_15,
    PAGE_HTML,
    QUOTE_FEB,
    QUOTE_MAR,
    README_API,
    claim,
    write_claims,
)
from support.cli_runs import run, today, tree
from support.cli_runs import show as _show
from support.corpus_snapshots import import_version, versions
from support.replay_server import ReplayServer

TOKEN = "ghp_e2eTestToken0123456789abcdefSECRET"
PROXY_VARS = ("HTTP_PROXY", "HTTPS_PROXY", "ALL_PROXY", "NO_PROXY")
RESULT_KEYS = {
    "id",
    "page",
    "file",
    "line",
    "verdict",
    "reason",
    "source",
    "quote",
    "score",
    "found",
    "diff",
    "snapshot",
    "moved_to",
}
VERDICTS = {
    "verified",
    "context-changed",
    "expired",
    "drifted",
    "changed",
    "missing",
    "contradicted",
    "source-gone",
    "moved",
    "unreachable",
    "unverified",
}

runner = CliRunner()


# -- helpers ---------------------------------------------------------------------------


def no_expiry(project: Path) -> None:
    """Claims checked in 2024 would be `expired` today; these tests are about the text."""
    (project / "claimcheck.toml").write_text("[verdict]\nmax_age_days = 0\n")


def verify_json(*args: str) -> tuple[Result, dict[str, Any]]:
    """`claimcheck verify --format json ...`: the result and the parsed report."""
    result = run("verify", "--format", "json", *args)
    assert result.exit_code in (0, 1, 3), _show(result)
    return result, json.loads(result.stdout)


def by_id(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """The report's results keyed by claim id."""
    return {r["id"]: r for r in document["results"]}


@pytest.fixture
def project(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer) -> Path:
    """A fresh project folder as the current directory, its API pointed at the replay server."""
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)  # no archived copies: a quick 404
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    for name in PROXY_VARS:
        monkeypatch.delenv(name, raising=False)
        monkeypatch.delenv(name.lower(), raising=False)
    return tmp_path


# -- the llama.cpp quantization claim over time ----------------------------------------


def test_quantization_claim_verified_in_february_drifted_in_march(
    project: Path, replay: ReplayServer
) -> None:
    no_expiry(project)
    write_claims(project / "claims", [claim(quote=QUOTE_FEB)], checked="2024-02-15")

    replay.as_of = FEB_15
    february, feb_doc = verify_json()
    replay.as_of = MAR_15
    march, mar_doc = verify_json()

    assert february.exit_code == 0, _show(february)
    assert march.exit_code == 1, _show(march)
    (before,), (after,) = feb_doc["results"], mar_doc["results"]
    assert before["verdict"] == "verified"
    assert before["snapshot"] == dt.datetime.now(dt.UTC).date().isoformat()
    assert after["verdict"] == "drifted"
    assert after["snapshot"] is not None
    assert ", and 8-bit integer quantization" in after["found"]  # the March wording
    assert 0 < after["score"] < 100
    assert after["diff"]
    assert mar_doc["counts"]["drifted"] == 1
    bodies = [p for p in (project / "snapshots").rglob("*.md")]
    assert len(bodies) == 2  # one stored file per README text, the baseline's shared
    march_commit = replay.entry_as_of(LLAMA, MAR_15)
    assert march_commit is not None
    assert after["blame"]["sha"] == march_commit.commit  # the commit that changed it


def test_sample_claim_holds_from_march_2024_to_head(project: Path, replay: ReplayServer) -> None:
    no_expiry(project)
    write_claims(project / "claims", [claim(quote=QUOTE_MAR)], checked="2024-03-15")

    replay.as_of = MAR_15
    march, march_doc = verify_json()
    replay.as_of = None
    head, head_doc = verify_json()

    assert (march.exit_code, head.exit_code) == (0, 0)
    assert march_doc["results"][0]["verdict"] == "verified"
    # Still verbatim at head. The feature list around it was rewritten since, but its
    # own item, its headings and the notices over it are as they were: siblings are
    # not context, so it stays verified.
    assert head_doc["results"][0]["verdict"] == "verified"


def test_a_quote_that_was_never_in_its_baseline_is_missing(
    project: Path, replay: ReplayServer
) -> None:
    no_expiry(project)
    write_claims(project / "claims", [claim(quote=QUOTE_MAR)], checked="2024-02-15")
    replay.as_of = MAR_15

    result, document = verify_json()

    assert result.exit_code == 0, _show(result)  # it holds now...
    assert "not yet there on 2024-02-15" in document["results"][0]["reason"]
    replay.as_of = FEB_15
    write_claims(project / "claims", [claim(quote="a sentence nobody ever wrote, anywhere")])
    result, document = verify_json()
    assert document["results"][0]["verdict"] == "missing"


def test_an_old_check_date_expires(project: Path, replay: ReplayServer) -> None:
    write_claims(project / "claims", [claim(quote=QUOTE_MAR)], checked="2024-03-15")
    replay.as_of = MAR_15

    result, document = verify_json()

    assert result.exit_code == 0, _show(result)
    assert document["results"][0]["verdict"] == "expired"
    assert run("verify", "--fail-on", "expired").exit_code == 1


# -- every verdict and its exit code ---------------------------------------------------


@dataclass(frozen=True)
class Case:
    """One claim, how the server is set up for it, and what the CLI must answer."""

    entry: dict[str, str]
    verdict: str
    exit_code: int
    setup: Callable[[ReplayServer], object] = lambda _server: None
    reason: str = ""
    extra: dict[str, Any] = field(default_factory=dict)


def _moved_page(server: ReplayServer) -> None:
    server.set_page("/docs/new.html", PAGE_HTML)
    server.redirect("/docs/old.html", "/docs/new.html", status=301)


def _gone_page(server: ReplayServer) -> None:
    server.set_page("/docs/gone.html", "<p>Gone</p>", status=410)


def _fail_forever(server: ReplayServer) -> None:
    server.fail(README_API, status=503, times=None, headers={"Retry-After": "0"})


CASES = {
    "verified": Case(claim(), "verified", 0),
    "verified-web-page": Case(
        claim(source="{base}/docs/page.html"),
        "verified",
        0,
        setup=lambda s: s.set_page("/docs/page.html", PAGE_HTML),
    ),
    "drifted": Case(
        claim(quote=QUOTE_FEB, checked="2024-02-15"),
        "drifted",
        1,
        setup=lambda s: setattr(s, "as_of", MAR_15),
        reason="changed",
    ),
    "missing": Case(
        claim(quote="runs natively on quantum annealers with zero-bit weights"), "missing", 1
    ),
    "source-gone-404": Case(claim(source="https://github.com/nobody/nothing"), "source-gone", 1),
    "source-gone-410": Case(
        claim(source="{base}/docs/gone.html"), "source-gone", 1, setup=_gone_page
    ),
    "moved-web-page": Case(
        claim(source="{base}/docs/old.html"),
        "moved",
        0,
        setup=_moved_page,
        extra={"moved_to": "{base}/docs/new.html"},
    ),
    "moved-github-repo": Case(
        claim(source="https://github.com/ggerganov/llama.cpp"),
        "moved",
        0,
        setup=lambda s: s.move_repo("ggerganov/llama.cpp", LLAMA),
    ),
    "unreachable-503": Case(claim(), "unreachable", 3, setup=_fail_forever, reason="503"),
    "unreachable-dropped": Case(
        claim(source="{base}/docs/page.html"),
        "unreachable",
        3,
        setup=lambda s: s.drop("/docs/page.html"),
    ),
    "unreachable-rate-limited": Case(
        claim(),
        "unreachable",
        3,
        setup=lambda s: setattr(s, "rate_limit_remaining", 0),
        reason="rate limit",
    ),
    "unverified-citation-needed": Case(
        claim(source=None, quote=None, cited="DeepInfer README"), "unverified", 0
    ),
}


@pytest.mark.parametrize("case", CASES.values(), ids=CASES.keys())
def test_verdict_and_exit_code(project: Path, replay: ReplayServer, case: Case) -> None:
    entry = {k: v.replace("{base}", replay.base_url) for k, v in case.entry.items()}
    write_claims(project / "claims", [entry])
    case.setup(replay)

    result, document = verify_json()

    (found,) = document["results"]
    assert found["verdict"] == case.verdict, _show(result)
    assert result.exit_code == case.exit_code, _show(result)
    assert case.reason.lower() in found["reason"].lower()
    for key, value in case.extra.items():
        assert found[key] == value.replace("{base}", replay.base_url)
    assert document["counts"][case.verdict] == 1


def test_every_verdict_in_one_run(project: Path, replay: ReplayServer) -> None:
    """One run over a file holding every verdict: JSON shape, counts, stale beats unchecked."""
    replay.set_page("/docs/page.html", PAGE_HTML)
    _moved_page(replay)
    _gone_page(replay)
    replay.set_file("acme/widget", "README.md", f"# Widget\n\n{QUOTE_FEB}\n")
    replay.fail("/repos/acme/flaky/readme", status=503, times=None, headers={"Retry-After": "0"})
    replay.move_repo("ggerganov/llama.cpp", LLAMA)
    replay.set_page("/data/tool.json", '{"license": "Apache-2.0"}', "application/json")
    base = replay.base_url
    entries = [
        claim("verified"),
        claim("drifted", source="https://github.com/acme/widget"),
        claim("missing", quote="runs natively on quantum annealers with zero-bit weights"),
        claim("gone", source="https://github.com/nobody/nothing"),
        claim("gone-page", source=f"{base}/docs/gone.html"),
        claim("moved", source=f"{base}/docs/old.html"),
        claim("moved-repo", source="https://github.com/ggerganov/llama.cpp"),
        claim("unreachable", source="https://github.com/acme/flaky"),
        claim("citation-needed", source=None, quote=None, cited="a talk"),
        claim("contradicted", quote=None, absent="integer quantization"),
        claim(
            "changed", source=f"{base}/data/tool.json", quote=None, field="/license", value="MIT"
        ),
    ]
    write_claims(project / "claims", entries)

    result, document = verify_json()

    assert result.exit_code == 1, _show(result)
    assert document["schema_version"] == 1
    assert document["offline"] is False
    dt.datetime.fromisoformat(document["generated_at"])
    assert set(document["counts"]) == VERDICTS
    jsonschema.validate(document, report_schema())  # the published schema holds
    verdicts = {r["id"]: r["verdict"] for r in document["results"]}
    assert verdicts == {
        "verified": "verified",
        "drifted": "drifted",
        "missing": "missing",
        "gone": "source-gone",
        "gone-page": "source-gone",
        "moved": "moved",
        "moved-repo": "moved",
        "unreachable": "unreachable",
        "citation-needed": "unverified",
        "contradicted": "contradicted",
        "changed": "changed",
    }
    assert [r["id"] for r in document["results"]] == [e["id"] for e in entries]
    assert sum(document["counts"].values()) == len(entries)
    lines = (project / "claims" / "page.yaml").read_text().splitlines()
    for found in document["results"]:
        assert set(found) >= RESULT_KEYS, found["id"]
        assert found["file"] == "claims/page.yaml"
        assert lines[found["line"] - 1] == f'  - id: "{found["id"]}"'
        assert found["page"] == "page"
        assert found["reason"]
    results = by_id(document)
    assert results["verified"]["found"] == QUOTE_MAR
    assert results["verified"]["quote"] == QUOTE_MAR
    assert results["verified"]["source"] == LLAMA_URL
    assert results["citation-needed"]["snapshot"] is None
    assert results["moved"]["moved_to"] == f"{base}/docs/new.html"
    assert results["verified"]["moved_to"] is None


def test_unreachable_and_unverified_exit_3_only_when_nothing_is_stale(
    project: Path, replay: ReplayServer
) -> None:
    _fail_forever(replay)
    write_claims(
        project / "claims",
        [claim("down"), claim("fine", source=f"{replay.base_url}/p")],
    )
    replay.set_page("/p", PAGE_HTML)

    result, document = verify_json()

    assert result.exit_code == 3, _show(result)
    assert {r["verdict"] for r in document["results"]} == {"unreachable", "verified"}


def test_renamed_repo_reports_its_new_github_address(project: Path, replay: ReplayServer) -> None:
    replay.move_repo("ggerganov/llama.cpp", LLAMA)
    write_claims(project / "claims", [claim(source="https://github.com/ggerganov/llama.cpp")])

    _, document = verify_json()

    assert document["results"][0]["verdict"] == "moved"
    assert document["results"][0]["moved_to"] == LLAMA_URL
    assert replay.requests_to("/repositories/")  # the new name was asked for once


# -- snapshots, conditional requests, offline ------------------------------------------


def test_second_run_writes_nothing_and_is_answered_304(
    project: Path, replay: ReplayServer, corpus_root: Path
) -> None:
    write_claims(project / "claims", [claim()])
    first = run("verify")
    after_first = tree(project / "snapshots")
    readme_requests = replay.requests_to(README_API)
    etag = readme_requests[-1]

    replay.clear_requests()
    second = run("verify")
    after_second = tree(project / "snapshots")

    assert first.exit_code == second.exit_code == 0, _show(second)
    assert len([p for p in after_first if p.endswith(".md")]) == 1
    assert "state.json" in after_first
    # Same files, same bytes, not one rewritten: the state, the page cache included.
    assert after_second == after_first
    assert any(p.startswith(".cache/pages/") for p in after_first)
    (conditional,) = replay.requests_to(README_API)
    head_sha = replay.entry_as_of(LLAMA)
    assert head_sha is not None
    assert conditional.headers["if-none-match"] == f'"{head_sha.blob_sha}"'
    assert conditional.status == 304
    assert etag.status == 200
    stored = next(body for path, (body, _) in after_first.items() if path.endswith(".md"))
    assert stored == (corpus_root / "ggml-org__llama.cpp" / "2026-08-01.md").read_bytes()


def test_changed_source_adds_a_snapshot_and_keeps_the_old(
    project: Path, replay: ReplayServer
) -> None:
    write_claims(project / "claims", [claim(quote=QUOTE_FEB)])
    replay.as_of = FEB_15
    run("verify")
    replay.as_of = MAR_15
    run("verify")

    readme = project / "snapshots" / "github.com" / "ggml-org" / "llama.cpp" / "README"
    index = json.loads((readme / "index.json").read_text())
    fetched = [v for v in index["versions"] if v["origin"] == "fetch"]
    assert len(fetched) == 2
    assert len({v["file"] for v in index["versions"]}) == 2
    assert {v["etag"] for v in fetched} == {
        f'"{entry.blob_sha}"'
        for entry in (replay.entry_as_of(LLAMA, FEB_15), replay.entry_as_of(LLAMA, MAR_15))
        if entry is not None
    }
    assert all((readme / v["file"]).is_file() for v in index["versions"])


def test_offline_uses_stored_snapshots_and_sends_nothing(
    project: Path, replay: ReplayServer
) -> None:
    write_claims(project / "claims", [claim(quote=QUOTE_FEB)])
    replay.as_of = FEB_15
    assert run("verify").exit_code == 0
    stored = tree(project / "snapshots")
    replay.as_of = MAR_15  # the live source has drifted; offline must not see it
    replay.clear_requests()

    result, document = verify_json("--offline")

    assert result.exit_code == 0, _show(result)
    assert document["offline"] is True
    assert document["results"][0]["verdict"] == "verified"
    assert document["results"][0]["snapshot"] is not None
    assert replay.requests == []
    assert document["results"][0]["reason"].startswith(
        "the quote is in the source in the snapshot of "
    )
    # Nothing is written: the snapshots, the state and the kept pages are as they were,
    # and the online run's kept verdict serves the offline one (its reason's words
    # switched to say the source was read from the store).
    assert tree(project / "snapshots") == stored


def test_offline_without_snapshot_is_unverified_exit_3(project: Path, replay: ReplayServer) -> None:
    write_claims(project / "claims", [claim()])

    result, document = verify_json("--offline")

    assert result.exit_code == 3, _show(result)
    assert document["results"][0]["verdict"] == "unverified"
    assert document["results"][0]["snapshot"] is None
    assert replay.requests == []
    assert not (project / "snapshots").exists()


def test_snapshot_command_only_fetches_and_stores(
    project: Path, replay: ReplayServer, corpus_root: Path
) -> None:
    write_claims(project / "claims", [claim()])

    result = run("snapshot")

    assert result.exit_code == 0, _show(result)
    assert "llamacpp-quantization" not in result.stdout  # no report, no judgement
    bodies = [p for p in (project / "snapshots").rglob("*.md")]
    assert len(bodies) == 1
    head = replay.readme_as_of(LLAMA)
    assert head == (corpus_root / "ggml-org__llama.cpp" / "2026-08-01.md").read_bytes()
    assert bodies[0].read_bytes() == head
    replay.clear_requests()
    _, document = verify_json("--offline")
    assert document["results"][0]["verdict"] == "verified"
    assert replay.requests == []


def test_snapshot_command_exit_3_when_a_source_fails(project: Path, replay: ReplayServer) -> None:
    write_claims(project / "claims", [claim()])
    _fail_forever(replay)

    result = run("snapshot")

    assert result.exit_code == 3, _show(result)
    assert not list((project / "snapshots").rglob("*.md"))


# -- network trouble -------------------------------------------------------------------


def test_503_that_recovers_is_verified(project: Path, replay: ReplayServer) -> None:
    write_claims(project / "claims", [claim()])
    replay.fail(README_API, status=503, times=2, headers={"Retry-After": "0"})

    result, document = verify_json()

    assert result.exit_code == 0, _show(result)
    assert document["results"][0]["verdict"] == "verified"
    assert [r.status for r in replay.requests_to(README_API)][:3] == [503, 503, 200]


def test_dropped_connection_that_recovers_is_verified(project: Path, replay: ReplayServer) -> None:
    write_claims(project / "claims", [claim()])
    replay.drop(README_API, times=1)

    result, document = verify_json()

    assert result.exit_code == 0, _show(result)
    assert document["results"][0]["verdict"] == "verified"


def test_503_forever_is_unreachable_exit_3_never_1(project: Path, replay: ReplayServer) -> None:
    write_claims(project / "claims", [claim(quote=QUOTE_FEB)])
    replay.as_of = FEB_15
    assert run("verify").exit_code == 0
    replay.as_of = MAR_15  # the source drifted, but we cannot see it: not stale, unknown
    _fail_forever(replay)
    replay.clear_requests()

    result, document = verify_json()

    assert result.exit_code == 3, _show(result)
    (found,) = document["results"]
    assert found["verdict"] == "unreachable"
    assert "503" in found["reason"]
    assert found["snapshot"] is not None  # the last stored snapshot is named
    assert len(replay.requests_to(README_API)) > 1  # retried before giving up


# -- bad input -------------------------------------------------------------------------

MALFORMED = {
    "unknown-key": (
        "page: page\nchecked: 2026-10-20\nclaims:\n  - id: good\n    claim: ok\n"
        f'    source: {LLAMA_URL}\n    quote: "{QUOTE_MAR}"\n'
        "  - id: typo\n    claim: a claim\n"
        f'    source: {LLAMA_URL}\n    qoute: "{QUOTE_MAR}"\n',
        11,
        "typo",
        "qoute",
    ),
    "bad-url": (
        "page: page\nchecked: 2026-10-20\nclaims:\n  - id: ftp\n    claim: a claim\n"
        '    source: ftp://example.com/file\n    quote: "x"\n',
        6,
        "ftp",
        "source",
    ),
    "source-without-quote": (
        "page: page\nchecked: 2026-10-20\nclaims:\n  - id: bare\n    claim: a claim\n"
        f"    source: {LLAMA_URL}\n",
        4,
        "bare",
        "quote",
    ),
}


@pytest.mark.parametrize(
    ("text", "line", "claim_id", "field_name"), MALFORMED.values(), ids=MALFORMED.keys()
)
def test_malformed_claim_file_exits_2_naming_file_line_claim_and_field(
    project: Path, replay: ReplayServer, text: str, line: int, claim_id: str, field_name: str
) -> None:
    (project / "claims").mkdir()
    (project / "claims" / "page.yaml").write_text(text)

    result = run("verify")

    assert result.exit_code == 2, _show(result)
    assert f"claims/page.yaml:{line}:" in result.stderr
    assert f"'{claim_id}'" in result.stderr
    assert field_name in result.stderr
    assert result.stdout == ""
    assert replay.requests == []
    assert not (project / "snapshots").exists()


def test_invalid_yaml_exits_2(project: Path, replay: ReplayServer) -> None:
    (project / "claims").mkdir()
    (project / "claims" / "page.yaml").write_text("page: p\nclaims: [\n  - id: x\n")

    result = run("verify")

    assert result.exit_code == 2, _show(result)
    assert "claims/page.yaml:" in result.stderr
    assert replay.requests == []


# -- bad text in claim files: JSON-style escapes, control characters ------------------

EMOJI_QUOTE = "\U0001f5a5 Supports CUDA"  # json.dumps writes it as "\ud83d\udda5 Supports CUDA"
EMOJI_PAGE = f"<html><body><h1>GPUs</h1><p>{EMOJI_QUOTE} on every NVIDIA card.</p></body></html>"
BAD_TEXT = {"lone-surrogate": "\ud83d Supports CUDA", "control-character": "Supports\x07 CUDA"}


def test_a_surrogate_pair_escape_is_judged_as_its_character(
    project: Path, replay: ReplayServer
) -> None:
    replay.set_page("/docs/gpu.html", EMOJI_PAGE)
    source = f"{replay.base_url}/docs/gpu.html"
    path = write_claims(project / "claims", [claim("gpu", quote=EMOJI_QUOTE, source=source)])
    assert '"\\ud83d\\udda5 Supports CUDA"' in path.read_text()  # the escaped pair, as JSON has it

    table = run("verify")
    result, document = verify_json()

    assert (table.exit_code, result.exit_code) == (0, 0), _show(result)
    (judged,) = document["results"]
    assert (judged["verdict"], judged["quote"]) == ("verified", EMOJI_QUOTE)
    assert "gpu" in table.stdout


@pytest.mark.parametrize("quote", BAD_TEXT.values(), ids=BAD_TEXT.keys())
def test_bad_text_in_a_claim_file_exits_2_naming_file_line_and_field(
    project: Path, replay: ReplayServer, quote: str
) -> None:
    write_claims(project / "claims", [claim(quote=quote)])  # the quote is on line 8

    for args in (["verify"], ["verify", "--format", "json"], ["snapshot"]):
        result = run(*args)

        assert result.exit_code == 2, _show(result)
        assert "claims/page.yaml:8: claim 'llamacpp-quantization': quote: " in result.stderr
        assert "Traceback" not in result.stderr
        assert result.stdout == ""
    assert replay.requests == []
    assert not (project / "snapshots").exists()


def _claimcheck(project: Path, *args: str) -> subprocess.CompletedProcess[str]:
    """The installed `claimcheck` in a subprocess: real stdout/stderr encoding, no network."""
    script = Path(sys.executable).parent / "claimcheck"
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "claimcheck"]
    env = {k: v for k, v in os.environ.items() if k.upper() not in PROXY_VARS}
    env.update({"NO_COLOR": "1", "HTTPS_PROXY": "http://127.0.0.1:9"})
    return subprocess.run(
        [*command, *args],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        encoding="utf-8",
        timeout=120,
        check=False,
    )


def test_installed_offline_verify_judges_an_escaped_pair_and_refuses_bad_text(
    project: Path,
) -> None:
    no_expiry(project)
    source = "https://docs.example.org/gpu.html"
    ref = resolve_source(source)
    Store(project / "snapshots").save(
        key=ref.key,
        url=ref.url,
        final_url=ref.fetch_url,
        status=200,
        body=EMOJI_PAGE.encode("utf-8"),
        media=MediaType.HTML,
        fetched_at=dt.datetime(2026, 10, 20, 9, tzinfo=dt.UTC),
    )
    write_claims(project / "claims", [claim("gpu", quote=EMOJI_QUOTE, source=source)])

    good = _claimcheck(project, "verify", "--offline", "--format", "json")

    assert good.returncode == 0, good.stderr
    assert "Traceback" not in good.stderr
    (judged,) = json.loads(good.stdout)["results"]
    assert (judged["verdict"], judged["quote"]) == ("verified", EMOJI_QUOTE)

    for name, quote in BAD_TEXT.items():
        write_claims(project / "claims", [claim("gpu", quote=quote, source=source)])

        bad = _claimcheck(project, "verify", "--offline")

        assert bad.returncode == 2, (name, bad.stderr)
        assert "claims/page.yaml:8: claim 'gpu': quote: " in bad.stderr, name
        assert "Traceback" not in bad.stderr
        assert bad.stdout == ""


# -- the check date is a day -----------------------------------------------------------

REMOVED_ON = dt.date(2024, 2, 29)  # llama.cpp's README lost QUOTE_FEB at 20:42 UTC that day


@pytest.mark.parametrize("morning", [None, dt.time(8)], ids=["day-began-with-it", "stored-at-8"])
def test_a_quote_removed_later_on_its_check_day_was_matched_at_the_check_date(
    project: Path, replay: ReplayServer, morning: dt.time | None
) -> None:
    no_expiry(project)
    history = {v.commit[:10]: v for v in versions(paths.CORPUS / "ggml-org__llama.cpp")}
    before, removal = history["1cfb5372cf"], history["052051d8ae"]  # Jan 31; Feb 29, 20:42
    assert removal.committed.date() == REMOVED_ON
    if morning is not None:  # the same text, seen again on the morning of the check day
        stamp = dt.datetime.combine(REMOVED_ON, morning, tzinfo=dt.UTC)
        before = replace(before, committed=stamp)
    store = Store(project / "snapshots")
    # The day began with `before` as a run fetched it (a version fetched live stands until
    # the next one); history gave `removal` as the day's last version.
    seen = import_version(store, before, live=True)
    later = import_version(store, removal, through=REMOVED_ON)
    write_claims(project / "claims", [claim(quote=QUOTE_FEB)], checked=REMOVED_ON.isoformat())

    offline, offline_doc = verify_json("--offline")
    replay.as_of = MAR_15
    online, online_doc = verify_json()

    for result, document in ((offline, offline_doc), (online, online_doc)):
        assert result.exit_code == 1, _show(result)  # stale: the quote is gone now...
        (judged,) = document["results"]
        assert judged["verdict"] == "drifted", judged  # ...but it did hold on its check day
        assert "never matched" not in judged["reason"]
        assert judged["baseline_origin"] == seen.origin
    assert offline_doc["results"][0]["snapshot"] == later.fetched_at.date().isoformat()
    # The README fetched online is stored as a version of its own, in force from now on.
    assert online_doc["results"][0]["snapshot"] == today()
    assert online_doc["results"][0]["blame"]["sha"] == removal.commit


# -- configuration and paths -----------------------------------------------------------


def test_paths_config_file_and_snapshots_option(project: Path, replay: ReplayServer) -> None:
    write_claims(project / "pages", [claim("a")], name="a.yaml")
    write_claims(project / "more", [claim("b")], name="b.yaml", page="other")
    (project / "claimcheck.toml").write_text('claims = ["pages"]\nsnapshots = "store"\n')
    (project / "alt.toml").write_text('claims = ["more"]\n')

    from_config, config_doc = verify_json()
    explicit, explicit_doc = verify_json("more/b.yaml", "pages", "--snapshots", "elsewhere")
    other, other_doc = verify_json("--config", "alt.toml")

    assert [r["id"] for r in config_doc["results"]] == ["a"]
    assert (project / "store").is_dir()
    assert [r["id"] for r in explicit_doc["results"]] == ["b", "a"]
    assert list((project / "elsewhere").rglob("*.md"))
    assert [r["id"] for r in other_doc["results"]] == ["b"]
    assert (project / "snapshots").is_dir()  # alt.toml keeps the default folder
    assert from_config.exit_code == explicit.exit_code == other.exit_code == 0


def test_table_format_lists_claims(project: Path, replay: ReplayServer) -> None:
    write_claims(project / "claims", [claim()])

    result = run("verify")

    assert result.exit_code == 0, _show(result)
    assert "llamacpp-quantization" in result.stdout
    assert "verified" in result.stdout


def test_schema_command_prints_the_claim_file_schema(project: Path) -> None:
    result = run("schema")

    assert result.exit_code == 0
    schema = json.loads(result.stdout)
    assert {"page", "checked", "claims"} <= set(schema["properties"])


# -- the GitHub token ------------------------------------------------------------------


def test_token_goes_to_the_api_only_and_never_into_output_or_snapshots(
    project: Path, replay: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("GITHUB_TOKEN", TOKEN)
    replay.set_page("/docs/page.html", PAGE_HTML)
    replay.fail("/repos/acme/flaky/readme", status=503, times=None, headers={"Retry-After": "0"})
    write_claims(
        project / "claims",
        [
            claim("api"),
            claim("web", source=f"{replay.base_url}/docs/page.html"),
            claim("flaky", source="https://github.com/acme/flaky"),
            claim("gone", source="https://github.com/nobody/nothing"),
        ],
    )

    outputs = [run("verify"), run("verify", "--format", "json"), run("snapshot")]

    api = [r for r in replay.requests if r.path.startswith("/repos/")]
    web = replay.requests_to("/docs/")
    assert api
    assert web
    assert all(r.headers.get("authorization") == f"Bearer {TOKEN}" for r in api)
    assert all("authorization" not in r.headers for r in web)
    for result in outputs:
        assert TOKEN not in result.stdout
        assert TOKEN not in result.stderr
    files = tree(project)
    assert files
    leaked = [path for path, (body, _) in files.items() if TOKEN.encode() in body]
    assert leaked == []


def test_no_token_no_authorization_header(project: Path, replay: ReplayServer) -> None:
    write_claims(project / "claims", [claim()])

    run("verify")

    assert replay.requests
    assert all("authorization" not in r.headers for r in replay.requests)


# -- the installed entry point ---------------------------------------------------------


def test_installed_entry_point_runs_against_the_replay_server(
    project: Path, replay: ReplayServer
) -> None:
    write_claims(project / "claims", [claim(), claim("gone", source="https://github.com/x/y")])
    script = Path(sys.executable).parent / "claimcheck"
    command = [str(script)] if script.is_file() else [sys.executable, "-m", "claimcheck"]
    env = {k: v for k, v in os.environ.items() if k.upper() not in PROXY_VARS}
    env.update(
        {
            "GITHUB_API_URL": replay.base_url,
            "GITHUB_TOKEN": TOKEN,
            "NO_COLOR": "1",
            # a stray request to any other https host hits a dead local port, not the internet
            "HTTPS_PROXY": "http://127.0.0.1:9",
            "NO_PROXY": "127.0.0.1,localhost",
        }
    )

    done = subprocess.run(
        [*command, "verify", "--format", "json"],
        cwd=project,
        env=env,
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )

    assert done.returncode == 1, done.stderr
    document = json.loads(done.stdout)
    assert {r["id"]: r["verdict"] for r in document["results"]} == {
        "llamacpp-quantization": "verified",
        "gone": "source-gone",
    }
    assert TOKEN not in done.stdout + done.stderr
    assert replay.requests_to(README_API)[0].headers["user-agent"].startswith("claimcheck/")
