"""Citation links in the Markdown, HTML, SARIF and JSON reports, with hostile repository
names and paths.

The Markdown is read back by cmark-gfm (GitHub's own parser, not the code under test),
the HTML by html5lib (a browser's parsing algorithm, not the Lexbor the reader uses),
the SARIF by its published schema: every citation must come out as exactly the links
claimcheck meant, inside its table cell or attribute, however the repository named its
file.
"""

from __future__ import annotations

import datetime as dt
import json
from urllib.parse import unquote

import cmarkgfm
import jsonschema
from bs4 import BeautifulSoup
from selectolax.lexbor import LexborHTMLParser, LexborNode

from claimcheck.claims.fragment import build_text_fragment
from claimcheck.judge.permalink import github_blob_url, hub_blob_url
from claimcheck.models import Citation, ClaimResult, Verdict
from claimcheck.report.build import report_document
from claimcheck.report.formats.html import render_html
from claimcheck.report.formats.markdown import render_markdown
from claimcheck.report.formats.sarif import sarif_log
from claimcheck.report.load import load_report_document
from claimcheck.report.merge import merge_documents
from support import paths
from support.sample_reports import report, result

SHA = "0123456789abcdef0123456789abcdef01234567"
HOSTILE_PATH = "docs/a)b|c [x](javascript:alert(1)) <img src=x>.md"


def cited(verdict: Verdict, path: str = HOSTILE_PATH) -> ClaimResult:
    base = result(verdict, quote="2-bit | 4-bit (fast)")
    permalink = github_blob_url("o", "r", SHA, path, (10, 12))
    live = build_text_fragment("https://github.com/o/r", "2-bit | 4-bit (fast)")
    citation = Citation(
        live=live,
        permalink=permalink,
        lines=(10, 12),
        version=f"commit {SHA}",
        version_date=dt.date(2024, 1, 31),
        dated=True,
    )
    return base.model_copy(update={"citation": citation})


def claim_rows(html: str) -> list[LexborNode]:
    """The rows of the last table, the one that lists every claim."""
    return LexborHTMLParser(html).css("table")[-1].css("tbody tr")


def links(markdown: str) -> list[list[str]]:
    """The hrefs of every row of the all-claims table, as GitHub would render them."""
    rows = claim_rows(cmarkgfm.github_flavored_markdown_to_html(markdown))
    return [[a.attributes.get("href") or "" for a in row.css("a")] for row in rows]


def test_a_hostile_path_stays_inside_its_link_and_its_table_cell() -> None:
    markdown = render_markdown(report(cited(Verdict.VERIFIED)))

    html = cmarkgfm.github_flavored_markdown_to_html(markdown)
    (row,) = claim_rows(html)
    assert len(row.css("td")) == 6  # a "|" in the path split no cell
    hrefs = [a.attributes.get("href") or "" for a in row.css("a")]
    assert len(hrefs) == 2
    live, fixed = hrefs
    assert live.startswith("https://github.com/o/r#:~:text=")
    assert fixed.startswith(f"https://github.com/o/r/blob/{SHA}/docs/")
    assert unquote(fixed) == f"https://github.com/o/r/blob/{SHA}/{HOSTILE_PATH}#L10-L12"
    assert not LexborHTMLParser(html).css("img")
    assert "javascript:" not in " ".join(a.attributes.get("href") or "" for a in row.css("a"))


def test_a_citation_that_is_not_a_web_address_is_not_linked() -> None:
    hostile = cited(Verdict.VERIFIED).model_copy(
        update={"citation": Citation(live="javascript:alert(1)", permalink="data:text/html,x")}
    )

    assert links(render_markdown(report(hostile))) == [[]]


def test_a_claim_under_review_shows_its_citation_in_its_section() -> None:
    markdown = render_markdown(report(cited(Verdict.CONTEXT_CHANGED, path="README.md")))

    assert (
        f"- **Cite:** [live](https://github.com/o/r#:~:text=2%2Dbit%20%7C%204%2Dbit%20%28fast%29)"
        f" · [version of 2024-01-31, lines 10–12](https://github.com/o/r/blob/{SHA}"
        "/README.md#L10-L12)"
    ) in markdown


