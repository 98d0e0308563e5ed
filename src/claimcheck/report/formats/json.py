"""The JSON report: the machine-readable, versioned form of a run."""

from __future__ import annotations

from claimcheck.json_text import indented, indented_bytes
from claimcheck.models import Report
from claimcheck.report.build import report_document


def render_json(report: Report, color: bool = False) -> str:
    """The report document as indented JSON (UTF-8 text kept readable)."""
    return indented(report_document(report))


def render_json_bytes(report: Report) -> bytes:
    """`render_json` as UTF-8 (see `json_text.indented_bytes`)."""
    return indented_bytes(report_document(report))
