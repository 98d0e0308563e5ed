"""The report's three forms come from one model tree: the JSON written, the JSON read
back and the published schema agree.

The expected bounds and field names here are written out by hand from docs/reports.md,
not read from the models under test.
"""

from __future__ import annotations

import datetime as dt
import json
import warnings
from typing import Any, get_args

import jsonschema
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from claimcheck.models import Blame, Citation, ClaimPart, ClaimResult, Report, Shard, Verdict
from claimcheck.report.build import build_report, report_document, with_shard
from claimcheck.report.document import (
    CitationDocument,
    PartDocument,
    ResultDocument,
    VerdictName,
    result_fields,
)
from claimcheck.report.formats import OutputFormat, render_bytes
from claimcheck.report.load import ReportError, load_report_document
from claimcheck.report.schema import report_schema, schema_text
from support import paths
from support.sample_reports import EVERY, RICH, evidence

SHIPPED = paths.ROOT / "src" / "claimcheck" / "report" / "report.schema.json"
T0 = dt.datetime(2026, 11, 30, 3, 17, tzinfo=dt.UTC)
VALIDATOR = jsonschema.Draft202012Validator(
    report_schema(), format_checker=jsonschema.Draft202012Validator.FORMAT_CHECKER
)


def written(report: Report) -> dict[str, Any]:
    """The report as `verify --format json` writes it, parsed back."""
    document: dict[str, Any] = json.loads(render_bytes(report, OutputFormat.JSON))
    return document


def test_the_published_schema_is_the_one_the_models_generate() -> None:
    assert SHIPPED.read_text(encoding="utf-8") == schema_text(), (
        "report.schema.json is out of date; regenerate it: "
        "python -m claimcheck.report.schema > src/claimcheck/report/report.schema.json"
    )
    jsonschema.Draft202012Validator.check_schema(report_schema())


def test_the_schema_names_every_field_a_report_writes_in_place() -> None:
    """A reader finds each field where it stands in a report (no `$ref` to follow)."""
    schema = report_schema()
    assert "$defs" not in schema
    result = schema["properties"]["results"]["items"]
    part = result["properties"]["parts"]["items"]
    document = written(RICH)
    assert list(result["properties"]) == list(document["results"][0])
    assert list(schema["properties"]) == list(written(with_shard(RICH, Shard(index=1, count=2))))
    assert "shard" not in document  # a whole run's report has none
    assert set(part["properties"]) == set(result["properties"]) - {
        "id",
        "page",
        "file",
        "line",
        "claim",
        "checked",
        "cited",
        "parts",
        "acknowledged",  # the claim's, not a part's
    }
    # Fields older reports lack are not required of them.
    assert {"absent", "scope", "citation", "parts", "acknowledged"}.isdisjoint(result["required"])
    assert {"duration_s", "shard", "acknowledged"}.isdisjoint(schema["required"])
    assert {"schema_version", "generated_at", "offline", "exit_code", "counts", "results"} <= set(
        schema["required"]
    )


def test_the_document_models_follow_the_verdicts_and_each_other() -> None:
    assert list(get_args(VerdictName)) == [v.value for v in Verdict]
    claims_own = ("id", "page", "file", "line", "claim", "checked", "cited")
    assert [name for name in ResultDocument.model_fields if name not in claims_own] == [
        *PartDocument.model_fields,
        "parts",
        "acknowledged",
    ]


def several_sources() -> Report:
    """A claim on two sources, one citation among its parts, and text a JSON encoder
    must keep as it is (non-ASCII, a line separator)."""
    held = evidence(Verdict.VERIFIED)
    citation = Citation(
        live="https://github.com/o/r#:~:text=x",
        permalink="https://github.com/o/r/blob/abc/README.md#L3-L4",
        lines=(3, 4),
        version="commit abc",
        version_date=dt.date(2026, 1, 2),
        dated=True,
    )
    claim = held.claim.model_copy(
        update={"claim": "é 😀 \u2028 한국어", "absent": ("x", "y"), "scope": "main"}
    )
    first = held.model_copy(update={"claim": claim, "citation": citation})
    second = evidence(Verdict.DRIFTED)
    whole = claim.model_copy(
        update={
            "id": "two-sources",
            "parts": (
                ClaimPart(source=claim.source or "", anchor=claim.anchor),
                ClaimPart(source="https://example.org/b", anchor=None, absent=("z",)),
            ),
        }
    )
    both = second.model_copy(update={"claim": whole, "parts": (first, second)})
    return build_report([first, both], now=T0, offline=True, duration_s=1.5)


SAMPLES = {
    "every": EVERY,
    "rich": RICH,
    "shard": with_shard(RICH, Shard(index=2, count=3)),
    "several-sources": several_sources(),
}


@pytest.mark.parametrize("name", SAMPLES)
def test_a_written_report_validates_and_reads_back_to_the_same_bytes(name: str) -> None:
    report = SAMPLES[name]
    text = render_bytes(report, OutputFormat.JSON)
    document = json.loads(text)

    VALIDATOR.validate(document)
    again = load_report_document(document)
    assert render_bytes(again, OutputFormat.JSON) == text
    for entry in document["results"]:  # the model reads what it writes, unchanged
        assert ResultDocument.model_validate(entry).model_dump() == entry


