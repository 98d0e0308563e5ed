"""SARIF and JUnit: valid documents, stable fingerprints, the right levels and outcomes."""

from __future__ import annotations

import json
import subprocess
import sys
import xml.etree.ElementTree as ET
from typing import Any

import jsonschema
import pytest

from claimcheck.models import Verdict
from claimcheck.report.formats import OutputFormat, render
from support import paths
from support.sample_reports import EVERY, RICH, evidence, report, result

SARIF_SCHEMA = paths.SARIF_SCHEMA
HOSTILE = "<b>&amp;</b> \x1b[31m\x00\x07 \ud800 \ufffe ]]> \"quoted\" 'single'"


def sarif(sample: Any) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(render(sample, OutputFormat.SARIF))
    return doc


@pytest.mark.parametrize("sample", [EVERY, RICH, report()], ids=["plain", "rich", "empty"])
def test_sarif_is_valid_against_the_2_1_0_schema(sample: Any) -> None:
    if not SARIF_SCHEMA.is_file():
        pytest.fail(f"SARIF schema not found at {SARIF_SCHEMA}: tests/data is incomplete")
    schema = json.loads(SARIF_SCHEMA.read_text(encoding="utf-8"))
    jsonschema.validate(sarif(sample), schema, cls=jsonschema.Draft7Validator)


def test_sarif_results_sit_at_the_claim_line_with_levels() -> None:
    run = sarif(RICH)["runs"][0]
    rules = [rule["id"] for rule in run["tool"]["driver"]["rules"]]
    assert rules == [v.value for v in Verdict]
    levels = {r["ruleId"]: r["level"] for r in run["results"]}
    assert levels == {
        "drifted": "error",
        "changed": "error",
        "missing": "error",
        "contradicted": "error",
        "source-gone": "error",
        "context-changed": "warning",
        "expired": "warning",
        "moved": "note",
        "unreachable": "note",
        "unverified": "note",
    }
    first = run["results"][0]
    assert rules[first["ruleIndex"]] == first["ruleId"]
    location = first["locations"][0]["physicalLocation"]
    assert location == {
        "artifactLocation": {"uri": "claims/page.yaml", "uriBaseId": "%SRCROOT%"},
        "region": {"startLine": 7},
    }
    assert "Quote: “1.5-bit, 2-bit and 4-bit quantization”" in first["message"]["text"]
    assert run["properties"]["counts"]["verified"] == 1


def test_sarif_fingerprint_is_stable_when_the_text_changes() -> None:
    before = evidence(Verdict.DRIFTED)
    after = before.model_copy(update={"found": "other", "reason": "other", "score": 71.0})
    moved_line = after.model_copy(update={"claim": after.claim.model_copy(update={"line": 99})})
    prints = [
        sarif(report(r))["runs"][0]["results"][0]["partialFingerprints"]
        for r in (before, after, moved_line)
    ]
    assert prints[0] == prints[1] == prints[2]
    other = before.model_copy(update={"claim": before.claim.model_copy(update={"id": "x"})})
    assert sarif(report(other))["runs"][0]["results"][0]["partialFingerprints"] != prints[0]


def test_sarif_names_the_claimcheck_version_that_claimcheck_version_prints() -> None:
    driver = sarif(EVERY)["runs"][0]["tool"]["driver"]
    printed = subprocess.run(
        [sys.executable, "-m", "claimcheck", "--version"],
        capture_output=True,
        text=True,
        check=True,
        timeout=60,
    ).stdout
    assert printed == f"claimcheck {driver['version']}\n"
    assert driver["version"][0].isdigit()


@pytest.mark.parametrize("sample", [EVERY, RICH, report()], ids=["plain", "rich", "empty"])
def test_sarif_runs_are_one_analysis_to_code_scanning(sample: Any) -> None:
    """One automation id for every run: the category `claimcheck/claims`, no run id."""
    (run,) = sarif(sample)["runs"]
    assert run["automationDetails"] == {"id": "claimcheck/claims/"}


