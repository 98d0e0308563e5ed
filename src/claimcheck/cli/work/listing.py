"""The JSON that `list`, `show` and `lint` write with `--format json`, and how it is written.

Each is one document with a `schema_version` (it changes only when a field is removed or
changes meaning; fields may be added within a version). A field that means what a field
of the JSON report means has the report's name and form (`id`, `page`, `file`, `line`,
`claim`, `checked`, `verdict`, `stale`, `reason`, `source`, `quote`, `snapshot`, …,
see `report/document.py`), so a script can join the two on `id`. Keys come in a fixed
order, claims in the order their files give them. Text is the claim file's and the
stored state's as written (JSON escapes control characters; a script that prints it to
a terminal cleans it, as claimcheck's own tables do).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from claimcheck.cli.output import write_utf8
from claimcheck.json_text import indented_bytes

if TYPE_CHECKING:
    from claimcheck.models import Claim
    from claimcheck.store.state import ClaimState

LISTING_SCHEMA_VERSION = 1
"""The version of the documents of `list`, `show` and `lint` with `--format json`."""


def write_json(document: object) -> None:
    """Write one document to stdout as indented JSON in UTF-8, whatever the terminal's
    encoding (`output.write_utf8`)."""
    write_utf8((indented_bytes(document),))


def claim_head(claim: Claim) -> dict[str, Any]:
    """The claim as every listing starts it: where it is and what it says."""
    return {
        "id": claim.id,
        "page": claim.page,
        "file": claim.file,
        "line": claim.line,
        "claim": claim.claim,
    }


def last_verdict(last: ClaimState | None) -> dict[str, Any]:
    """The last verdict remembered (`state.json`): null fields for a claim never judged.

    `since` is when the claim came to this verdict (a date-time, as the report writes
    its times); `stale` as in the report: the claim's support changed or vanished;
    `acknowledged`: a review verdict a person acknowledged (`claimcheck ack`).
    """
    return {
        "verdict": last.verdict.value if last else None,
        "stale": last.verdict.is_stale if last else False,
        "acknowledged": last.acknowledged if last else False,
        "since": last.since.isoformat() if last else None,
        "reason": last.reason if last else None,
    }
