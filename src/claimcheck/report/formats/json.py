"""The JSON report: the machine-readable, versioned form of a run."""

from __future__ import annotations

import json

import orjson

from claimcheck.models import Report
from claimcheck.report.build import report_document


def render_json(report: Report, color: bool = False) -> str:
    """The report document as indented JSON (UTF-8 text kept readable).

    orjson writes the same text as `json.dumps(indent=2, ensure_ascii=False)`; the
    standard library's indenting encoder is pure Python, and took seconds for 10,000
    claims. A document orjson refuses (a lone surrogate in a string) goes the slow way.
    """
    document = report_document(report)
    try:
        return orjson.dumps(document, option=orjson.OPT_INDENT_2).decode("utf-8") + "\n"
    except (TypeError, orjson.JSONEncodeError):
        return json.dumps(document, indent=2, ensure_ascii=False) + "\n"
