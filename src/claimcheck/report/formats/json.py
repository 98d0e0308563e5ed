"""The JSON report: the machine-readable, versioned form of a run."""

from __future__ import annotations

import json

from claimcheck.models import Report
from claimcheck.report.build import report_document


def render_json(report: Report, color: bool = False) -> str:
    """The report document as indented JSON (UTF-8 text kept readable)."""
    return json.dumps(report_document(report), indent=2, ensure_ascii=False) + "\n"
