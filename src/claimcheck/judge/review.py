"""Acknowledged review verdicts: whether a person's `reviewed:` entry still holds.

A review verdict (`context-changed`, `moved`, `expired`) asks a person to look; one who
looked and found the claim fine says so with `claimcheck ack`, which writes the verdict
and the version of the source it was about into the claim file. From then on the verdict
is still reported as it is, but apart and quiet (no failed gate, no open issue) until
the source changes again, the verdict becomes another, or the entry's `until` passes.

Everything here is pure: a result and a day in, a result out, so the judge can apply it
to every result, kept or judged anew, and `ack` can compute the version it writes with
the very function the judge compares it with.
"""

from __future__ import annotations

import datetime as dt
import hashlib

from claimcheck.models import ACKNOWLEDGEABLE_VERDICTS, Acknowledged, ClaimResult, Verdict

ACKNOWLEDGEABLE = ACKNOWLEDGEABLE_VERDICTS
"""The verdicts a person may acknowledge: the quote holds, and a person should look.

Never a stale verdict (`drifted`, `missing`, `contradicted`, `source-gone`): the claim's
support is gone, and acknowledging it would pass a false claim for a true one. Never an
unknown one: nothing is known to acknowledge."""

VERSION_DIGITS = 16
"""The hexadecimal digits of a version (64 bits of SHA-256): short enough to read in a
pull request, long enough that two versions never share one by chance."""


def version_of(result: ClaimResult) -> str:
    """The version of the source a review verdict is about: what a person looked at.

    It is made of what the verdict is about, so that what the person did not judge can
    change without waking the claim, and what they did judge cannot:

    - `context-changed`: the quote's context as it is now (`block_after`: its
      paragraph, headings, table header, lead-in, notices). The person read this
      context and judged that it still supports the claim; a change elsewhere on the
      page leaves it acknowledged, a change of the context flags it again.
    - `moved`: where the source leads now (`moved_to`): a move to yet another place
      flags it again.
    - `expired`: the stored snapshot the verdict was made on (its SHA-256): the person
      read the source as it was; any new version of it flags the claim again.

    When what a verdict is about is not known (a result read from an older report), the
    stored snapshot stands in for it. The digest's first `VERSION_DIGITS` hex digits.
    """
    about: str | None = None
    if result.verdict is Verdict.CONTEXT_CHANGED:
        about = result.block_after
    elif result.verdict is Verdict.MOVED:
        about = result.moved_to
    if about is None:
        about = result.snapshot.sha256 if result.snapshot is not None else result.reason
    digest = hashlib.sha256(f"{result.verdict.value}\n{about}".encode("utf-8", "surrogatepass"))
    return digest.hexdigest()[:VERSION_DIGITS]


def acknowledge(result: ClaimResult, today: dt.date) -> ClaimResult:
    """The result with its claim's acknowledgement weighed (`ClaimResult.acknowledged`).

    A claim without a `reviewed:` entry, a verified one (nothing to acknowledge) and
    one whose truth is unknown this run (unreachable, unverified: nothing is known to
    have changed) come back as they are. Otherwise the entry holds while the verdict is
    the one acknowledged, of the same version, on or before `until`; when it no longer
    holds, the reason says so and why, so that every report says it. The verdict is
    never changed: an acknowledged `context-changed` is still `context-changed`.
    """
    review = result.claim.reviewed
    if review is None or result.verdict is Verdict.VERIFIED or result.verdict.is_unknown:
        return result
    lapsed: str | None = None
    if result.verdict is not review.verdict:
        lapsed = f"the verdict is now {result.verdict.value}"
    elif version_of(result) != review.version:
        lapsed = "the source changed since"
    elif review.until is not None and today > review.until:
        lapsed = f"it ran out on {review.until.isoformat()}"
    acknowledged = Acknowledged(review=review, holds=lapsed is None, lapsed=lapsed)
    update: dict[str, object] = {"acknowledged": acknowledged}
    if lapsed is not None:
        update["reason"] = (
            f"{result.reason}; acknowledged as {review.verdict.value} on "
            f"{review.date.isoformat()}, but {lapsed}: the acknowledgement no longer holds"
        )
    return result.model_copy(update=update)
