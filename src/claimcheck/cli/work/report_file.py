"""Reading a JSON report document from a file, for report merge and render."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from claimcheck.report.load import read_report_document


def read_document(path: Path) -> Any:
    """The parsed JSON of a report file, within the loader's size bound; an error that
    names the file otherwise."""
    return read_report_document(path)
