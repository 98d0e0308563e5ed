"""Render one claim's finding as a GitHub issue: hidden marker, title, body and comments.

Everything taken from a source page (quote, found text, diff, blame, reasons) is
third-party text: it goes through `untrusted` so it cannot ping anyone, reference an
issue, show an image, hide the rest of the body behind `<!--`, or forge our marker.
Only the first two lines of a body are ever read back as markers, and they are ours.
"""

from __future__ import annotations

import hashlib
import json
import re
from dataclasses import dataclass

from claimcheck.models import ClaimResult, Verdict
from claimcheck.report.formats.common import archived_link, source_link
from claimcheck.report.formats.markdown import markdown_blame
from claimcheck.untrusted import markdown_code, markdown_text

MARKER_VERSION = "v1"
_MARKER = re.compile(
    r"^<!-- claimcheck:v1 claim=(?P<claim>[A-Za-z0-9][A-Za-z0-9._-]*)"
    r" hash=sha256:(?P<hash>[0-9a-f]{64}) -->$"
)
_VERDICT = re.compile(r"^<!-- claimcheck:v1 verdict=(?P<verdict>[a-z-]+) -->$")
BODY_CAP = 65_000
"""What we write at most, counted in UTF-16 code units so no counting can exceed the limit
GitHub sets on issue bodies and comments (65,536 characters)."""
FIELD_CAP = 12_000
"""At most this much of one third-party text (quote, found, diff) goes into a body."""
TITLE_CAP = 256

_PHRASES = {
    Verdict.DRIFTED: "quote changed",
    Verdict.MISSING: "quote missing",
    Verdict.CONTRADICTED: "source contradicts it",
    Verdict.SOURCE_GONE: "source gone",
    Verdict.UNREACHABLE: "source unreachable",
    Verdict.CONTEXT_CHANGED: "review, the text around the quote changed",
    Verdict.MOVED: "review, the source moved",
    Verdict.EXPIRED: "review, the check date expired",
}
_CUT_NOTE = "\n\n*This description was cut to stay under GitHub's size limit; the JSON report of `claimcheck verify --format json` has the full finding.*\n"  # noqa: E501


_SETTLED_BY = {
    Verdict.CONTEXT_CHANGED: "It was reviewed and accepted (`claimcheck accept`), or the "
    "text around the quote is back as it was at the baseline.",
    Verdict.EXPIRED: "It was reviewed and accepted (`claimcheck accept`): its check date "
    "is recent again.",
    Verdict.MOVED: "The claim's `source` now names the address the page moved to, or the "
    "old address no longer leads elsewhere.",
}
"""What a `verified` verdict says happened to a review issue's claim, by the verdict it
was filed for."""


@dataclass(frozen=True)
class Marker:
    """What the hidden first lines of one of our issue bodies say."""

    claim_id: str
    hash: str
    verdict: Verdict | None = None


def finding_hash(result: ClaimResult) -> str:
    """SHA-256 of what the finding is (verdict, found text, diff, source), never of when.

    Timestamps, reasons and failure counts change every night; hashing them would
    rewrite every open issue every night. A gone source's archived copy is part of the
    finding once known (it is kept from night to night), so the issue gains it; without
    one the hash is what it always was.
    """
    finding = {
        "verdict": result.verdict.value,
        "found": result.found,
        "diff": result.diff,
        "source": result.claim.source,
    }
    if result.archived is not None:
        finding["archived"] = result.archived.url
    data = json.dumps(finding, sort_keys=True, ensure_ascii=False).encode("utf-8")
    return hashlib.sha256(data).hexdigest()


def render_marker(result: ClaimResult) -> str:
    """The two hidden lines that start every body: claim id and hash, then the verdict."""
    return (
        f"<!-- claimcheck:{MARKER_VERSION} claim={result.claim.id} "
        f"hash=sha256:{finding_hash(result)} -->\n"
        f"<!-- claimcheck:{MARKER_VERSION} verdict={result.verdict.value} -->"
    )


def parse_marker(body: str | None) -> Marker | None:
    """The marker of a body we wrote, or None; only the first two lines are looked at."""
    if not body:
        return None
    lines = body.replace("\r\n", "\n").split("\n", 2)
    match = _MARKER.match(lines[0])
    if match is None:
        return None
    verdict = None
    if len(lines) > 1 and (found := _VERDICT.match(lines[1])):
        try:
            verdict = Verdict(found["verdict"])
        except ValueError:
            verdict = None
    return Marker(claim_id=match["claim"], hash=match["hash"], verdict=verdict)


