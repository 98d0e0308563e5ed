"""Citations in the reports: every claim whose quote holds carries its live link and, once
the store knows which commit its snapshot is, the permanent link to that file at that
commit with the quote's lines, against the GitHub-shaped replay server on 127.0.0.1
serving real llama.cpp README history.

The expected commit is the corpus entry the server serves as of the day; the expected
line is found by plain string search of the raw README bytes (the code under test
places quotes through cmark-gfm's source positions).
"""

from __future__ import annotations

import datetime as dt
import json
from pathlib import Path
from typing import Any

import cmarkgfm
import jsonschema
import pytest
from bs4 import BeautifulSoup
from selectolax.lexbor import LexborHTMLParser
from typer.testing import CliRunner

from claimcheck.cli.app import app
from claimcheck.report.schema import report_schema
from claimcheck.store.store import Store
from support.claim_files import FEB_15, LLAMA, QUOTE_FEB, claim, write_claims
from support.corpus_snapshots import CORPUS, import_history, versions
from support.public_names import resolve_publicly
from support.replay_server import ReplayServer
from support.stored_page import store_page

runner = CliRunner()
CHECKED_ROW = dt.date(2026, 6, 30)
TODAY = dt.date.today().isoformat()


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch, replay: ReplayServer) -> Path:
    monkeypatch.chdir(tmp_path)
    monkeypatch.setenv("GITHUB_API_URL", replay.base_url)
    monkeypatch.setenv("WAYBACK_URL", replay.base_url)
    monkeypatch.setenv("NO_COLOR", "1")
    monkeypatch.delenv("GITHUB_TOKEN", raising=False)
    (tmp_path / "claimcheck.toml").write_text(
        "[verdict]\nmax_age_days = 0\n[fetch]\nper_host_interval = 0\n"
    )
    replay.as_of = FEB_15
    return tmp_path


def verify(*options: str) -> dict[str, Any]:
    result = runner.invoke(app, ["verify", "-q", "--format", "json", *options])
    assert result.exit_code == 0, result.output
    document: dict[str, Any] = json.loads(result.stdout)
    jsonschema.validate(document, report_schema())
    return document


def expected_permalink(replay: ReplayServer) -> str:
    """The blob at the served commit, its line found in the raw README by hand-picked words."""
    entry = replay.entry_as_of(LLAMA, FEB_15)
    raw = replay.readme_as_of(LLAMA, FEB_15)
    assert entry is not None
    assert raw is not None
    lines = [n for n, text in enumerate(raw.decode().splitlines(), 1) if "8-bit integer" in text]
    assert len(lines) == 1
    return f"https://github.com/{LLAMA}/blob/{entry.commit}/README.md#L{lines[0]}"


def test_a_backfilled_baselines_commit_is_cited_by_later_reports_without_a_request(
    site: Path, replay: ReplayServer
) -> None:
    write_claims(site / "claims", [claim("quant", quote=QUOTE_FEB)], checked="2024-02-15")
    verify()  # reads the baseline of 2024-02-15 from history: the file at its commit
    replay.clear_requests()

    (result,) = verify("--offline")["results"]

    assert replay.requests == []
    citation = result["citation"]
    assert citation["permalink"] == expected_permalink(replay)
    line = int(citation["permalink"].rpartition("#L")[2])
    assert citation["lines"] == [line, line]
    assert citation["live"].startswith(f"https://github.com/{LLAMA}#:~:text=2%2Dbit%2C%203%2Dbit")


def test_a_quote_the_readme_says_twice_is_cited_where_its_suffix_puts_it(
    site: Path, replay: ReplayServer
) -> None:
    # The README of February 2024 says "Apple Silicon" in its news ("Collecting Apple
    # Silicon performance stats") and in its feature list ("Apple silicon first-class
    # citizen"); the claim is about the news. (The old way cited the feature: of two
    # places, the smaller.)
    quote = "Apple silicon"
    write_claims(
        site / "claims", [claim("apple", quote=quote, suffix="performance stats")],
        checked="2024-02-15",
    )  # fmt: skip
    verify()

    (result,) = verify("--offline")["results"]

    raw = replay.readme_as_of(LLAMA, FEB_15)
    assert raw is not None
    said = [
        n for n, text in enumerate(raw.decode().splitlines(), 1) if "pple silicon" in text.lower()
    ]
    meant = [
        n for n, text in enumerate(raw.decode().splitlines(), 1) if "performance stats" in text
    ]
    assert len(said) == 2
    assert len(meant) == 1
    assert meant[0] == said[0]
    assert result["verdict"] == "verified"
    # The item is tight, with a nested list: cmark places its text on the whole item.
    first, last = result["citation"]["lines"]
    assert first == meant[0] < last < said[1]
    assert result["citation"]["permalink"].endswith(f"/README.md#L{first}-L{last}")


