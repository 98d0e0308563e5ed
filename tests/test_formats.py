"""Every format name has a formatter, and every formatter renders every verdict."""

from __future__ import annotations

import datetime as dt
import json

import pytest

from claimcheck.judge.anchor import diff_words
from claimcheck.models import (
    Anchor,
    Blame,
    Claim,
    ClaimResult,
    MediaType,
    Report,
    Snapshot,
    Verdict,
)
from claimcheck.report.build import SCHEMA_VERSION, ExitCode, exit_code
from claimcheck.report.formats import FORMATTERS, OutputFormat, render

SNAP = Snapshot(
    key="github.com/o/r/README",
    url="https://github.com/o/r",
    final_url="https://api.github.com/repos/o/r/readme",
    fetched_at=dt.datetime(2026, 10, 20, tzinfo=dt.UTC),
    status=200,
    sha256="0" * 64,
    media=MediaType.MARKDOWN,
    file="x.md",
)
BASELINE = SNAP.model_copy(
    update={"fetched_at": dt.datetime(2026, 9, 1, tzinfo=dt.UTC), "sha256": "1" * 64}
)
BLAME = Blame(
    sha="abcdef1234567890",
    date=dt.datetime(2026, 10, 1, 9, tzinfo=dt.UTC),
    author="Ada",
    title="Drop 1.5-bit from the list",
    url="https://github.com/o/r/commit/abcdef1234567890",
)
QUOTE = "1.5-bit, 2-bit and 4-bit quantization"
FOUND = "2-bit, 3-bit and 4-bit quantization"
BLOCK_BEFORE = (
    "§ Features\nBackends: CUDA, Metal.\nIt supports 1.5-bit, 2-bit and 4-bit quantization."
)
BLOCK_AFTER = "§ Features\nBackends: CUDA.\nIt supports 1.5-bit, 2-bit and 4-bit quantization."


def result(
    verdict: Verdict, quote: str = "quoted text", source: str | None = "https://github.com/o/r"
) -> ClaimResult:
    claim = Claim(
        id=f"claim-{verdict.value}",
        page="page",
        claim="a claim",
        source=source,
        anchor=Anchor(quote=quote) if source else None,
        checked=dt.date(2026, 10, 20),
        cited=None if source else "a book",
        file="claims/page.yaml",
        line=7,
    )
    return ClaimResult(
        claim=claim,
        verdict=verdict,
        reason=f"because {verdict.value}",
        snapshot=SNAP,
        found="found text",
        score=88.0,
    )


def evidence(verdict: Verdict) -> ClaimResult:
    """A result with every piece of evidence its verdict can carry."""
    base = result(verdict, quote=QUOTE)
    update: dict[str, object] = {"baseline": BASELINE}
    if verdict is Verdict.DRIFTED:
        update |= {"found": FOUND, "diff": diff_words(QUOTE, FOUND), "blame": BLAME}
    elif verdict is Verdict.CONTEXT_CHANGED:
        update |= {
            "found": QUOTE,
            "block_before": BLOCK_BEFORE,
            "block_after": BLOCK_AFTER,
            "block_diff": diff_words(BLOCK_BEFORE, BLOCK_AFTER),
        }
    elif verdict is Verdict.MISSING:
        update |= {"found": None, "score": None, "blame": BLAME}
    elif verdict is Verdict.SOURCE_GONE:
        update |= {"found": None, "score": None, "snapshot": None}
    elif verdict is Verdict.MOVED:
        update |= {"found": QUOTE, "moved_to": "https://github.com/new/r"}
    elif verdict in (Verdict.UNREACHABLE, Verdict.UNVERIFIED):
        update |= {"found": None, "score": None, "baseline": None}
    else:
        update |= {"found": QUOTE}
    return base.model_copy(update=update)


def report(*results: ClaimResult) -> Report:
    return Report(
        generated_at=dt.datetime(2026, 11, 30, tzinfo=dt.UTC), offline=False, results=results
    )


EVERY = report(*(result(v) for v in Verdict))
RICH = report(
    *(evidence(v) for v in Verdict),
    result(Verdict.UNVERIFIED, source=None).model_copy(
        update={
            "claim": result(Verdict.UNVERIFIED, source=None).claim.model_copy(
                update={"id": "claim-cited", "page": "other"}
            )
        }
    ),
)
# SARIF lists only claims needing attention: GitHub code scanning would raise an alert
# for a passing result too. Every other format lists every claim.
ATTENTION_ONLY = frozenset({OutputFormat.SARIF})


def test_every_format_name_has_a_formatter() -> None:
    assert set(FORMATTERS) == set(OutputFormat)


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
    from claimcheck.report.formats.json import report_schema

    schema = report_schema()
    jsonschema.Draft202012Validator.check_schema(schema)
    jsonschema.validate(json.loads(render(EVERY, OutputFormat.JSON)), schema)
    assert set(schema["properties"]["counts"]["required"]) == {v.value for v in Verdict}