def test_sarif_paths_are_relative_uris() -> None:
    spaced = result(Verdict.MISSING)
    spaced = spaced.model_copy(
        update={"claim": spaced.claim.model_copy(update={"file": "my claims/a b.yaml"})}
    )
    location = sarif(report(spaced))["runs"][0]["results"][0]["locations"][0]
    assert location["physicalLocation"]["artifactLocation"]["uri"] == "my%20claims/a%20b.yaml"


def junit(sample: Any) -> ET.Element:
    return ET.fromstring(render(sample, OutputFormat.JUNIT).encode("utf-8"))


def test_junit_one_case_per_claim_failures_for_stale_skipped_for_unknown() -> None:
    root = junit(RICH)
    assert (root.get("tests"), root.get("failures"), root.get("skipped")) == ("12", "5", "3")
    cases = {case.get("name"): case for case in root.iter("testcase")}
    assert len(cases) == 12
    assert cases["claim-drifted"].get("classname") == "page"
    assert cases["claim-cited"].get("classname") == "other"
    for verdict in Verdict:
        case = cases[f"claim-{verdict.value}"]
        failure, skipped = case.find("failure"), case.find("skipped")
        assert (failure is not None) is verdict.is_stale, verdict
        assert (skipped is not None) is verdict.is_unknown, verdict
    failure = cases["claim-drifted"].find("failure")
    assert failure is not None
    assert failure.get("type") == "drifted"
    assert "now: 2-bit, 3-bit and 4-bit quantization" in (failure.text or "")
    out = cases["claim-context-changed"].find("system-out")
    assert out is not None
    assert "block diff:" in (out.text or "")
    assert [s.get("name") for s in root.iter("testsuite")] == ["page", "other"]


def xml_char(code: int) -> bool:
    """XML 1.0's `Char` production, as the specification writes it."""
    return (
        code in (0x9, 0xA, 0xD)
        or 0x20 <= code <= 0xD7FF
        or 0xE000 <= code <= 0xFFFD
        or 0x10000 <= code <= 0x10FFFF
    )


def test_junit_drops_exactly_the_characters_xml_cannot_hold() -> None:
    from claimcheck.report.formats.junit import _NOT_XML

    kept = "".join(chr(c) for c in range(0x110000) if xml_char(c))
    dropped = "".join(chr(c) for c in range(0x110000) if not xml_char(c))
    assert _NOT_XML.sub("", kept) == kept
    assert _NOT_XML.sub("", dropped) == ""


@pytest.mark.parametrize("sample", [EVERY, RICH, report()], ids=["plain", "rich", "empty"])
def test_junit_suites_and_cases_carry_a_time_in_seconds(sample: Any) -> None:
    root = junit(sample)
    timed = [root, *root.iter("testsuite"), *root.iter("testcase")]
    assert len(timed) == 1 + len(root.findall("testsuite")) + len(sample.results)
    for element in timed:
        assert float(element.get("time", "missing")) == 0.0, element.tag  # no duration held


def test_junit_is_valid_xml_whatever_the_page_says() -> None:
    hostile = evidence(Verdict.DRIFTED).model_copy(update={"reason": HOSTILE, "found": HOSTILE})
    claim = hostile.claim.model_copy(update={"claim": HOSTILE, "page": HOSTILE})
    root = junit(report(hostile.model_copy(update={"claim": claim})))
    failure = next(root.iter("failure"))
    assert failure.get("message", "").startswith("<b>&amp;</b>")
    assert '"quoted"' in (failure.text or "")
    assert next(root.iter("testcase")).get("classname", "").startswith("<b>")


def test_junit_gives_the_runs_duration_to_the_whole_and_to_a_one_page_run() -> None:
    one_page = RICH.model_copy(
        update={
            "duration_s": 3.25,
            "results": tuple(r for r in RICH.results if r.claim.page == "page"),
        }
    )
    two_pages = RICH.model_copy(update={"duration_s": 3.25})

    single, double = junit(one_page), junit(two_pages)

    assert single.get("time") == "3.250"
    assert [s.get("time") for s in single.iter("testsuite")] == ["3.250"]
    assert double.get("time") == "3.250"
    assert {s.get("time") for s in double.iter("testsuite")} == {"0"}
    assert {c.get("time") for c in double.iter("testcase")} == {"0"}
    assert junit(RICH).get("time") == "0"  # a report that does not say how long it took
