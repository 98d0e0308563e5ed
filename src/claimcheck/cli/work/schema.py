"""What `claimcheck schema` does: print a JSON Schema."""

from __future__ import annotations

import json
import sys

from claimcheck.claims.schema import claim_file_schema
from claimcheck.report.schema import report_schema


def schema(*, report: bool) -> int:
    """The work of `claimcheck schema`, given its parsed options: its exit code."""

    document = report_schema() if report else claim_file_schema()
    sys.stdout.write(json.dumps(document, indent=2, ensure_ascii=False) + "\n")
    return 0