def test_every_part_carries_its_citation_through_json_load_and_merge() -> None:
    first, second = cited(Verdict.VERIFIED, "README.md"), cited(Verdict.VERIFIED, "docs/b.md")
    row = first.model_copy(update={"parts": (first, second)})

    document = report_document(report(row))
    one_shard = {**json.loads(json.dumps(document)), "shard": {"index": 1, "count": 1}}
    again = report_document(merge_documents([("one", one_shard)]))
    loaded = load_report_document(document).results[0]

    assert [p["citation"]["permalink"] for p in again["results"][0]["parts"]] == [
        f"https://github.com/o/r/blob/{SHA}/README.md#L10-L12",
        f"https://github.com/o/r/blob/{SHA}/docs/b.md#L10-L12",
    ]
    assert [p.citation for p in loaded.parts] == [first.citation, second.citation]
    assert links(render_markdown(report(row)))[0][1::2] == [
        f"https://github.com/o/r/blob/{SHA}/README.md#L10-L12",
        f"https://github.com/o/r/blob/{SHA}/docs/b.md#L10-L12",
    ]


def test_a_hub_card_is_cited_at_its_commit_on_the_hub() -> None:
    assert hub_blob_url("https://huggingface.co/", "datasets/o/n", SHA, (3, 3)) == (
        f"https://huggingface.co/datasets/o/n/blob/{SHA}/README.md#L3"
    )


def test_the_html_report_links_the_checked_version_inside_its_attribute() -> None:
    page = BeautifulSoup(render_html(report(cited(Verdict.VERIFIED))), "html5lib")

    (article,) = page.find_all("article")
    anchors = {a.get_text(): a["href"] for a in article.find_all("a")}
    fixed = anchors["version of 2024-01-31, lines 10–12"]
    assert unquote(fixed) == f"https://github.com/o/r/blob/{SHA}/{HOSTILE_PATH}#L10-L12"
    assert article.find("img") is None  # the path's "<img src=x>" stayed text
    assert not any(href.startswith("javascript:") for href in anchors.values())


def test_the_html_report_does_not_link_a_citation_that_is_not_a_web_address() -> None:
    hostile = cited(Verdict.VERIFIED).model_copy(
        update={"citation": Citation(live="javascript:alert(1)", permalink="data:text/html,x")}
    )
    page = BeautifulSoup(render_html(report(hostile)), "html5lib")

    hrefs = [a["href"] for a in page.find_all("a")]
    assert not any(href.startswith(("javascript:", "data:")) for href in hrefs)
    assert "version of" not in page.get_text()


def test_a_version_of_unknown_date_is_labelled_by_the_day_it_was_first_fetched() -> None:
    known = cited(Verdict.VERIFIED)
    assert known.citation is not None
    undated = known.citation.model_copy(update={"dated": False})
    markdown = render_markdown(report(known.model_copy(update={"citation": undated})))

    assert "[as fetched on 2024-01-31, lines 10–12](" in markdown
    assert "version of" not in markdown


def test_the_sarif_log_carries_the_citation_in_its_message_and_properties() -> None:
    # SARIF lists the claims to act on: one under review, whose quote still holds.
    log = sarif_log(report(cited(Verdict.CONTEXT_CHANGED)))
    jsonschema.validate(
        log, json.loads(paths.SARIF_SCHEMA.read_text()), cls=jsonschema.Draft7Validator
    )

    (found,) = log["runs"][0]["results"]
    cite = found["properties"]["cite"]
    assert [entry["label"] for entry in cite] == ["live", "version of 2024-01-31, lines 10–12"]
    assert cite[0]["url"].startswith("https://github.com/o/r#:~:text=")
    assert unquote(cite[1]["url"]) == f"https://github.com/o/r/blob/{SHA}/{HOSTILE_PATH}#L10-L12"
    assert f"Cite (version of 2024-01-31, lines 10–12): {cite[1]['url']}" in (
        found["message"]["text"].splitlines()
    )
    hostile = cited(Verdict.CONTEXT_CHANGED).model_copy(
        update={"citation": Citation(live="javascript:alert(1)", permalink="data:text/html,x")}
    )
    (refused,) = sarif_log(report(hostile))["runs"][0]["results"]
    assert refused["properties"]["cite"] == []
    assert "Cite" not in refused["message"]["text"]