def issue_title(result: ClaimResult) -> str:
    """Names the page and the claim (ids are `[A-Za-z0-9._-]`, safe in a title)."""
    claim = result.claim
    phrase = _PHRASES.get(result.verdict, result.verdict.value)
    return f"claimcheck: {phrase} for claim {claim.id} on page {claim.page}"[:TITLE_CAP]


def issue_body(result: ClaimResult, *, failures: int = 0) -> str:
    """The whole issue description; `failures` is the source's consecutive failed runs."""
    claim, anchor = result.claim, result.claim.anchor
    parts = [
        render_marker(result),
        f"**{_headline(result)}**",
        f"> {markdown_text(claim.claim)}",
        _facts(result),
    ]
    if anchor is not None:
        quote = anchor.quote if not anchor.quote_end else f"{anchor.quote} … {anchor.quote_end}"
        parts += ["### Quote", _block(quote)]
    if claim.absent:
        parts += ["### Must not say", _block("\n".join(claim.absent))]
    parts += ["### What changed", _changed(result, failures)]
    if result.blame is not None:
        parts += ["### Upstream change", _blame(result)]
    parts += ["### How to accept or fix", _how_to(result)]
    return cap_body("\n\n".join(parts) + "\n")


def cap_body(body: str, cap: int = BODY_CAP) -> str:
    """Cut a body to `cap` UTF-16 units at a line end, closing an open fence, with a note."""
    if _units(body) <= cap:
        return body
    budget = cap - _units(_CUT_NOTE) - 16
    kept: list[str] = []
    used = 0
    fence: str | None = None
    for line in body.split("\n"):
        size = _units(line) + 1
        if used + size > budget:
            break
        kept.append(line)
        used += size
        fence = _fence_state(line, fence)
    if fence is not None:
        kept.append(fence)
    return "\n".join(kept) + _CUT_NOTE


def comment_verdict_changed(result: ClaimResult, previous: Verdict) -> str:
    """Posted when an open issue's verdict changed (the description is updated too)."""
    return cap_body(
        f"The verdict changed from **{previous.value}** to **{result.verdict.value}**: "
        f"{markdown_text(result.reason)}\n\nThe description above now shows the new finding."
    )


def comment_reopened(result: ClaimResult, review: bool = False) -> str:
    """Posted when a closed issue is reopened: its claim is stale, or to review, again.

    A review issue closed by hand is reopened while the claim still asks for review:
    only `claimcheck accept` (or the source returning) settles it, so the comment says so.
    """
    lapsed = result.acknowledged
    if review and lapsed is not None and not lapsed.holds:
        when = lapsed.review.date.isoformat()
        what = f"The acknowledgement of {when} no longer holds ({lapsed.lapsed})"
        how = (
            "Review the claim again: acknowledge it anew "
            f"({markdown_code(f'claimcheck ack {result.claim.id} --note ...')}), accept it "
            f"({markdown_code(f'claimcheck accept {result.claim.id}')}), or correct it."
        )
    elif review:
        what = "The claim still needs a review"
        how = (
            "To settle it, accept the claim "
            f"({markdown_code(f'claimcheck accept {result.claim.id}')}) once "
            "you have reviewed it; to stop tracking it, close this issue as *not planned*."
        )
    else:
        what = "The claim is stale again"
        how = "To stop tracking this claim, close this issue as *not planned*."
    return cap_body(
        f"{what} (**{result.verdict.value}**): {markdown_text(result.reason)}\n\n"
        f"The description above shows the current finding. {how}"
    )


def comment_recovered(
    result: ClaimResult, previous: Verdict | None = None, off: str | None = None
) -> str:
    """Posted before closing an issue as completed: what the claim's verdict is now.

    `previous` is the verdict the issue was filed for: a review issue closes once the
    claim is `verified`, which happens when it was accepted (or its source came back
    as it was). `off` names the `[issues]` setting when the verdict now is one that
    files no issue (its quote holds).
    """
    verdict, reason = result.verdict.value, markdown_text(result.reason)
    if off is not None:
        text = (
            f"The quote holds (**{verdict}**): {reason}\n\nclaimcheck files no issue for "
            f"`{verdict}` here ({off})."
        )
    elif result.verdict is Verdict.VERIFIED and previous in _SETTLED_BY:
        text = f"The claim is **verified** now: {reason}\n\n{_SETTLED_BY[previous]}"
    else:
        text = f"The claim has support again (**{verdict}**): {reason}"
    return cap_body(f"{text}\n\nClosing as completed.")