def test_the_html_report_links_the_checked_version(site: Path, replay: ReplayServer) -> None:
    write_claims(site / "claims", [claim("quant", quote=QUOTE_FEB)], checked="2024-02-15")
    verify()  # the baseline's commit, from history

    html = runner.invoke(app, ["verify", "-q", "--offline", "--format", "html"])

    assert html.exit_code == 0, html.output
    page = BeautifulSoup(html.stdout, "html5lib")
    hrefs = [a["href"] for a in page.find_all("a") if a.get_text().startswith("version of")]
    assert hrefs == [expected_permalink(replay)]
    # Labelled as `cite` labels it: by the commit's own date, not the day it was fetched.
    (label,) = [a.get_text() for a in page.find_all("a") if a["href"] == hrefs[0]]
    cited = runner.invoke(app, ["cite", "quant", "--offline", "--style", "json"])
    assert cited.exit_code == 0, cited.output
    assert label.startswith(f"version of {json.loads(cited.stdout)['version_date']}")


def test_a_quote_in_the_readmes_raw_html_is_cited_on_its_line(
    site: Path, replay: ReplayServer
) -> None:
    # The README of February 2024 opens its table of contents with raw HTML
    # ("<details>\n  <summary>Table of Contents</summary>"), which cmark places on no
    # line: the line is read from the file.
    write_claims(site / "claims", [claim("toc", quote="Table of Contents")], checked="2024-02-15")
    verify()

    (result,) = verify("--offline")["results"]

    raw = replay.readme_as_of(LLAMA, FEB_15)
    assert raw is not None
    (line,) = [
        n for n, text in enumerate(raw.decode().splitlines(), 1) if "Table of Contents" in text
    ]
    assert result["verdict"] == "verified"
    assert result["citation"]["lines"] == [line, line]
    assert result["citation"]["permalink"].endswith(f"/README.md#L{line}")


def test_cite_learns_the_commit_once_and_every_later_report_carries_it(
    site: Path, replay: ReplayServer
) -> None:
    # Checked today: no history is read, so the fetched snapshot's commit is unknown.
    write_claims(site / "claims", [claim("quant", quote=QUOTE_FEB)], checked=TODAY)
    (before,) = verify()["results"]
    assert before["citation"]["permalink"] is None
    assert before["citation"]["live"].startswith(f"https://github.com/{LLAMA}#:~:text=")

    assert runner.invoke(app, ["cite", "quant"]).exit_code == 0
    replay.clear_requests()
    (after,) = verify("--offline")["results"]

    assert replay.requests == []
    assert after["citation"]["permalink"] == expected_permalink(replay)
    index = json.loads(next((site / "snapshots").rglob("index.json")).read_text())
    entry = replay.entry_as_of(LLAMA, FEB_15)
    assert entry is not None
    assert set(index["origins"].values()) == {f"commit {entry.commit}"}
    assert set(index["origins"]) == {v["sha256"] for v in index["versions"]}


def test_verify_cite_asks_for_the_missing_versions_in_the_same_run(
    site: Path, replay: ReplayServer
) -> None:
    write_claims(site / "claims", [claim("quant", quote=QUOTE_FEB)], checked=TODAY)

    (result,) = verify("--cite")["results"]

    assert result["verdict"] == "verified"
    assert result["citation"]["permalink"] == expected_permalink(replay)


def test_a_rate_limited_cite_changes_no_verdict(site: Path, replay: ReplayServer) -> None:
    write_claims(site / "claims", [claim("quant", quote=QUOTE_FEB)], checked=TODAY)
    verify()
    replay.fail(f"/repos/{LLAMA}/commits", status=403, times=None)

    (result,) = verify("--cite")["results"]

    assert result["verdict"] == "verified"
    assert result["citation"]["permalink"] is None
    assert result["citation"]["live"].startswith(f"https://github.com/{LLAMA}#:~:text=")