texts = st.text(max_size=12)
results = st.builds(
    lambda verdict, claim, quote, score, occurrences, line, blamed, cited: evidence(
        verdict
    ).model_copy(
        update={
            "claim": evidence(verdict).claim.model_copy(
                update={"claim": claim, "line": line, "cited": cited}
            ),
            "score": score,
            "occurrences": occurrences,
            "blame": Blame(
                sha="c" * 40,
                date=T0,
                author=quote,
                title=claim,
                url="https://github.com/o/r/commit/" + "c" * 40,
            )
            if blamed
            else None,
            "citation": Citation(live="https://x.org/#:~:text=" + quote, lines=(line, line))
            if verdict is Verdict.VERIFIED
            else None,
        }
    ),
    st.sampled_from(Verdict),
    texts,
    texts,
    st.one_of(st.none(), st.floats(min_value=0, max_value=100)),
    st.integers(min_value=0, max_value=10_000_000),
    st.integers(min_value=1, max_value=10_000_000),
    st.booleans(),
    st.one_of(st.none(), texts),
)


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(found=st.lists(results, min_size=0, max_size=4), offline=st.booleans())
def test_any_written_report_validates_against_the_schema_and_reads_back(
    found: list[ClaimResult], offline: bool
) -> None:
    report = build_report(
        [r.model_copy(update={"claim": r.claim.model_copy(update={"id": f"c{n}"})})
         for n, r in enumerate(found)],
        now=T0,
        offline=offline,
    )  # fmt: skip
    text = render_bytes(report, OutputFormat.JSON)
    document = json.loads(text)

    VALIDATOR.validate(document)
    assert document == report_document(report)
    assert render_bytes(load_report_document(document), OutputFormat.JSON) == text
    for result in report.results:  # the writer's straight path is the model's dump
        assert result_fields(result) == ResultDocument.of(result).model_dump()


@pytest.mark.parametrize("name", SAMPLES)
def test_the_written_results_are_the_models_dump(name: str) -> None:
    for result in SAMPLES[name].results:
        fields = result_fields(result)
        assert fields == ResultDocument.of(result).model_dump()
        assert list(fields) == [n for n, f in ResultDocument.model_fields.items() if not f.exclude]


def test_a_citation_with_every_field_is_written_as_its_models_dump() -> None:
    """The writer makes a citation's document by hand: every field of `Citation`, each
    set, is written as the model dumps it (a field added to both fails here first)."""
    citation = Citation(
        live="https://x.org/#:~:text=q",
        permalink="https://github.com/o/r/blob/" + "c" * 40 + "/README.md#L3-L4",
        lines=(3, 4),
        version="commit " + "c" * 40,
        version_date=dt.date(2026, 11, 2),
        dated=True,
    )
    assert set(Citation.model_fields) == {
        name for name, field in CitationDocument.model_fields.items() if not field.exclude
    }
    result = evidence(Verdict.VERIFIED).model_copy(update={"citation": citation})
    fields = result_fields(result)
    assert fields == ResultDocument.of(result).model_dump()
    assert fields["citation"] == citation.model_dump(mode="json")
    assert list(fields["citation"]) == list(CitationDocument.model_fields)


def one_result(**fields: Any) -> dict[str, Any]:
    document = written(build_report([evidence(Verdict.DRIFTED)], now=T0, offline=False))
    document["results"][0].update(fields)
    return document


@pytest.mark.parametrize(
    "document",
    [
        one_result(line=0),
        one_result(line=10_000_001),
        one_result(score=100.5),
        one_result(occurrences=-1),
        one_result(occurrences=10_000_001),
        one_result(id="bad id -->"),
        one_result(id="-starts-with-a-dash"),
        one_result(checked="yesterday"),
        one_result(verdict="fine"),
        one_result(absent=["x"] * 1001),
        one_result(citation={"live": "x", "permalink": None, "lines": [0, 2], "version": None}),
        one_result(parts=[{**one_result()["results"][0], "score": 101}]),
        {**one_result(), "duration_s": 366 * 24 * 3600 + 1},
        {**one_result(), "shard": {"index": 0, "count": 2}},
        {**one_result(), "shard": {"index": 1, "count": 1_000_000}},
    ],
    ids=[
        "line-0",
        "line-past",
        "score",
        "occurrences-negative",
        "occurrences-past",
        "id",
        "id-dash",
        "checked",
        "verdict",
        "absent-long",
        "citation-line",
        "part-score",
        "duration-past-a-year",
        "shard-0",
        "shard-past",
    ],
)
def test_what_the_loader_refuses_the_published_schema_refuses(document: dict[str, Any]) -> None:
    """The schema states the loader's bounds and checks (a claim id, a check date), so a
    report that validates is one `report merge` and `issues --report` read."""
    with pytest.raises(ReportError):
        load_report_document(document)
    assert not VALIDATOR.is_valid(document)


def test_a_result_beyond_a_readers_bounds_is_written_and_refused_when_read() -> None:
    """The run that judged it does not fail on its report: the value is written as the
    result has it, and reading the report back names the field."""
    held = evidence(Verdict.VERIFIED)
    far = held.model_copy(
        update={"claim": held.claim.model_copy(update={"line": 10_000_001}), "score": 100.5}
    )
    with warnings.catch_warnings():
        warnings.simplefilter("error")  # no serializer warning either
        document = written(build_report([far], now=T0, offline=False))

    assert (document["results"][0]["line"], document["results"][0]["score"]) == (10_000_001, 100.5)
    assert document["results"][0]["verdict"] == "verified"
    with pytest.raises(ReportError, match=r"^results\[0\]\.(line|score): "):
        load_report_document(document)
