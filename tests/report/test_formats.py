"""Every format name has a formatter, and every formatter renders every verdict."""

from __future__ import annotations

import json

import pytest

from claimcheck.models import (
    ExitCode,
    Report,
    Shard,
    Verdict,
)
from claimcheck.report.build import (
    exit_code,
    report_document,
    with_shard,
)
from claimcheck.report.document import SCHEMA_VERSION
from claimcheck.report.formats import (
    FORMATTERS,
    OutputFormat,
    render,
    render_bytes,
    render_chunks,
    renderer,
)
from support.sample_reports import EVERY, RICH, report, result

# SARIF lists only claims needing attention: GitHub code scanning would raise an alert
# for a passing result too. Every other format lists every claim.
ATTENTION_ONLY = frozenset({OutputFormat.SARIF})


def test_every_format_name_has_a_formatter() -> None:
    assert set(FORMATTERS) == set(OutputFormat)
    assert all(callable(renderer(fmt)) for fmt in OutputFormat)  # each name is found


@pytest.mark.parametrize("sample", [EVERY, RICH], ids=["plain", "with-evidence"])
@pytest.mark.parametrize("fmt", list(OutputFormat), ids=str)
def test_every_format_renders_every_verdict(fmt: OutputFormat, sample: Report) -> None:
    text = render(sample, fmt)
    for verdict in Verdict:
        assert verdict.value in text
        shown = f"claim-{verdict.value}" in text
        assert shown is not (fmt in ATTENTION_ONLY and verdict is Verdict.VERIFIED), verdict


def test_json_report_shape() -> None:
    doc = json.loads(render(EVERY, OutputFormat.JSON))
    assert doc["schema_version"] == SCHEMA_VERSION
    assert doc["counts"] == {v.value: 1 for v in Verdict}
    first = doc["results"][0]
    for key in (
        "id",
        "page",
        "file",
        "line",
        "verdict",
        "source",
        "quote",
        "score",
        "found",
        "snapshot",
    ):
        assert key in first
    assert first["snapshot"] == "2026-10-20"
    assert first["line"] == 7


def test_table_strips_escape_sequences_and_controls_from_page_text() -> None:
    hostile = result(Verdict.DRIFTED, quote="q")
    hostile = hostile.model_copy(
        update={"found": "evil \x1b[2J\x1b]0;title\x07 text \u202e reversed"}
    )
    text = render(report(hostile), OutputFormat.TABLE, color=False)
    assert "\x1b" not in text
    assert "\u202e" not in text
    assert "\x07" not in text
    assert "evil" in text


def test_table_colour_only_when_asked() -> None:
    assert "\x1b[" not in render(EVERY, OutputFormat.TABLE, color=False)
    assert "\x1b[" in render(EVERY, OutputFormat.TABLE, color=True)


@pytest.mark.parametrize(
    ("verdicts", "code"),
    [
        ((Verdict.VERIFIED, Verdict.MOVED), ExitCode.OK),
        ((Verdict.VERIFIED, Verdict.DRIFTED), ExitCode.STALE),
        ((Verdict.MISSING, Verdict.UNREACHABLE), ExitCode.STALE),
        ((Verdict.SOURCE_GONE,), ExitCode.STALE),
        ((Verdict.VERIFIED, Verdict.UNREACHABLE), ExitCode.UNCHECKED),
        ((Verdict.UNVERIFIED,), ExitCode.UNCHECKED),
        ((), ExitCode.OK),
    ],
    ids=[
        "ok",
        "drifted",
        "stale-beats-unchecked",
        "gone",
        "unreachable",
        "offline-unverified",
        "empty",
    ],
)
def test_exit_codes(verdicts: tuple[Verdict, ...], code: ExitCode) -> None:
    assert exit_code(report(*(result(v) for v in verdicts))) is code


def test_citation_needed_does_not_fail_the_gate() -> None:
    assert exit_code(report(result(Verdict.UNVERIFIED, source=None))) is ExitCode.OK


def test_the_json_report_validates_against_its_published_schema() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from claimcheck.report.schema import report_schema

    schema = report_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads(render(EVERY, OutputFormat.JSON)), schema)
    assert set(schema["properties"]["counts"]["required"]) == {v.value for v in Verdict}


def test_a_shards_json_report_validates_and_the_schema_holds_its_shard_to_shape() -> None:
    jsonschema = pytest.importorskip("jsonschema")
    from claimcheck.report.schema import report_schema

    schema = report_schema()
    shard = json.loads(render(with_shard(EVERY, Shard(index=2, count=3)), OutputFormat.JSON))
    whole = json.loads(render(EVERY, OutputFormat.JSON))

    assert shard["shard"] == {"index": 2, "count": 3}
    assert "shard" not in whole
    for valid in (shard, whole, {**whole, "shard": None}):
        jsonschema.validate(valid, schema)
    for bad in ({"index": 0, "count": 3}, {"index": 1}, "2/3", {"index": 1, "count": 2, "x": 1}):
        with pytest.raises(jsonschema.ValidationError):
            jsonschema.validate({**shard, "shard": bad}, schema)


def test_the_json_report_is_the_standard_librarys_indented_json() -> None:
    """The fast encoder writes exactly what `json.dumps(indent=2)` would (an oracle
    that is not the code under test), non-ASCII text and escapes included."""
    odd = result(Verdict.DRIFTED, quote="q").model_copy(
        update={"found": 'Ünïcödé 한국어 "quoted" \\ back\tslash \u2028 \x7f', "score": 87.5}
    )
    for sample in (EVERY, report(odd)):
        expected = json.dumps(report_document(sample), indent=2, ensure_ascii=False) + "\n"
        assert render(sample, OutputFormat.JSON) == expected


@pytest.mark.parametrize("sample", [EVERY, RICH, report()], ids=["every", "rich", "empty"])
def test_the_json_report_streamed_a_result_at_a_time_is_the_whole_document(
    sample: Report,
) -> None:
    """What goes to stdout chunk by chunk (and to a file) is the standard library's
    text of the whole document, each result a chunk of its own."""
    expected = (json.dumps(report_document(sample), indent=2, ensure_ascii=False) + "\n").encode()
    chunks = list(render_chunks(sample, OutputFormat.JSON))
    assert b"".join(chunks) == expected
    assert render_bytes(sample, OutputFormat.JSON) == expected
    assert len(chunks) == max(len(sample.results) + 1, 1)