def test_the_citation_survives_merge_and_render_as_a_markdown_link(
    site: Path, replay: ReplayServer
) -> None:
    write_claims(
        site / "claims",
        [claim("quant", quote=QUOTE_FEB), claim("gone", quote="never in this README")],
        checked="2024-02-15",
    )
    result = runner.invoke(app, ["verify", "-q", "--shard", "1/1", "--output", "json=run.json"])
    assert result.exit_code == 1, result.output  # "gone" is missing

    merged = runner.invoke(app, ["report", "merge", "run.json", "-o", "merged.json"])
    rendered = runner.invoke(app, ["report", "render", "merged.json", "--format", "markdown"])

    assert merged.exit_code == 0, merged.output
    original = json.loads((site / "run.json").read_text())["results"]
    again = json.loads((site / "merged.json").read_text())["results"]
    assert [r["citation"] for r in again] == [r["citation"] for r in original]
    assert [r["id"] for r in again if r["citation"]] == ["quant"]  # a missing quote: none
    html = cmarkgfm.github_flavored_markdown_to_html(rendered.stdout)
    hrefs = [a.attributes.get("href") for a in LexborHTMLParser(html).css("td a")]
    assert expected_permalink(replay) in hrefs
    live = [h for h in hrefs if h and h.startswith(f"https://github.com/{LLAMA}#:~:text=")]
    assert len(live) == 1


ROW = """\
page: comparison
checked: 2026-06-30
claims:
  - id: openai-row
    claim: Both ship an OpenAI-compatible server
    sources:
      - source: https://github.com/vllm-project/vllm
        quote: OpenAI-compatible API server
      - source: https://github.com/ggml-org/llama.cpp
        quote: A lightweight, OpenAI API compatible, HTTP server for serving LLMs
"""


