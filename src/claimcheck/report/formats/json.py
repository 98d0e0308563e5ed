"""The JSON report: the machine-readable, versioned form of a run."""

from __future__ import annotations

from claimcheck.json_text import indented
from claimcheck.models import Report
from claimcheck.report.build import report_document


def render_json(report: Report, color: bool = False) -> str:
    """The report document as indented JSON (UTF-8 text kept readable)."""
    return indented(report_document(report))
