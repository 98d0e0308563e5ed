"""A JSON report read back into results: what issue syncing needs survives the trip."""

from __future__ import annotations

import datetime as dt
import json
from typing import Any

import pytest

from claimcheck.github.body import finding_hash, issue_body
from claimcheck.models import Blame, FieldValue, Shard, Verdict
from claimcheck.report.build import build_report, report_document, with_shard
from claimcheck.report.load import ReportError, load_report_document
from support.claim_results import WHEN, result, snapshot


def document(*results: Any) -> dict[str, Any]:
    report = build_report(results or [result()], now=WHEN, offline=False)
    loaded: dict[str, Any] = json.loads(json.dumps(report_document(report)))
    return loaded


def test_a_report_reads_back_into_the_same_findings() -> None:
    blame = Blame(
        sha="c" * 40,
        date=dt.datetime(2024, 2, 29, 10, tzinfo=dt.UTC),
        author="someone",
        title="docs: reword",
        url="https://github.com/o/r/commit/" + "c" * 40,
    )
    drifted = result(
        baseline=snapshot(dt.datetime(2026, 10, 20, tzinfo=dt.UTC)),
        blame=blame,
        block_diff="[-old-] {+new+}",
    )
    originals = [drifted, result("gone", Verdict.SOURCE_GONE), result("ok", Verdict.VERIFIED)]
    report = load_report_document(document(*originals))

    assert report.generated_at == WHEN
    for original, loaded in zip(originals, report.results, strict=True):
        assert loaded.claim == original.claim
        assert loaded.verdict is original.verdict
        assert finding_hash(loaded) == finding_hash(original)
        assert issue_body(loaded) == issue_body(original)


def test_newer_fields_are_read_when_present_and_unknown_ones_ignored() -> None:
    doc = document()
    doc["results"][0].update(
        baseline="2026-10-20",
        block_diff="[-old-] {+new+}",
        blame={
            "sha": "c" * 40,
            "date": "2024-02-29T10:00:00+00:00",
            "author": "someone",
            "title": "docs: reword",
            "url": "https://github.com/o/r/commit/" + "c" * 40,
            "extra": "ignored",
        },
        something_new=True,
    )
    (loaded,) = load_report_document(doc).results
    assert loaded.baseline is not None
    assert loaded.baseline.fetched_at.date() == dt.date(2026, 10, 20)
    assert loaded.blame is not None
    assert loaded.blame.author == "someone"
    assert loaded.block_diff == "[-old-] {+new+}"


@pytest.mark.parametrize(
    ("change", "message"),
    [
        ({"schema_version": 2}, "schema_version"),
        ({"schema_version": None}, "schema_version"),
        ({"results": None}, "no `results` list"),
    ],
    ids=["newer", "missing-version", "no-results"],
)
def test_documents_that_are_not_reports_are_refused(change: dict[str, Any], message: str) -> None:
    with pytest.raises(ReportError, match=message):
        load_report_document({**document(), **change})


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("id", "bad id -->"),
        ("verdict", "fine"),
        ("checked", "yesterday"),
        ("page", None),
        ("line", "x"),
    ],
    ids=["id", "verdict", "checked", "page", "line"],
)
def test_a_broken_result_names_its_position(field: str, value: object) -> None:
    doc = document()
    doc["results"][0][field] = value
    with pytest.raises(ReportError, match="report result 1") as raised:
        load_report_document(doc)
    said = str(raised.value)
    assert field in said  # the field, in plain words: not pydantic's header and links
    assert "validation error for" not in said
    assert "pydantic" not in said


def test_not_a_mapping_is_refused() -> None:
    with pytest.raises(ReportError):
        load_report_document([1, 2])


def test_an_absence_claims_texts_and_a_scope_read_back() -> None:
    found = result("no-pd", Verdict.VERIFIED)
    claim = found.claim.model_copy(
        update={"absent": ("disaggregation", "multi-tenant"), "scope": "main .features"}
    )
    document = report_document(build_report([found.model_copy(update={"claim": claim})],
                                            now=WHEN, offline=True))  # fmt: skip

    (entry,) = document["results"]
    (again,) = load_report_document(json.loads(json.dumps(document))).results

    assert entry["absent"] == ["disaggregation", "multi-tenant"]
    assert entry["scope"] == "main .features"
    assert again.claim.absent == ("disaggregation", "multi-tenant")
    assert again.claim.scope == "main .features"
    older = {
        **document,
        "results": [{k: v for k, v in entry.items() if k not in ("absent", "scope")}],
    }
    (old,) = load_report_document(older).results
    assert (old.claim.absent, old.claim.scope) == ((), None)


# -- a shard's report says so, and reads back as one ----------------------------------


def test_a_shards_report_reads_back_as_that_shard() -> None:
    shard = Shard(index=2, count=3)
    written = json.loads(
        json.dumps(report_document(with_shard(load_report_document(document()), shard)))
    )

    loaded = load_report_document(written)

    assert written["shard"] == {"index": 2, "count": 3}
    assert loaded.shard == shard
    assert report_document(loaded) == written  # `report render -f json` keeps the shard


@pytest.mark.parametrize("change", [{}, {"shard": None}], ids=["older-without-it", "null"])
def test_a_report_without_a_shard_is_a_whole_runs(change: dict[str, Any]) -> None:
    loaded = load_report_document({**document(), **change})

    assert loaded.shard is None
    assert "shard" not in report_document(loaded)


@pytest.mark.parametrize(
    "shard",
    [
        "1/2",
        [1, 2],
        {"index": 1},
        {"index": 0, "count": 2},
        {"index": 3, "count": 2},
        {"index": True, "count": 1},
        {"index": "1", "count": "2"},
        {"index": 1, "count": 2, "of": "run"},
    ],
    ids=["text", "list", "no-count", "zero", "past-the-count", "bool", "strings", "extra-key"],
)
def test_a_shard_that_is_not_one_is_refused(shard: object) -> None:
    """Ignored, a broken shard would let a shard's report pass for a whole run's. A
    number out of a shard's range is refused by the bounds, which name the field."""
    expected = r"^(report shard .* is not one: expected|shard\.index: 0 is out of range \(1 to)"
    with pytest.raises(ReportError, match=expected):
        load_report_document({**document(), "shard": shard})


def test_a_claim_on_a_field_reads_back_with_its_values() -> None:
    base = result("license", Verdict.CHANGED)
    claim = base.claim.model_copy(
        update={"anchor": None, "field": FieldValue(path="/license", value="MIT")}
    )
    original = base.model_copy(
        update={
            "claim": claim,
            "found": "Apache-2.0",
            "diff": "[-MIT-]{+Apache-2.0+}",
            "value_now": "Apache-2.0",
            "value_then": "MIT",
        }
    )

    doc = document(original)
    (loaded,) = load_report_document(doc).results
    older = document(original)
    del older["results"][0]["field"]  # a report of a claimcheck before claims on fields
    (old,) = load_report_document(older).results

    assert doc["results"][0]["field"] == {
        "path": "/license",
        "value": "MIT",
        "matches": None,
        "now": "Apache-2.0",
        "then": "MIT",
    }
    assert loaded.claim.field == FieldValue(path="/license", value="MIT")
    assert (loaded.value_now, loaded.value_then) == ("Apache-2.0", "MIT")
    assert issue_body(loaded) == issue_body(original)
    assert old.claim.field is None