def test_every_part_of_a_claim_on_several_sources_is_cited_at_its_own_commit(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.chdir(tmp_path)
    (tmp_path / "claims").mkdir()
    (tmp_path / "claims" / "row.yaml").write_text(ROW, encoding="utf-8")
    (tmp_path / "claimcheck.toml").write_text("[verdict]\nmax_age_days = 0\n")
    store = Store(tmp_path / "snapshots")
    expected = []
    for folder, words in (("vllm-project__vllm", "OpenAI-compatible API server"),
                          ("ggml-org__llama.cpp", "HTTP server for serving")):  # fmt: skip
        stored = [v for v in versions(CORPUS / folder) if v.committed.date() <= CHECKED_ROW]
        snapshot = import_history(store, stored, through=CHECKED_ROW)[-1]
        # What a backfill learns of a README source: its path in the repository.
        store.note_history(snapshot.key, snapshot.url, readme_path="README.md")
        # The store keeps a body once, under the first commit whose file it is.
        newest = next(v for v in stored if v.path.read_bytes() == stored[-1].path.read_bytes())
        text = newest.path.read_text(encoding="utf-8").splitlines()
        (line,) = [n for n, t in enumerate(text, 1) if words in t]
        expected.append(f"https://github.com/{newest.repo}/blob/{newest.commit}/README.md#L{line}")

    (row,) = verify("--offline")["results"]

    assert row["verdict"] == "verified"
    assert [part["citation"]["permalink"] for part in row["parts"]] == expected
    assert row["citation"] == row["parts"][0]["citation"]  # the row shows its first part's


PAGE = "<html><body><main><h1>Serving</h1><p>{text}</p></main></body></html>"
SERVES = "The server speaks the OpenAI chat completions protocol."


def capture(replay: ReplayServer, source: str, html: str) -> str:
    """A Wayback capture of `source` from yesterday, served by the replay server."""
    stamp = (dt.datetime.now(dt.UTC) - dt.timedelta(days=1)).strftime("%Y%m%d%H%M%S")
    url = replay.url(f"/web/{stamp}/{source}")
    answer = {
        "archived_snapshots": {"closest": {"available": True, "url": url, "timestamp": stamp}}
    }
    replay.set_page("/wayback/available", json.dumps(answer), content_type="application/json")
    replay.set_page(f"/web/{stamp}id_/{source}", html)
    return url


@pytest.fixture
def web(site: Path, monkeypatch: pytest.MonkeyPatch) -> str:
    """A public page (its name resolves to a public address), stored as fetched an hour
    ago: the suite reaches no public host, and the Wayback Machine is asked about public
    pages only."""
    source = "https://docs.example.org/serving"
    resolve_publicly(monkeypatch, "docs.example.org")
    an_hour_ago = dt.datetime.now(dt.UTC) - dt.timedelta(hours=1)
    store_page(site / "snapshots", source, PAGE.format(text=SERVES), an_hour_ago)
    write_claims(site / "claims", [claim("serves", quote=SERVES, source=source)], checked=TODAY)
    return source


def test_a_wayback_capture_that_shows_the_checked_text_is_the_pages_permalink(
    web: str, replay: ReplayServer
) -> None:
    url = capture(replay, web, PAGE.format(text=SERVES).replace("<h1>", '<h1 class="x">'))

    (before,) = verify("--offline")["results"]
    cited = runner.invoke(app, ["cite", "serves", "--style", "json"])
    (after,) = verify("--offline")["results"]  # what `cite` learnt, in every report

    assert before["citation"]["permalink"] is None
    assert cited.exit_code == 0, cited.output
    assert json.loads(cited.stdout)["permalink"] == url
    assert after["citation"]["permalink"] == url
    assert after["citation"]["lines"] is None
    assert after["citation"]["live"].startswith(f"{web}#:~:text=The%20server%20speaks")


def test_cite_labels_a_wayback_capture_by_the_day_it_was_captured(
    web: str, replay: ReplayServer
) -> None:
    url = capture(replay, web, PAGE.format(text=SERVES))
    stamp = url.split("/web/", 1)[1][:8]  # the capture's own day, as the archive names it
    captured = f"{stamp[:4]}-{stamp[4:6]}-{stamp[6:]}"
    assert captured != dt.datetime.now(dt.UTC).date().isoformat()  # fetched today
    verify("--offline")

    result = runner.invoke(app, ["cite", "serves"])

    assert result.exit_code == 0, result.output
    assert f"([version of {captured}]({url}))" in result.stdout


def test_a_wayback_capture_of_other_text_is_not_cited(web: str, replay: ReplayServer) -> None:
    capture(replay, web, PAGE.format(text="The server speaks its own protocol."))

    result = runner.invoke(app, ["cite", "serves", "--style", "json"])

    assert result.exit_code == 3, result.output
    found = json.loads(result.stdout)
    assert found["permalink"] is None
    assert "does not show the stored snapshot" in found["note"]


def test_a_run_that_meets_the_same_snapshot_takes_the_kept_lines_without_a_page(
    site: Path, replay: ReplayServer, monkeypatch: pytest.MonkeyPatch
) -> None:
    from claimcheck.history import citations

    write_claims(site / "claims", [claim("quant", quote=QUOTE_FEB)], checked="2024-02-15")
    (first,) = verify()["results"]
    kept = json.loads((site / "snapshots" / ".cache" / citations.LINES_FILE).read_text())
    rendered: list[int] = []
    real = citations.lines_of

    def counted(page: Any, anchor: Any, markdown: Any = None, whole: Any = None) -> Any:
        rendered.append(len(page.units))
        return real(page, anchor, markdown, whole)

    monkeypatch.setattr(citations, "lines_of", counted)
    (again,) = verify("--offline")["results"]
    (site / "snapshots" / ".cache" / citations.LINES_FILE).write_text("{damaged")
    (cited,) = verify("--offline")["results"]  # the citation itself is kept
    assert rendered == []
    (site / "snapshots" / ".cache" / citations.CITATIONS_FILE).write_text("{damaged")
    (afresh,) = verify("--offline")["results"]

    assert list(kept["answers"].values()) == [first["citation"]["lines"]]
    assert again["citation"] == cited["citation"] == first["citation"]
    assert first["citation"]["permalink"] == expected_permalink(replay)
    assert afresh["citation"] == first["citation"]  # damaged files: found again
    assert len(rendered) == 1  # only after both files were damaged
