"""JUnit XML: one test case per claim, so any CI system can list and count them.

Pages are test suites (classname = page, name = claim id). Stale claims are failures,
claims that could not be judged are skipped, and so are review verdicts a person
acknowledged (`claimcheck ack`), with the note as the message; every other claim passes; each case's
system-out says its verdict and why. The XML is built with ElementTree, which escapes
markup; characters XML 1.0 cannot hold at all are dropped first.

Every element carries the `time` that JUnit readers expect, in seconds: the run's
duration on `<testsuites>` (and on the one `<testsuite>` of a one-page run), 0 on each
case and on the suites of a run of several pages, since a report does not record a
claim's or a page's share of the run (judging one claim takes microseconds; the time
is in fetching, which is shared). An older report without a duration gives 0.
"""

from __future__ import annotations

import re
import xml.etree.ElementTree as ET
from collections.abc import Sequence

from claimcheck.models import ClaimResult, Report
from claimcheck.report.formats.common import Level, acknowledgement_text, evidence, level_of
from claimcheck.untrusted import clean_text

NO_TIME = "0"
"""The `time` of what a report holds no duration for."""

# What XML 1.0's `Char` excludes, spelled as the excluded ranges: the same set as
# `[^\t\n\r\x20-\ud7ff\ue000-\ufffd\U00010000-\U0010ffff]`, which took 10 ms to compile.
_NOT_XML = re.compile("[\x00-\x08\x0b\x0c\x0e-\x1f\ud800-\udfff\ufffe\uffff]")


def xml_text(text: str) -> str:
    """Third-party text that XML 1.0 can hold: no control, escape or bidi characters."""
    return _NOT_XML.sub("", clean_text(text))


def render_junit(report: Report, color: bool = False) -> str:
    """A `<testsuites>` document with one `<testsuite>` per page."""
    pages: dict[str, list[ClaimResult]] = {}
    for result in report.results:
        pages.setdefault(result.claim.page, []).append(result)
    took = NO_TIME if report.duration_s is None else f"{report.duration_s:.3f}"
    root = ET.Element("testsuites", name="claimcheck", time=took)
    _tally(root, report.results)
    for page, results in pages.items():
        suite = ET.SubElement(
            root,
            "testsuite",
            name=xml_text(page),
            timestamp=report.generated_at.isoformat(),
            time=took if len(pages) == 1 else NO_TIME,
        )
        _tally(suite, results)
        for result in results:
            _case(suite, result)
    ET.indent(root)
    return ET.tostring(root, encoding="unicode", xml_declaration=True) + "\n"


def _tally(element: ET.Element, results: Sequence[ClaimResult]) -> None:
    levels = [level_of(r.verdict) for r in results]
    element.set("tests", str(len(levels)))
    element.set("failures", str(levels.count(Level.ERROR)))
    element.set("errors", "0")
    element.set("skipped", str(sum(1 for r in results if r.verdict.is_unknown or r.quiet)))


def _case(suite: ET.Element, result: ClaimResult) -> None:
    claim = result.claim
    case = ET.SubElement(
        suite,
        "testcase",
        classname=xml_text(claim.page),
        name=xml_text(claim.id),
        file=xml_text(claim.file),
        line=str(claim.line),
        time=NO_TIME,
    )
    reason = xml_text(result.reason)
    if result.verdict.is_stale:
        failure = ET.SubElement(case, "failure", message=reason, type=result.verdict.value)
        failure.text = _details(result)
        return
    if result.verdict.is_unknown:
        ET.SubElement(case, "skipped", message=f"{result.verdict.value}: {reason}")
    elif result.quiet:
        said = xml_text(acknowledgement_text(result) or "")
        ET.SubElement(case, "skipped", message=f"{result.verdict.value}, {said}")
    ET.SubElement(case, "system-out").text = _details(result)


def _details(result: ClaimResult) -> str:
    """The evidence, one fact a line (in the failure of a stale claim, else system-out)."""
    claim = result.claim
    lines = [f"verdict: {result.verdict.value}", f"reason: {result.reason}"]
    lines.append(f"claim: {claim.claim}")
    lines += [
        f"{label}: {text}" for label, text in evidence(result) if label != "changed upstream in"
    ]
    return "\n".join(xml_text(line) for line in lines)
