"""The citer takes each cited README's page once and frees it after its last result.

Two READMEs stored as commits of their repositories, three verified results on them
interleaved (A, B, A): each README's page is taken once from the store, its quotes get
the lines a plain search of the raw Markdown finds, and neither the citer nor the store
holds a README's page at the end. A quote the README says twice is cited where its
suffix puts it.
"""

from __future__ import annotations

import datetime as dt
from pathlib import Path

import pytest

from claimcheck.config import Config
from claimcheck.forges.resolve import resolve_source
from claimcheck.history.citations import Citer
from claimcheck.models import MediaType, Snapshot, Verdict
from claimcheck.page import Page
from claimcheck.store.store import Store
from support.claim_results import result

WHEN = dt.datetime(2026, 11, 20, 3, 0, tzinfo=dt.UTC)
READMES = {
    "https://github.com/owner-a/engine": (
        "# A\n\nIntro.\n\n- Supports CUDA graphs\n- Runs on Metal\n"
    ),
    "https://github.com/owner-b/engine": "# B\n\nFirst.\n\nSecond.\n\nSpeaks the OpenAI API.\n",
}
QUOTES = [
    ("https://github.com/owner-a/engine", "Supports CUDA graphs"),
    ("https://github.com/owner-b/engine", "Speaks the OpenAI API."),
    ("https://github.com/owner-a/engine", "Runs on Metal"),
]


def stored_readme(store: Store, url: str, body: str, commit: str) -> Snapshot:
    """`body` stored as the README of `url`'s repository, the file of `commit` (40 hex
    digits), its path in the repository known: what a citation links to."""
    key = resolve_source(url).key
    snapshot = store.save(
        key=key, url=url, final_url=url, status=200, body=body.encode(),
        media=MediaType.MARKDOWN, fetched_at=WHEN, origin=f"commit {commit}",
    )  # fmt: skip
    store.note_history(key, url, readme_path="README.md")
    return snapshot


def whole_and_scoped(
    tmp_path: Path, url: str, body: str, quote: str, scope: str
) -> list[tuple[int, int] | None]:
    """The lines `quote` is cited on in `body` (stored as `url`'s README) by a claim on
    the whole README, then by one scoped to `scope`."""
    store = Store(tmp_path)
    stored = stored_readme(store, url, body, "c" * 40)
    whole = result("whole", Verdict.VERIFIED, source=url, quote=quote, snapshot=stored)
    scoped = result("scoped", Verdict.VERIFIED, source=url, quote=quote, snapshot=stored)
    scoped = scoped.model_copy(update={"claim": scoped.claim.model_copy(update={"scope": scope})})
    cited = Citer(store, Config(root=tmp_path, snapshots=".")).cite_all([whole, scoped])
    return [r.citation.lines if r.citation else None for r in cited]


def test_each_readmes_page_is_taken_once_and_freed_after_its_last_result(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    store = Store(tmp_path)
    snapshots = {
        url: stored_readme(store, url, body, str(n) * 40)
        for n, (url, body) in enumerate(READMES.items())
    }
    rendered: list[str] = []
    real = store.page

    def counted(snapshot: Snapshot, *, fresh: bool = False) -> Page:
        page = real(snapshot, fresh=fresh)
        rendered.append(page.units[0].text)
        return page

    monkeypatch.setattr(store, "page", counted)
    results = [
        result(f"c{n}", Verdict.VERIFIED, source=url, quote=quote, snapshot=snapshots[url])
        for n, (url, quote) in enumerate(QUOTES)
    ]
    citer = Citer(store, Config(root=tmp_path, snapshots="."))
    uncited = list(results)
    cited = citer.cite_all(results)

    # Cited in place: each result replaced by its cited form (the run never holds both
    # forms of all its results), the claims and verdicts kept.
    assert cited is results
    assert [(r.claim, r.verdict) for r in cited] == [(r.claim, r.verdict) for r in uncited]
    assert all(r.citation is None for r in uncited)

    assert sorted(rendered) == ["A", "B"]  # each once, though interleaved
    for one, (url, quote) in zip(cited, QUOTES, strict=True):
        line = READMES[url].splitlines().index(f"- {quote}" if url.endswith("a/engine") else quote)
        assert one.citation is not None
        assert one.citation.lines == (line + 1, line + 1)
    assert citer._pages == {}  # nothing held once the last result is cited
    assert store.pages._memory == {}


def test_a_scoped_claim_is_cited_in_the_part_its_scope_selects(tmp_path: Path) -> None:
    """The quote is said first in a paragraph, then in a table row; a claim scoped to
    the table is judged on the table alone, and cited there."""
    url = "https://github.com/owner-c/engine"
    body = (
        "# C\n\n"
        "Supports 4-bit quantization on every backend.\n\n"
        "| Backend | Quantization |\n"
        "| --- | --- |\n"
        "| CUDA | Supports 4-bit quantization |\n"
    )
    cited = whole_and_scoped(tmp_path, url, body, "Supports 4-bit quantization", "table")

    lines = body.splitlines()
    paragraph = lines.index("Supports 4-bit quantization on every backend.") + 1
    row = lines.index("| CUDA | Supports 4-bit quantization |") + 1
    assert cited == [(paragraph, paragraph), (row, row)]


def test_quotes_in_one_readmes_raw_html_read_its_file_once(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    """Three quotes in a README's HTML table (no lines from cmark: the file is read
    around them) read the stored file once, not once a quote, and nothing is held
    after the last."""
    url = "https://github.com/owner-d/engine"
    body = (
        "# D\n\n"
        "<table>\n"
        "<tr><td>CUDA</td><td>4-bit &amp; 8-bit</td></tr>\n"
        "<tr><td>Metal</td><td>4-bit</td></tr>\n"
        "<tr><td>Vulkan</td><td>8-bit</td></tr>\n"
        "</table>\n"
    )
    store = Store(tmp_path)
    snapshot = stored_readme(store, url, body, "d" * 40)
    read: list[str] = []
    real = store.read_body

    def counted(version: Snapshot) -> str:
        read.append(version.sha256)
        return real(version)

    monkeypatch.setattr(store, "read_body", counted)
    quotes = {"CUDA 4-bit & 8-bit": 4, "Metal 4-bit": 5, "Vulkan 8-bit": 6}
    results = [
        result(f"d{n}", Verdict.VERIFIED, source=url, quote=quote, snapshot=snapshot)
        for n, quote in enumerate(quotes)
    ]
    citer = Citer(store, Config(root=tmp_path, snapshots="."))

    cited = citer.cite_all(results)

    assert [r.citation.lines if r.citation else None for r in cited] == [
        (line, line) for line in quotes.values()
    ]
    # Read to read its page (no page is kept here), and once for the three quotes' raw
    # lines (it was read again for each quote).
    assert read == [snapshot.sha256] * 2
    assert citer._pages == {}
    assert citer._bodies == {}


def test_a_scoped_claim_on_a_readmes_html_table_is_cited_on_its_row(tmp_path: Path) -> None:
    """The scope selects a raw HTML table, which cmark places on no line: the row is
    found in the README read whole and cited on the line it was written on, not on
    the paragraph that says the same words first."""
    url = "https://github.com/owner-e/engine"
    body = (
        "# E\n\n"
        "Metal 4-bit is the default on a Mac.\n\n"
        '<table id="quant">\n'
        "<tr><td>CUDA</td><td>8-bit</td></tr>\n"
        "<tr><td>Metal 4-bit</td><td>yes</td></tr>\n"
        "</table>\n"
    )
    assert whole_and_scoped(tmp_path, url, body, "Metal 4-bit", "table") == [(3, 3), (7, 7)]