def comment_acknowledged(result: ClaimResult) -> str:
    """Posted before closing the issue of a review verdict a person acknowledged
    (`claimcheck ack`): who, when and the note (a person's text, escaped), and when the
    issue comes back."""
    acknowledged = result.acknowledged
    assert acknowledged is not None
    review = acknowledged.review
    by = f" by {markdown_text(review.by)}" if review.by else ""
    until = f", or after {review.until.isoformat()}" if review.until else ""
    return cap_body(
        f"The **{result.verdict.value}** verdict was acknowledged{by} on "
        f"{review.date.isoformat()} (`reviewed:` in {markdown_code(result.claim.file)}):\n\n"
        f"> {markdown_text(review.note)}\n\n"
        f"The claim stays quiet until its source changes again{until}; this issue "
        "reopens then.\n\nClosing as completed."
    )


def comment_removed(claim_id: str) -> str:
    """Posted before closing an issue whose claim is no longer in the claim files."""
    return (
        f"The claim {markdown_code(claim_id)} is no longer in the claim files. "
        "Closing as not planned."
    )


def comment_duplicate(canonical: int) -> str:
    """Posted before closing a duplicate: one issue per claim, the oldest is kept."""
    return f"Duplicate of #{canonical}: claimcheck keeps one issue per claim, the oldest one."


def _headline(result: ClaimResult) -> str:
    claim = result.claim
    what = {
        Verdict.DRIFTED: "The quote behind this claim changed on its source.",
        Verdict.MISSING: "The quote behind this claim is no longer on its source.",
        Verdict.CONTRADICTED: "The source of this claim now says what the claim says it does not.",
        Verdict.SOURCE_GONE: "The source of this claim is gone.",
        Verdict.UNREACHABLE: "The source of this claim could not be fetched.",
        Verdict.CONTEXT_CHANGED: "The quote behind this claim still stands, but the text "
        "around it changed: review whether it still supports the claim.",
        Verdict.MOVED: "The source of this claim now leads to another address: review "
        "whether the page there still supports the claim.",
        Verdict.EXPIRED: "This claim was checked by a person too long ago: review it "
        "against its source.",
    }.get(result.verdict, f"This claim is {result.verdict.value}.")
    return f"{what} Claim {markdown_code(claim.id)} on page {markdown_code(claim.page)}."


def _facts(result: ClaimResult) -> str:
    claim = result.claim
    rows = [
        ("Verdict", f"`{result.verdict.value}`"),
        ("Claim file", f"{markdown_code(claim.file)} line {claim.line}"),
        ("Checked by a person", claim.checked.isoformat()),
        ("Source", _source_link(result)),
    ]
    if result.moved_to:
        rows.append(("Moved to", markdown_code(result.moved_to)))
    copy = archived_link(result)
    if copy is not None:
        rows.append(("Last archived copy", f"[the capture of {copy[1]}]({copy[0]})"))
    if result.baseline is not None:
        rows.append(("Baseline", f"snapshot of {result.baseline.fetched_at.date().isoformat()}"))
    if result.snapshot is not None:
        rows.append(("Latest snapshot", result.snapshot.fetched_at.date().isoformat()))
    lines = ["| | |", "| --- | --- |"]
    lines += [f"| {name} | {value} |" for name, value in rows]
    return "\n".join(lines)


def _source_link(result: ClaimResult) -> str:
    """The source, linked so that it opens at the text (the Markdown report's link)."""
    source = result.moved_to or result.claim.source
    if source is None:
        return markdown_text(result.claim.cited or "none")
    link = source_link(result)
    return f"[{markdown_code(source)}]({link})" if link else markdown_code(source)


def _changed(result: ClaimResult, failures: int) -> str:
    lines = [markdown_text(result.reason)]
    if result.verdict in (Verdict.UNREACHABLE, Verdict.SOURCE_GONE) and failures:
        lines.append(f"This happened on {failures} consecutive runs when this was written.")
    if result.found and result.verdict is Verdict.CONTRADICTED:
        lines += ["Where the source says it now:", _block(result.found)]
    elif result.found:
        score = f" ({result.score:.0f}% alike)" if result.score is not None else ""
        lines += [f"The closest text on the source now{score}:", _block(result.found)]
    if result.diff:
        lines += ["Word diff (`[-removed-]{+added+}`):", _block(result.diff)]
    if result.block_diff:
        lines += ["The paragraph around the quote, changed:", _block(result.block_diff)]
    return "\n\n".join(lines)


