"""A gone source's last archived copy, as every format shows it: judged by the real
judge from a `Gone` state, written into the JSON report (validated by its schema and
read back the same), and shown by each format, escaped where it is third-party text."""

from __future__ import annotations

import datetime as dt
import json
from html.parser import HTMLParser

import pytest

from claimcheck.judge.verdict import Gone, judge_claim
from claimcheck.models import Anchor, ArchivedCopy, Claim, ClaimResult, Verdict
from claimcheck.report.build import exit_code
from claimcheck.report.formats import OutputFormat, render
from claimcheck.report.load import load_report_document
from support.sample_reports import report

SOURCE = "https://docs.example.org/serving"
COPY = "https://web.archive.org/web/20240301090000/https://docs.example.org/serving"
CAPTURED = dt.datetime(2024, 3, 1, 9, tzinfo=dt.UTC)
CLAIM = Claim(
    id="serving",
    page="page",
    claim="the server batches requests",
    source=SOURCE,
    anchor=Anchor(quote="batches incoming requests"),
    checked=dt.date(2024, 1, 5),
    file="claims/page.yaml",
    line=5,
)


def gone(archived: ArchivedCopy | None) -> ClaimResult:
    return judge_claim(CLAIM, Gone(status=404, url=SOURCE, archived=archived))


def test_the_judge_suggests_the_copy_without_changing_the_verdict() -> None:
    with_copy = gone(ArchivedCopy(url=COPY, captured=CAPTURED))
    without = gone(None)

    assert with_copy.verdict is without.verdict is Verdict.SOURCE_GONE
    assert with_copy.reason == (
        f"the source answered HTTP 404 at {SOURCE}; last archived copy: {COPY} (2024-03-01)"
    )
    assert without.reason == f"the source answered HTTP 404 at {SOURCE}"
    assert with_copy.archived == ArchivedCopy(url=COPY, captured=CAPTURED)
    assert exit_code(report(with_copy)) == exit_code(report(without))


def test_the_json_report_carries_it_and_reads_it_back() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from claimcheck.report.schema import report_schema

    written = json.loads(
        render(report(gone(ArchivedCopy(url=COPY, captured=CAPTURED))), OutputFormat.JSON)
    )
    (entry,) = written["results"]

    jsonschema.validate(written, report_schema())
    assert entry["archived"] == {"url": COPY, "captured": "2024-03-01T09:00:00+00:00"}
    (read,) = load_report_document(written).results
    assert read.archived == ArchivedCopy(url=COPY, captured=CAPTURED)


def test_a_report_without_the_field_reads_as_no_copy() -> None:
    written = json.loads(render(report(gone(None)), OutputFormat.JSON))
    (entry,) = written["results"]
    assert entry["archived"] is None
    del entry["archived"]  # an older claimcheck's report

    (read,) = load_report_document(written).results
    assert read.archived is None


@pytest.mark.parametrize(
    ("fmt", "shown"),
    [
        (OutputFormat.MARKDOWN, f"- **Last archived copy:** [the capture of 2024-03-01]({COPY})"),
        (OutputFormat.GITHUB, f"last archived copy: {COPY} (2024-03-01)"),
        (OutputFormat.JUNIT, f"last archived copy: {COPY} (2024-03-01)"),
        (OutputFormat.SARIF, f"last archived copy: {COPY} (2024-03-01)"),
        (OutputFormat.TABLE, "last archived copy:"),
        (OutputFormat.HTML, f'<a href="{COPY}" rel="noreferrer">last archived copy</a>'),
    ],
    ids=str,
)
def test_every_format_shows_the_copy(fmt: OutputFormat, shown: str) -> None:
    text = render(report(gone(ArchivedCopy(url=COPY, captured=CAPTURED))), fmt, width=400)

    assert shown in text


HOSTILE = 'https://evil.example/"><script>alert(1)</script>'


class _Tags(HTMLParser):
    def __init__(self) -> None:
        super().__init__()
        self.tags: list[str] = []

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.tags.append(tag)


def test_a_hostile_copy_url_stays_inert_in_html_and_markdown() -> None:
    hostile = report(gone(ArchivedCopy(url=HOSTILE, captured=CAPTURED)))

    page = render(hostile, OutputFormat.HTML)
    markdown = render(hostile, OutputFormat.MARKDOWN)

    tags = _Tags()
    tags.feed(page)
    assert tags.tags.count("script") == 1  # the report's own script, nothing else
    assert "<script>alert" not in page
    assert "<script>alert" not in markdown
    assert "%3Cscript%3E" in markdown  # linked only as an escaped URL
