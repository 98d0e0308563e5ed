"""Small builders of claims and results for the issue tests (plain values, no I/O)."""

from __future__ import annotations

import datetime as dt
from typing import Any

from claimcheck.models import Anchor, Claim, ClaimResult, MediaType, Snapshot, Verdict

SOURCE = "https://github.com/ggml-org/llama.cpp"
QUOTE = "1.5-bit, 2-bit, 3-bit, 4-bit, 5-bit, 6-bit, and 8-bit integer quantization"
FOUND = "2-bit, 3-bit, 4-bit, 5-bit, 6-bit and 8-bit integer quantization support"
WHEN = dt.datetime(2026, 11, 30, 3, 17, tzinfo=dt.UTC)


def snapshot(when: dt.datetime = WHEN) -> Snapshot:
    """A stored README version fetched at `when`."""
    return Snapshot(
        key="github.com/ggml-org/llama.cpp/README",
        url=SOURCE,
        final_url=SOURCE,
        fetched_at=when,
        status=200,
        sha256="0" * 64,
        media=MediaType.MARKDOWN,
        file=f"{when:%Y-%m-%dT%H%M%SZ}-00000000.md",
    )


def claim(
    claim_id: str = "quant", source: str | None = SOURCE, quote: str = QUOTE, **fields: Any
) -> Claim:
    """A claim of page `page` in claims/page.yaml; `fields` override or add its fields
    (`reviewed`, `owner`, `file`, ...)."""
    values: dict[str, Any] = {
        "id": claim_id,
        "page": "page",
        "claim": f"the claim {claim_id}",
        "source": source,
        "anchor": Anchor(quote=quote) if source else None,
        "checked": dt.date(2026, 10, 20),
        "file": "claims/page.yaml",
        "line": 5,
    }
    return Claim(**{**values, **fields})


def result(
    claim_id: str = "quant",
    verdict: Verdict = Verdict.DRIFTED,
    *,
    source: str | None = SOURCE,
    quote: str = QUOTE,
    **fields: Any,
) -> ClaimResult:
    """A result with plausible evidence for its verdict; `fields` override it."""
    evidence: dict[str, Any] = {"reason": f"{verdict.value} because", "snapshot": snapshot()}
    if verdict is Verdict.DRIFTED:
        evidence.update(score=91.3, found=FOUND, diff="[-1.5-bit,-] 2-bit, … {+support+}")
    if verdict in (Verdict.SOURCE_GONE, Verdict.UNREACHABLE):
        evidence["snapshot"] = None
    evidence.update(fields)
    return ClaimResult(claim=claim(claim_id, source, quote), verdict=verdict, **evidence)