def _blame(result: ClaimResult) -> str:
    assert result.blame is not None
    return f"Commit {markdown_blame(result.blame)}"


def _how_to(result: ClaimResult) -> str:
    where = f"{markdown_code(result.claim.file)} line {result.claim.line}"
    accept = markdown_code(f"claimcheck accept {result.claim.id}")
    steps = {
        Verdict.DRIFTED: [
            "If the new wording still supports the claim: copy the current text above into "
            f"the claim's `quote` and update `checked` in {where}.",
            "If it no longer does: correct the published page, then the claim.",
        ],
        Verdict.MISSING: [
            "Find where the source says this now and update the claim's `source` / `quote` "
            f"and `checked` in {where}.",
            "If the source no longer says it: correct the published page, then remove or "
            "rewrite the claim.",
        ],
        Verdict.CONTRADICTED: [
            "Read where the source says it (above): if the claim no longer holds, correct "
            "the published page, then remove or rewrite the claim.",
            f"If the source says it in another sense, reword the claim's `absent` in {where} "
            "so it names exactly what must not be said.",
        ],
        Verdict.SOURCE_GONE: [
            f"Point the claim's `source` in {where} at the page's new address, or at another "
            "source that supports it"
            + (", or at its last archived copy (above)." if result.archived else "."),
            "If nothing supports the claim any more: correct the published page.",
        ],
        Verdict.UNREACHABLE: [
            "Open the source in a browser: if it is down for good, point the claim at another "
            f"source in {where}.",
            "If it is only blocking automated requests, nothing is known about the claim: "
            "close this issue as *not planned*.",
        ],
        Verdict.CONTEXT_CHANGED: [
            "Read the changed paragraph above: does the quote, in its new surroundings, "
            "still support the claim?",
            f"If it does, accept the claim: {accept} (it takes the "
            f"latest snapshot as the baseline and sets `checked` in {where} to today).",
            "If it does not: correct the published page, then the claim.",
        ],
        Verdict.MOVED: [
            "Open the address it moved to (above): does the page there still support the claim?",
            f"If it does, point the claim's `source` in {where} at that address.",
            "If it does not: correct the published page, then the claim.",
        ],
        Verdict.EXPIRED: [
            "Read the source again: does it still support the claim?",
            f"If it does, accept the claim: {accept} (it sets `checked` in {where} to today).",
            "If it does not: correct the published page, then the claim.",
        ],
    }.get(result.verdict, [f"Review the claim in {where}."])
    if result.verdict in (Verdict.CONTEXT_CHANGED, Verdict.MOVED, Verdict.EXPIRED):
        ack = markdown_code(f'claimcheck ack {result.claim.id} --note "..."')
        steps.insert(
            2,
            f"If it does and the claim should stay as it is, acknowledge it: {ack} (it "
            f"writes `reviewed:` with your note in {where}; this issue closes with the note "
            "and reopens when the source changes again).",
        )
    if result.verdict.is_stale or result.verdict is Verdict.UNREACHABLE:
        steps.append("This issue closes itself on the first run that finds the claim supported.")
    else:
        steps.append(
            "This issue closes itself on the first run that finds the claim `verified`: "
            "once it is accepted, or its source is back as it was."
        )
    return "\n".join(f"- {step}" for step in steps)


def _block(text: str) -> str:
    """Third-party text in a fence it cannot break out of, cut to FIELD_CAP characters."""
    if len(text) > FIELD_CAP:
        text = text[:FIELD_CAP] + f"\n… (cut: {len(text) - FIELD_CAP} more characters)"
    return markdown_code(text, block=True)


def _fence_state(line: str, fence: str | None) -> str | None:
    """Track whether a line opens or closes a backtick fence (CommonMark's rule)."""
    stripped = line.lstrip(" ")
    run = len(stripped) - len(stripped.lstrip("`"))
    if run < 3 or len(line) - len(stripped) > 3:
        return fence
    if fence is None:
        return "`" * run
    if run >= len(fence) and not stripped.strip("`").strip():
        return None
    return fence


def _units(text: str) -> int:
    """Length in UTF-16 code units, the strictest way GitHub may count characters."""
    return len(text.encode("utf-16-le")) // 2
