"""Sample reports for the format tests: one result per verdict, with and without evidence.

`hostile_report` puts script payloads in every third-party field, for the HTML report's
escaping tests (with and without a browser).
"""

from __future__ import annotations

import datetime as dt

from claimcheck.judge.anchor import diff_words
from claimcheck.models import (
    Anchor,
    Blame,
    Claim,
    ClaimResult,
    FieldValue,
    MediaType,
    Report,
    Snapshot,
    Verdict,
)
from claimcheck.report.formats import OutputFormat, render

SNAP = Snapshot(
    key="github.com/o/r/README",
    url="https://github.com/o/r",
    final_url="https://api.github.com/repos/o/r/readme",
    fetched_at=dt.datetime(2026, 10, 20, tzinfo=dt.UTC),
    status=200,
    sha256="0" * 64,
    media=MediaType.MARKDOWN,
    file="x.md",
)
BASELINE = SNAP.model_copy(
    update={"fetched_at": dt.datetime(2026, 9, 1, tzinfo=dt.UTC), "sha256": "1" * 64}
)
BLAME = Blame(
    sha="abcdef1234567890",
    date=dt.datetime(2026, 10, 1, 9, tzinfo=dt.UTC),
    author="Ada",
    title="Drop 1.5-bit from the list",
    url="https://github.com/o/r/commit/abcdef1234567890",
)
QUOTE = "1.5-bit, 2-bit and 4-bit quantization"
FOUND = "2-bit, 3-bit and 4-bit quantization"
BLOCK_BEFORE = (
    "§ Features\nBackends: CUDA, Metal.\nIt supports 1.5-bit, 2-bit and 4-bit quantization."
)
BLOCK_AFTER = "§ Features\nBackends: CUDA.\nIt supports 1.5-bit, 2-bit and 4-bit quantization."


def result(
    verdict: Verdict, quote: str = "quoted text", source: str | None = "https://github.com/o/r"
) -> ClaimResult:
    claim = Claim(
        id=f"claim-{verdict.value}",
        page="page",
        claim="a claim",
        source=source,
        anchor=Anchor(quote=quote) if source else None,
        checked=dt.date(2026, 10, 20),
        cited=None if source else "a book",
        file="claims/page.yaml",
        line=7,
    )
    return ClaimResult(
        claim=claim,
        verdict=verdict,
        reason=f"because {verdict.value}",
        snapshot=SNAP,
        found="found text",
        score=88.0,
    )


def evidence(verdict: Verdict) -> ClaimResult:
    """A result with every piece of evidence its verdict can carry."""
    base = result(verdict, quote=QUOTE)
    update: dict[str, object] = {"baseline": BASELINE}
    if verdict is Verdict.DRIFTED:
        update |= {"found": FOUND, "diff": diff_words(QUOTE, FOUND), "blame": BLAME}
    elif verdict is Verdict.CHANGED:  # a claim on a field, whose value changed
        claim = base.claim.model_copy(
            update={"anchor": None, "field": FieldValue(path="/license", value="MIT")}
        )
        update |= {
            "claim": claim,
            "found": "Apache-2.0",
            "diff": "[-MIT-]{+Apache-2.0+}",
            "score": None,
            "value_now": "Apache-2.0",
            "value_then": "MIT",
        }
    elif verdict is Verdict.CONTEXT_CHANGED:
        update |= {
            "found": QUOTE,
            "block_before": BLOCK_BEFORE,
            "block_after": BLOCK_AFTER,
            "block_diff": diff_words(BLOCK_BEFORE, BLOCK_AFTER),
        }
    elif verdict is Verdict.MISSING:
        update |= {"found": None, "score": None, "blame": BLAME}
    elif verdict is Verdict.SOURCE_GONE:
        update |= {"found": None, "score": None, "snapshot": None}
    elif verdict is Verdict.MOVED:
        update |= {"found": QUOTE, "moved_to": "https://github.com/new/r"}
    elif verdict in (Verdict.UNREACHABLE, Verdict.UNVERIFIED):
        update |= {"found": None, "score": None, "baseline": None}
    else:
        update |= {"found": QUOTE}
    return base.model_copy(update=update)


def report(*results: ClaimResult) -> Report:
    return Report(
        generated_at=dt.datetime(2026, 11, 30, tzinfo=dt.UTC), offline=False, results=results
    )


EVERY = report(*(result(v) for v in Verdict))
RICH = report(
    *(evidence(v) for v in Verdict),
    result(Verdict.UNVERIFIED, source=None).model_copy(
        update={
            "claim": result(Verdict.UNVERIFIED, source=None).claim.model_copy(
                update={"id": "claim-cited", "page": "other"}
            )
        }
    ),
)

# Each payload, if it ever ran, would mark the body; the browser test looks for it.
HOSTILE_QUOTE = "<script>document.body.dataset.pwned='script'</script>"
HOSTILE_FOUND = '"><img src=x onerror="document.body.dataset.pwned=\'img\'">'


def hostile_report() -> str:
    drifted = evidence(Verdict.DRIFTED)
    anchor = drifted.claim.anchor
    assert anchor is not None
    claim = drifted.claim.model_copy(
        update={
            "claim": "<b onmouseover=alert(1)>claim</b>",
            "page": 'p"age',
            "anchor": anchor.model_copy(update={"quote": HOSTILE_QUOTE}),
        }
    )
    blame = Blame(
        sha="0" * 40,
        date=drifted.snapshot.fetched_at if drifted.snapshot else RICH.generated_at,
        author="<i>x</i>",
        title="</p><script>alert(1)</script>",
        url="javascript:alert(1)",
    )
    hostile = drifted.model_copy(
        update={
            "claim": claim,
            "found": HOSTILE_FOUND,
            "diff": f"[-{HOSTILE_QUOTE}-]{{+{HOSTILE_FOUND}+}}",
            "reason": "</article><script>alert(1)</script>",
            "moved_to": "javascript:alert(1)",
            "blame": blame,
        }
    )
    return render(report(hostile, *RICH.results), OutputFormat.HTML)
