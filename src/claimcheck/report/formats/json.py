"""The JSON report: the machine-readable, versioned form of a run."""

from __future__ import annotations

from collections.abc import Iterator

from claimcheck.json_text import indented, indented_chunks
from claimcheck.models import Report
from claimcheck.report.build import report_document, report_head, result_documents


def render_json(report: Report, color: bool = False) -> str:
    """The report document as indented JSON (UTF-8 text kept readable)."""
    return indented(report_document(report))


def render_json_bytes(report: Report) -> bytes:
    """`render_json` as UTF-8 (see `json_text.indented_bytes`)."""
    return b"".join(json_chunks(report))


def json_chunks(report: Report) -> Iterator[bytes]:
    """`render_json_bytes`, a result at a time, for a stream (see `indented_chunks`)."""
    return indented_chunks(report_head(report), "results", result_documents(report))
