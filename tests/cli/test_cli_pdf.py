"""End to end: claims on PDFs, read as a reader reads them, through the real CLI.

A server on 127.0.0.1 serves PDFs the test writes (`support.pdfs`): a two-column paper
written row by row across its columns, with ligature glyphs and words broken at line
ends; a scan with no text layer; an HTML error page served as `application/pdf`; an
HTML page answering a `.pdf` address; a PDF cut short; a PDF served as a download.
Every expected verdict, text and page number below was written by hand from the lines
`support.pdfs` places, never taken from the reader.

Night 1 verifies the quotes (each on the page it stands on) and refuses the bad
answers as `unreachable`; between the nights a sentence of the paper changes, and
night 2 finds that claim stale. `verify --offline`, and a fresh clone of the project
(no page cache), then judge exactly as night 2 did; `diff`, `explain`, `cite` and `add`
work on a PDF claim. The server also answers as the Wayback Machine: a capture of a PDF
is cited at the quote's page, and backfilled as a PDF baseline.
"""

from __future__ import annotations

import datetime as dt
import json
import shutil
from collections.abc import Iterator
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from typing import Any
from urllib.parse import parse_qs, urlsplit

import pytest
from typer.testing import CliRunner, Result

from claimcheck.cli.app import app
from claimcheck.forges.resolve import resolve_source
from claimcheck.judge.pdf import NO_TEXT_LAYER
from claimcheck.models import MediaType
from claimcheck.store.store import Store
from support import pdfs
from support.claim_files import write_claims
from support.cli_runs import loopback_env, run, show, today, verify_project
from support.local_http import send_answer, serving
from support.public_names import resolve_publicly

CONFIG = "[fetch]\nper_host_interval = 0\nretries = 0\n\n[verdict]\nmax_age_days = 0\n"
ERROR_PAGE = (
    b"<!DOCTYPE html><html><head><title>Not Found</title></head>"
    b"<body><h1>Not Found</h1><p>The requested paper was not found.</p></body></html>"
)
CAPTURED = "20260110120000"  # the Wayback Machine's copy, before the claims' check date
CHANGED_RIGHT = (
    (
        "Paged attention stores the key-value",
        "cache in blocks of thirty-two tokens, so",
        "memory is shared between requests that",
        "begin with the same system prompt.",
    ),
    pdfs.RIGHT_1[1],
)


def run_with(env: dict[str, str | None], *args: str) -> Result:
    """The CLI in-process with `env` (the loopback server's environment)."""
    return CliRunner().invoke(app, list(args), env=env, catch_exceptions=False)


@dataclass
class Routes:
    """What the server answers at each path: status, Content-Type, body."""

    answers: dict[str, tuple[int, str, bytes]] = field(default_factory=dict)
    captured: dict[str, bytes] = field(default_factory=dict)  # path -> the Wayback's copy
    base: str = ""


