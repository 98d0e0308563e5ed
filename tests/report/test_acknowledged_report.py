"""An acknowledged review verdict in the JSON report: written with the schema's fields,
read back the same (so `report render`, `report merge` and `issues --report` see it), and
weighed by the exit code as the run weighed it; an older report without it reads as none."""

from __future__ import annotations

import datetime as dt
import json

import jsonschema

from claimcheck.models import Acknowledged, Anchor, Claim, ClaimResult, Review, Verdict
from claimcheck.report.build import exit_code
from claimcheck.report.formats import OutputFormat, render
from claimcheck.report.load import load_report_document
from claimcheck.report.schema import report_schema
from support.sample_reports import report

REVIEW = Review(
    date=dt.date(2026, 12, 1),
    note="still true <b>",
    verdict=Verdict.CONTEXT_CHANGED,
    version="0123456789abcdef",
    until=dt.date(2027, 1, 31),
    by="Ana",
)
CLAIM = Claim(
    id="serving",
    page="page",
    claim="the server batches requests",
    source="https://docs.example.org/serving",
    anchor=Anchor(quote="batches incoming requests"),
    checked=dt.date(2026, 1, 10),
    file="claims/page.yaml",
    line=5,
    reviewed=REVIEW,
)


def result(holds: bool) -> ClaimResult:
    lapsed = None if holds else "the source changed since"
    return ClaimResult(
        claim=CLAIM,
        verdict=Verdict.CONTEXT_CHANGED,
        reason="the heading changed",
        acknowledged=Acknowledged(review=REVIEW, holds=holds, lapsed=lapsed),
    )


def test_the_json_report_carries_the_acknowledgement_and_reads_it_back() -> None:
    written = json.loads(render(report(result(holds=True)), OutputFormat.JSON))

    jsonschema.validate(written, report_schema())
    assert written["acknowledged"] == 1
    assert written["exit_code"] == 0
    assert written["results"][0]["acknowledged"] == {
        "date": "2026-12-01",
        "note": "still true <b>",
        "verdict": "context-changed",
        "version": "0123456789abcdef",
        "until": "2027-01-31",
        "by": "Ana",
        "holds": True,
        "lapsed": None,
    }
    loaded = load_report_document(written)
    (read,) = loaded.results
    assert read.acknowledged == result(holds=True).acknowledged
    assert read.claim.reviewed == REVIEW
    assert exit_code(loaded, fail_on=[Verdict.CONTEXT_CHANGED]) == 0


def test_a_lapsed_acknowledgement_fails_the_gate_it_is_asked_to() -> None:
    lapsed = report(result(holds=False))
    assert exit_code(lapsed, fail_on=[Verdict.CONTEXT_CHANGED]) == 1
    assert exit_code(lapsed) == 0  # a review verdict fails only when asked
    written = json.loads(render(lapsed, OutputFormat.JSON))
    assert written["acknowledged"] == 0
    assert written["results"][0]["acknowledged"]["lapsed"] == "the source changed since"


def test_a_report_without_the_fields_reads_as_none() -> None:
    written = json.loads(render(report(result(holds=True)), OutputFormat.JSON))
    del written["acknowledged"]
    del written["results"][0]["acknowledged"]  # an older claimcheck's report

    (read,) = load_report_document(written).results
    assert (read.acknowledged, read.claim.reviewed) == (None, None)


def test_a_forged_report_cannot_quiet_a_stale_claim() -> None:
    """`issues --report` reads a report from outside: an `acknowledged` that holds on a
    drifted result (which `ack` never writes) leaves it loud."""
    written = json.loads(render(report(result(holds=True)), OutputFormat.JSON))
    written["results"][0]["verdict"] = "drifted"
    written["results"][0]["acknowledged"]["verdict"] = "drifted"

    loaded = load_report_document(written)

    (read,) = loaded.results
    assert read.acknowledged is not None
    assert read.acknowledged.holds
    assert not read.quiet
    assert loaded.acknowledged == 0
    assert exit_code(loaded) == 1