@pytest.fixture(scope="module")
def routes() -> Routes:
    paper = pdfs.two_column_paper()
    found = Routes()
    found.answers = {
        "/papers/speculative.pdf": (200, "application/pdf", paper),
        "/download/7": (200, "application/octet-stream", paper),
        "/papers/scan.pdf": (200, "application/pdf", pdfs.scanned_page()),
        "/papers/error.pdf": (200, "application/pdf", ERROR_PAGE),
        "/papers/page.pdf": (200, "text/html; charset=utf-8", ERROR_PAGE),
        "/papers/cut.pdf": (200, "application/pdf", paper[: len(paper) * 2 // 3]),
    }
    return found


@pytest.fixture(scope="module")
def base_url(routes: Routes) -> Iterator[str]:
    class Handler(BaseHTTPRequestHandler):
        def do_GET(self) -> None:
            if self.path.startswith("/wayback/available?"):
                self._available()
                return
            status, kind, body = routes.answers.get(self.path, (404, "text/plain", b"no"))
            send_answer(self, status, {"Content-Type": kind}, body)

        def _available(self) -> None:
            """The Wayback Machine's availability API: the capture of CAPTURED, if any."""
            asked = parse_qs(urlsplit(self.path).query)["url"][0]
            path = urlsplit(asked).path
            closest = None
            if path in routes.captured:
                closest = {
                    "available": True,
                    "status": "200",
                    "timestamp": CAPTURED,
                    "url": f"{routes.base}/web/{CAPTURED}/{asked}",
                }
                capture = (200, "application/pdf", routes.captured[path])
                routes.answers[f"/web/{CAPTURED}id_/{asked}"] = capture
            document = {"url": asked, "archived_snapshots": {"closest": closest} if closest else {}}
            send_answer(
                self, 200, {"Content-Type": "application/json"}, json.dumps(document).encode()
            )

        def log_message(self, format: str, *args: Any) -> None:
            """Quiet: the test reads the reports."""

    with serving(Handler) as url:
        routes.base = url
        yield url


PAPER = "/papers/speculative.pdf"
CLAIMS: list[tuple[str, str, str]] = [
    # id, path, quote; the quote as the PDF's reader says it (joined, unfolded)
    ("ligatures", PAPER, "The scheduler is efficient: it finds free slots and flushes the cache"),
    ("hyphenation", PAPER, "which makes inference up to three times faster on long prompts"),
    ("column-one", PAPER, "tokens that the large model checks in one pass"),
    ("column-two", PAPER, "cache in blocks of sixteen tokens, so memory is shared"),
    ("compound", PAPER, "It ships a state-of-the-art kernel for Llama-Guard"),
    ("well-known", PAPER, "the well-known allocator is the default"),
    ("page-two", PAPER, "cut the memory of a seventy billion parameter model"),
    ("download", "/download/7", "which makes inference up to three times faster"),
    ("scan", "/papers/scan.pdf", "Speculative decoding"),
    ("error-page", "/papers/error.pdf", "Speculative decoding"),
    ("html-at-pdf", "/papers/page.pdf", "Speculative decoding"),
    ("cut-short", "/papers/cut.pdf", "Speculative decoding"),
]
PAGE_OF = {
    "ligatures": 1,
    "hyphenation": 1,
    "column-one": 1,
    "column-two": 1,
    "compound": 1,
    "well-known": 1,
    "page-two": 2,
    "download": 1,
}
UNREACHABLE = {
    "scan": NO_TEXT_LAYER,
    "error-page": "the answer is an HTML page, not the PDF",
    "html-at-pdf": "the answer is an HTML page, not the PDF",
    "cut-short": "the PDF was cut short: it does not end with %%EOF",
}


@dataclass
class Nights:
    project: Path
    base_url: str
    first: dict[str, dict[str, Any]]
    second: dict[str, dict[str, Any]]
    second_exit: int


def _by_id(document: dict[str, Any]) -> dict[str, dict[str, Any]]:
    return {r["id"]: r for r in document["results"]}


@pytest.fixture(scope="module")
def nights(routes: Routes, base_url: str, tmp_path_factory: pytest.TempPathFactory) -> Nights:
    project = tmp_path_factory.mktemp("pdf-project")
    (project / "claimcheck.toml").write_text(CONFIG)
    entries = [
        {"id": claim_id, "claim": f"The paper says so ({claim_id})", "source": base_url + path}
        | {"quote": quote}
        for claim_id, path, quote in CLAIMS
    ]
    write_claims(project / "claims", entries, checked=today())
    env = loopback_env(base_url)
    _, first = verify_project(project, env)
    routes.answers[PAPER] = (200, "application/pdf", pdfs.two_column_paper(right=CHANGED_RIGHT))
    result, second = verify_project(project, env)
    return Nights(project, base_url, _by_id(first), _by_id(second), result.exit_code)


def test_quotes_on_a_pdf_verify_on_the_page_they_stand_on(nights: Nights) -> None:
    for claim_id, page in PAGE_OF.items():
        result = nights.first[claim_id]
        assert result["verdict"] == "verified", (claim_id, result["reason"])
        assert f"on page {page} of the PDF" in result["reason"], (claim_id, result["reason"])
        citation = result["citation"]
        assert citation["page"] == page, claim_id
        path = next(path for i, path, _ in CLAIMS if i == claim_id)
        assert citation["live"] == f"{nights.base_url}{path}#page={page}"


def test_a_pdf_is_stored_as_the_bytes_served(nights: Nights) -> None:
    stored = [
        p
        for p in (nights.project / "snapshots").rglob("*.pdf")
        if p.is_file() and ".cache" not in p.parts
    ]
    bodies = {p.read_bytes() for p in stored}
    assert pdfs.two_column_paper() in bodies
    assert pdfs.two_column_paper(right=CHANGED_RIGHT) in bodies
    assert all(body.startswith(b"%PDF-") for body in bodies)


def test_answers_that_are_not_a_readable_pdf_are_unreachable_never_stale(nights: Nights) -> None:
    for night in (nights.first, nights.second):
        for claim_id, reason in UNREACHABLE.items():
            result = night[claim_id]
            assert result["verdict"] == "unreachable", (claim_id, result)
            assert reason in result["reason"], (claim_id, result["reason"])
    snapshots = nights.project / "snapshots"
    for name in ("scan", "error", "page", "cut"):
        assert not [p for p in snapshots.rglob(f"{name}.pdf/*") if p.suffix == ".pdf"], name


def test_a_quote_changed_between_nights_is_stale(nights: Nights) -> None:
    assert nights.first["column-two"]["verdict"] == "verified"
    changed = nights.second["column-two"]
    assert changed["verdict"] == "drifted", changed["reason"]
    assert changed["stale"] is True
    assert nights.second_exit == 1
    for claim_id in PAGE_OF:
        if claim_id != "column-two":
            assert nights.second[claim_id]["verdict"] == "verified", claim_id


def _verdicts(results: dict[str, dict[str, Any]]) -> dict[str, tuple[str, int | None]]:
    return {
        claim_id: (r["verdict"], (r.get("citation") or {}).get("page"))
        for claim_id, r in results.items()
    }


def test_offline_and_a_fresh_clone_judge_as_online(nights: Nights, tmp_path: Path) -> None:
    config, claims = nights.project / "claimcheck.toml", nights.project / "claims"
    offline = run(
        "verify", "--offline", "--format", "json", "--no-progress", "--config", str(config),
        str(claims),
    )  # fmt: skip
    assert offline.exit_code == 1, show(offline)
    judged = _verdicts(_by_id(json.loads(offline.stdout)))
    online = _verdicts(nights.second)
    for claim_id in PAGE_OF:
        assert judged[claim_id] == online[claim_id], claim_id
    clone = tmp_path / "clone"
    shutil.copytree(nights.project, clone, ignore=shutil.ignore_patterns(".cache"))
    assert not list(clone.rglob(".cache"))
    fresh = run(
        "verify", "--offline", "--format", "json", "--no-progress", "--config",
        str(clone / "claimcheck.toml"), str(clone / "claims"),
    )  # fmt: skip
    assert fresh.exit_code == 1, show(fresh)
    assert {
        k: v for k, v in _verdicts(_by_id(json.loads(fresh.stdout))).items() if k in PAGE_OF
    } == {k: v for k, v in online.items() if k in PAGE_OF}


def test_diff_explain_and_cite_work_on_a_pdf_claim(nights: Nights) -> None:
    args = ("--config", str(nights.project / "claimcheck.toml"), str(nights.project / "claims"))
    diff = run("diff", "column-two", *args)
    assert diff.exit_code == 0, show(diff)
    assert "thirty-two" in diff.stdout
    assert "sixteen" in diff.stdout
    explain = run("explain", "column-two", *args)
    assert explain.exit_code == 0, show(explain)
    assert "thirty-two" in explain.stdout
    cite = run("cite", "--offline", "--style", "json", "hyphenation", *args)
    assert cite.exit_code in (0, 3), show(cite)
    cited = json.loads(cite.stdout)
    assert cited["live"] == f"{nights.base_url}{PAPER}#page=1"
    assert cited["page"] == 1


@pytest.mark.parametrize("form", ["markdown", "html", "table"])
def test_every_report_shows_the_page_of_a_quote_on_a_pdf(nights: Nights, form: str) -> None:
    shown = run(
        "verify", "--offline", "--format", form, "--no-progress", "--config",
        str(nights.project / "claimcheck.toml"), str(nights.project / "claims"),
    )  # fmt: skip
    assert shown.exit_code == 1, show(shown)
    link = f"{nights.base_url}{PAPER}#page=2"
    if form == "markdown":  # a verified claim is a row, with its citation's links
        assert f"[live, page 2]({link})" in shown.stdout
    else:  # its reason, and in HTML the source's link opening at the page
        assert "the quote is in the source in the snapshot of" in shown.stdout
        assert "on page 2 of the PDF" in shown.stdout
    if form == "html":
        assert f'href="{link}"' in shown.stdout


def test_add_checks_a_quote_on_a_pdf_and_refuses_a_scan(base_url: str, tmp_path: Path) -> None:
    (tmp_path / "claimcheck.toml").write_text(CONFIG)
    config = ("--config", str(tmp_path / "claimcheck.toml"))
    env = loopback_env(base_url)
    added = run_with(
        env, "add", base_url + "/download/7", "--claim", "Drafts make it faster",
        "--page", "engines", "--quote", "makes inference up to three times faster", *config,
    )  # fmt: skip
    assert added.exit_code == 0, show(added)
    written = (tmp_path / "claims" / "engines.yaml").read_text(encoding="utf-8")
    assert "makes inference up to three times faster" in written
    scan = run_with(
        env, "add", base_url + "/papers/scan.pdf", "--claim", "It says so",
        "--page", "engines", "--quote", "Speculative decoding", *config,
    )  # fmt: skip
    assert scan.exit_code == 3, show(scan)
    assert NO_TEXT_LAYER in scan.stderr + scan.stdout


PUBLIC = "https://papers.example.org"
"""A public host (its name resolves to a public address here, nothing connects to it):
the Wayback Machine is asked about public sources only, so these PDFs are stored as a
run fetched them, and history is asked of the server on 127.0.0.1."""


def _store_pdf(snapshots: Path, path: str, body: bytes) -> None:
    """Store `body` as what PUBLIC + `path` answered an hour ago."""
    ref = resolve_source(PUBLIC + path)
    Store(snapshots).save(
        key=ref.key,
        url=ref.url,
        final_url=ref.fetch_url,
        status=200,
        body=body,
        media=MediaType.PDF,
        fetched_at=dt.datetime.now(dt.UTC) - dt.timedelta(hours=1),
    )


def test_the_wayback_machine_gives_a_pdf_its_baseline_and_its_cited_capture(
    routes: Routes, base_url: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """The Wayback Machine's copy of 2026-01-10 is the paper as first written. One PDF is
    the same today: `cite` finds that capture shows what was checked and cites it at
    the quote's page. The other changed a sentence since: checked on 2026-01-15, before
    anything was stored, its baseline is backfilled from the capture (a PDF, through
    the gate), against which its quote is stale."""
    resolve_publicly(monkeypatch, "papers.example.org")
    paper, changed = pdfs.two_column_paper(), pdfs.two_column_paper(right=CHANGED_RIGHT)
    routes.captured.update({"/archived.pdf": paper, "/revised.pdf": paper})
    _store_pdf(tmp_path / "snapshots", "/archived.pdf", paper)
    _store_pdf(tmp_path / "snapshots", "/revised.pdf", changed)
    (tmp_path / "claimcheck.toml").write_text(CONFIG)
    write_claims(
        tmp_path / "claims",
        [
            {"id": "archived", "claim": "It says so", "source": PUBLIC + "/archived.pdf"}
            | {"quote": "cut the memory of a seventy billion parameter model"}
        ],
        checked=today(),
    )
    write_claims(
        tmp_path / "claims",
        [
            {"id": "revised", "claim": "It says so", "source": PUBLIC + "/revised.pdf"}
            | {"quote": "cache in blocks of sixteen tokens"}
        ],
        name="older.yaml",
        page="older",
        checked="2026-01-15",
    )
    env = loopback_env(base_url)
    config = ("--config", str(tmp_path / "claimcheck.toml"))
    cite = run_with(env, "cite", "archived", "--style", "json", *config)
    assert cite.exit_code == 0, show(cite)
    capture = f"{base_url}/web/{CAPTURED}/{PUBLIC}/archived.pdf"
    cited = json.loads(cite.stdout)
    assert (cited["permalink"], cited["live"], cited["page"]) == (
        capture + "#page=2",
        f"{PUBLIC}/archived.pdf#page=2",
        2,
    )
    backfill = run_with(env, "backfill", *config)
    assert backfill.exit_code == 0, show(backfill)
    verified = run_with(env, "verify", "--offline", "--format", "json", "--no-progress", *config)
    assert verified.exit_code == 1, show(verified)
    found = _by_id(json.loads(verified.stdout))
    assert found["archived"]["citation"]["permalink"] == capture + "#page=2"
    revised = found["revised"]
    assert revised["verdict"] == "drifted", revised["reason"]
    wayback = f"wayback {base_url}/web/{CAPTURED}/{PUBLIC}/revised.pdf"
    assert revised["baseline_origin"] == wayback
    (index,) = [p for p in (tmp_path / "snapshots").rglob("index.json") if "revised.pdf" in p.parts]
    versions = json.loads(index.read_text(encoding="utf-8"))["versions"]
    assert [v["media"] for v in versions] == ["pdf", "pdf"]
    bodies = [(index.parent / v["file"]).read_bytes() for v in versions]
    assert bodies == [paper, changed]
