"""Judge one claim against what is known of its source: the pure heart of claimcheck.

The orchestrator reduces every fetch outcome and stored snapshot to one `SourceState`;
`judge_claim` turns a claim plus that state into a `ClaimResult` with a verdict and a
reason a person can act on. No I/O happens here, so every verdict is testable with
plain values.
"""

from __future__ import annotations

import datetime as dt
import functools
from collections.abc import Sequence
from dataclasses import dataclass
from typing import Any

from claimcheck.judge.anchor import AnchorMatch, diff_words, inside_a_longer_token, locate_anchor
from claimcheck.judge.change import anchor_change
from claimcheck.judge.context import changes, context_diff, locate_context
from claimcheck.judge.extract import MAIN_CONTENT
from claimcheck.judge.fields import judge_seen_field
from claimcheck.judge.units import read_page
from claimcheck.models import (
    WORST_FIRST,
    Anchor,
    ArchivedCopy,
    Claim,
    ClaimResult,
    MediaType,
    Snapshot,
    Verdict,
)
from claimcheck.page import Page


class Observed:
    """The source's text is known: from this run's fetch (live) or the store.

    `text` is the page's visible text, one unit a line, that the quote is looked for
    in; `page` its units, for comparing a quote's context. The page is a value: given
    as `units` (read by whoever holds the store), or read from `body` here; a text given
    alone is a page without units. An observation made without any of them (`unread`)
    says which version was seen and how, and nothing of its words: whoever judges it
    reads its page first (`with_page`), so that a claim whose verdict is already known
    never reads one. `fresh`: the body is new in this run (never judged before).
    `scoped` reads another part of the page than its main content, from the `body`.
    `version`: the docs version URL an alias source led to (`forges.docs_versions`), and
    `seen_before` the one the source's previous run saw; whether a claim on it moved
    depends on the version that claim stands on (`observe.known.as_claim_sees`). Not a
    dataclass: the derived views are computed at most once and are not part of the value.
    """

    __match_args__ = ("snapshot", "live")

    def __init__(
        self,
        snapshot: Snapshot,
        text: str | None = None,
        live: bool = False,
        moved_to: str | None = None,
        body: str = "",
        units: Page | None = None,
        *,
        fresh: bool = False,
        moved_why: str | None = None,
        version: str | None = None,
        seen_before: str | None = None,
    ) -> None:
        self.snapshot = snapshot
        self.fresh = fresh
        self.live = live
        self.moved_to = moved_to
        self.moved_why = moved_why
        self.version = version
        self.seen_before = seen_before
        self.body = body
        self._units = units
        # A text given without its units (a test's plain string) has no page to name
        # its code blocks: none are known.
        self._bare_text = text is not None and units is None
        if text is not None:
            self.__dict__["text"] = text

    @property
    def unread(self) -> bool:
        """Whether nothing of the page's words is at hand: no units, body or text."""
        return self._units is None and not self.body and "text" not in self.__dict__

    @functools.cached_property
    def page(self) -> Page:
        """The page's units, for comparing a quote's context."""
        if self._units is not None:
            return self._units
        if self.unread:
            raise LookupError(
                f"the page of {self.snapshot.file} was not read: it is read before the "
                "claims on it are judged (`with_page`)"
            )
        return read_page_cached(self.body, self.snapshot.media)

    @functools.cached_property
    def text(self) -> str:
        """The page's visible text, one unit a line."""
        return self.page.text

    @property
    def code(self) -> frozenset[int] | None:
        """The units (lines of `text`) that are code blocks; None when not known (a
        text given without its page)."""
        return None if self._bare_text else self.page.code

    def with_page(self, page: Page, body: str | None = None) -> Observed:
        """The same observation with its page (and its body, for `scoped`) at hand."""
        copy = self._with(units=page, body=self.body if body is None else body)
        copy._bare_text = False
        return copy

    def moved(self, to: str | None, why: str | None = None) -> Observed:
        """The same observation of a source that moved to `to`: permanently, unless
        `why` says otherwise (the words a reason gives, ending in what to do)."""
        return self.told(moved_to=to, moved_why=why if to else None)

    def told(
        self,
        *,
        moved_to: str | None,
        moved_why: str | None,
        version: str | None = None,
        seen_before: str | None = None,
    ) -> Observed:
        """The same observation with what is known of where the source leads replaced."""
        copy = self._with(
            moved_to=moved_to,
            moved_why=moved_why,
            version=version if version is not None else self.version,
            seen_before=seen_before if seen_before is not None else self.seen_before,
        )
        copy.__dict__.update({k: v for k, v in self.__dict__.items() if k in ("page", "text")})
        return copy

    def _with(self, **changes: Any) -> Observed:
        """A copy of this observation with `changes` to its constructor's fields."""
        fields: dict[str, Any] = {
            "live": self.live,
            "moved_to": self.moved_to,
            "moved_why": self.moved_why,
            "body": self.body,
            "units": self._units,
            "fresh": self.fresh,
            "version": self.version,
            "seen_before": self.seen_before,
        }
        copy = Observed(self.snapshot, **(fields | changes))
        copy._bare_text = self._bare_text
        return copy

    def scoped(self, scope: str) -> Observed:
        """The same observation, read from the parts of the page `scope` selects."""
        if not self.body and (self._units is not None or self.unread):
            raise LookupError(
                f"the body of {self.snapshot.file} was not read: a claim with a scope "
                "reads it (`with_page`)"
            )
        page = read_page_cached(self.body, self.snapshot.media, scope)
        return Observed(
            self.snapshot,
            text=page.text,
            live=self.live,
            moved_to=self.moved_to,
            body=self.body,
            units=page,
            fresh=self.fresh,
            moved_why=self.moved_why,
            version=self.version,
            seen_before=self.seen_before,
        )

    def __repr__(self) -> str:
        return f"Observed(snapshot={self.snapshot.file!r}, live={self.live})"


@dataclass(frozen=True)
class Gone:
    """The source answered 404 or 410; its last archived capture, or that there is none."""

    status: int
    url: str
    archived: ArchivedCopy | None = None
    unarchived: bool = False


@dataclass(frozen=True)
class Unreachable:
    """The source could not be fetched after retries; its text is unknown now."""

    reason: str
    hint: str
    last: Snapshot | None = None


@dataclass(frozen=True)
class NoSnapshot:
    """Offline and nothing stored for this source yet."""


SourceState = Observed | Gone | Unreachable | NoSnapshot


def page_text(body: str, media: MediaType) -> str:
    """A body's visible text, one unit a line: what quotes are looked for in."""
    return read_page_cached(body, media).text


@functools.lru_cache(maxsize=128)
def read_page_cached(body: str, media: MediaType, scope: str | None = None) -> Page:
    """A body read into units (the parts `scope` selects, if given); cached because
    sources repeat across claims."""
    return read_page(body, media, scope)


@dataclass(frozen=True)
class Thresholds:
    """The judgement's settings: how close counts as `drifted` rather than `missing`,
    and after how many days a check date is `expired` (None: never)."""

    drift_min_score: float = 70.0
    max_age_days: int | None = 180


def judge_claim(
    claim: Claim,
    state: SourceState | None,
    thresholds: Thresholds | None = None,
    *,
    baseline: Observed | None = None,
    today: dt.date | None = None,
) -> ClaimResult:
    """The verdict on one claim. `state` is None only for a claim without a source.

    A claim on several sources is judged a part at a time, each part as a claim of
    its source (`Claim.views`) with that source's state, and `combine_parts` makes
    their results one.

    `baseline` is the source as of the claim's check date, when known: a quote that
    was not in it never had support, and a quote still there verbatim is compared by
    context. `today` decides whether a still-supported claim has expired.
    """
    limits = thresholds or Thresholds()
    if claim.source is None or not claim.judgeable or state is None:
        cited = f"; the page cites {claim.cited!r}" if claim.cited else ""
        return ClaimResult(
            claim=claim,
            verdict=Verdict.UNVERIFIED,
            reason=f"citation needed: no checkable source URL yet{cited}",
        )
    match state:
        case NoSnapshot():
            return ClaimResult(
                claim=claim,
                verdict=Verdict.UNVERIFIED,
                reason="offline and no snapshot stored yet: run `claimcheck snapshot` once",
            )
        case Gone(status=status, url=url, archived=archived):
            return ClaimResult(
                claim=claim,
                verdict=Verdict.SOURCE_GONE,
                reason=f"the source answered HTTP {status} at {url}"
                + (f"; last archived copy: {archived}" if archived is not None else ""),
                archived=archived,
            )
        case Unreachable(reason=reason, hint=hint, last=last):
            held = f"; last stored snapshot is from {last.fetched_at.date()}" if last else ""
            return ClaimResult(
                claim=claim,
                verdict=Verdict.UNREACHABLE,
                reason=f"could not fetch the source: {reason}{held}. {hint}".strip(),
                snapshot=last,
            )
        case Observed():
            return expire(judge_observed(claim, state, limits, baseline=baseline), limits, today)


def combine_parts(claim: Claim, parts: Sequence[ClaimResult]) -> ClaimResult:
    """The result of a claim on several sources from its parts' (in order): the worst.

    The claim holds when every part holds; its verdict is its worst part's
    (`models.WORST_FIRST`, the first such part on a tie), its reason says which part
    that is, and its evidence (found text, snapshot, diff, blame) is that part's. The
    result's claim is the claim with that part's source and anchor (`Claim.view`, its
    parts kept), so every report shows where the claim fails; `parts` holds them all.
    """
    if not claim.parts:
        (only,) = parts
        return only
    rank = {verdict: index for index, verdict in enumerate(WORST_FIRST)}
    worst = min(range(len(parts)), key=lambda i: rank[parts[i].verdict])
    chosen, count = parts[worst], len(parts)
    reason = f"part {worst + 1} of {count} ({chosen.claim.source}): {chosen.reason}"
    if all(part.verdict is Verdict.VERIFIED for part in parts):
        reason = f"all {count} sources hold; {reason}"
    shown = chosen.claim.model_copy(update={"parts": claim.parts})
    return chosen.model_copy(update={"claim": shown, "reason": reason, "parts": tuple(parts)})


def judge_observed(
    claim: Claim, state: Observed, limits: Thresholds, *, baseline: Observed | None
) -> ClaimResult:
    """The verdict on a claim whose source's text is known, before its age is weighed.

    It depends on nothing but its arguments (the claim, the two snapshots and their
    texts, the thresholds), which is what lets a run keep it (`cache/verdicts.py`).
    """
    if claim.field is not None:
        return judge_seen_field(claim, state, baseline, moved_note(state))
    if claim.scope is not None:  # the page is the part the claim's scope selects
        state = state.scoped(claim.scope)
        baseline = baseline.scoped(claim.scope) if baseline is not None else None
        if not state.page.units:
            return ClaimResult(
                claim=claim,
                verdict=Verdict.MISSING,
                reason=f"the claim's scope {claim.scope!r} matches nothing in the source"
                f"{_where(state)}: the quote can't be looked for; fix the scope or remove it",
                snapshot=state.snapshot,
                moved_to=state.moved_to,
            )
    if claim.absent:
        said = _absence(claim, state, baseline)
        if said is not None or claim.anchor is None:
            return said or _absent_holds(claim, state, baseline)
    assert claim.anchor is not None
    # The quote's exact place in the baseline, searched once: whether it held then,
    # and where to prefer a rewording now. An unchanged source needs no search (its
    # answer is the one judged now).
    changed = baseline is not None and baseline.snapshot.sha256 != state.snapshot.sha256
    then = _exact(claim, baseline) if baseline is not None and changed else None
    near, from_code = _origin(baseline, then) if baseline is not None and then else (None, None)
    then_snapshot = baseline.snapshot if baseline is not None else None
    result = _judge_text(
        claim, state, limits, near=near, from_code=from_code, baseline=then_snapshot
    )
    if baseline is not None:
        result = _against_baseline(result, state, baseline, then)
    return result


def _absence(claim: Claim, state: Observed, baseline: Observed | None) -> ClaimResult | None:
    """`contradicted` when the source says one of the texts the claim says it does not.

    Only the text itself counts, found as a quote is (folded, whole tokens, inside one
    unit): "not a multi-tenant platform" is contradicted by "multi-tenant" appearing, not
    by a page that merely mentions tenants. The result's `found` is the unit that says
    it, so the report shows where.
    """
    for absent in claim.absent:
        match = locate_anchor(Anchor(quote=absent), state.text, min_score=101.0)
        if match is None:
            continue
        return ClaimResult(
            claim=claim,
            verdict=Verdict.CONTRADICTED,
            reason=f"the source now says {absent!r}{_where(state)}, which the claim says it "
            "does not: review the claim",
            found=_unit_of(state.text, match),
            score=100.0,
            occurrences=match.occurrences,
            snapshot=state.snapshot,
            moved_to=state.moved_to,
            baseline=baseline.snapshot if baseline is not None else None,
        )
    return None


def _absent_holds(claim: Claim, state: Observed, baseline: Observed | None) -> ClaimResult:
    """An absence claim without a quote whose texts the source does not say: it holds."""
    when = "now" if state.live else f"in the snapshot of {state.snapshot.fetched_at.date()}"
    said = " or ".join(repr(text) for text in claim.absent)
    reason = f"the source does not say {said} {when}"
    reason += moved_note(state)
    if baseline is not None and _absence(claim, baseline, None) is not None:
        reason += f"; it did on {claim.checked} (baseline), so the claim was checked too early"
    return ClaimResult(
        claim=claim,
        verdict=Verdict.MOVED if state.moved_to else Verdict.VERIFIED,
        reason=reason,
        snapshot=state.snapshot,
        moved_to=state.moved_to,
        baseline=baseline.snapshot if baseline is not None else None,
    )


def _unit_of(text: str, match: AnchorMatch) -> str:
    """The unit (one line of the page's text) a match stands in."""
    start = text.rfind("\n", 0, match.start) + 1
    end = text.find("\n", match.end)
    return text[start : end if end != -1 else len(text)]


def _against_baseline(
    result: ClaimResult, now: Observed, baseline: Observed, then: AnchorMatch | None
) -> ClaimResult:
    """Refine a verdict (whose result names the baseline already) with the source as it
    stood on the claim's check date; `then` is the quote's exact match in the baseline
    (None: not there, or not searched since the source is unchanged)."""
    claim = result.claim
    assert claim.anchor is not None
    unchanged = baseline.snapshot.sha256 == now.snapshot.sha256
    if unchanged:  # the source is as it was on the check date: same answer, no search
        held = result.verdict in (Verdict.VERIFIED, Verdict.MOVED)
    else:
        held = then is not None and then.context_ok
    when = f"{claim.checked} (baseline of {baseline.snapshot.fetched_at.date()})"
    if not held:
        if result.verdict in (Verdict.VERIFIED, Verdict.MOVED):
            return result.model_copy(
                update={"reason": f"{result.reason}; it was not yet there on {when}"}
            )
        return result.model_copy(
            update={
                "verdict": Verdict.MISSING,
                "reason": f"never matched at check date: the quote is not in the source as "
                f"of {when}, so the claim never had this support",
            }
        )
    if unchanged or result.verdict not in (Verdict.VERIFIED, Verdict.MOVED):
        return result
    before = locate_context(claim.anchor, baseline.page)
    after = locate_context(claim.anchor, now.page)
    if before is None or after is None:
        return result
    changed = changes(before, after)
    if not changed:
        return result
    return result.model_copy(
        update={
            "verdict": Verdict.CONTEXT_CHANGED,
            "reason": f"the quote is still there, but since {when} "
            + "; ".join(changed)
            + ": review whether it still supports the claim",
            "block_before": before.text,
            "block_after": after.text,
            "block_diff": context_diff(before, after),
        }
    )


def _exact(claim: Claim, state: Observed) -> AnchorMatch | None:
    """The quote's exact match in a page, if it stands there verbatim."""
    assert claim.anchor is not None
    return locate_anchor(claim.anchor, state.text, min_score=101.0)


def _origin(state: Observed, match: AnchorMatch) -> tuple[float, bool | None]:
    """Where a match stands on a page, as a fraction of its units (for ranking), and
    whether in a code block (None: not known): where a rewording is looked for."""
    text, code = state.text, state.code
    unit = text.count("\n", 0, match.start)
    return unit / max(1, text.count("\n")), None if code is None else unit in code


def expire(result: ClaimResult, limits: Thresholds, today: dt.date | None) -> ClaimResult:
    """A supported claim whose check date is too old asks a person to look again."""
    if today is None or limits.max_age_days is None or result.verdict is not Verdict.VERIFIED:
        return result
    age = (today - result.claim.checked).days
    if age <= limits.max_age_days:
        return result
    return result.model_copy(
        update={
            "verdict": Verdict.EXPIRED,
            "reason": f"{result.reason}, but it was checked {age} days ago (more than "
            f"{limits.max_age_days}): a person should look again",
        }
    )


def _judge_text(
    claim: Claim,
    state: Observed,
    limits: Thresholds,
    *,
    near: float | None,
    from_code: bool | None = None,
    baseline: Snapshot | None = None,
) -> ClaimResult:
    """The verdict on the quote in the source now, its result naming the `baseline` it
    is then weighed against (`_against_baseline`), so that it is made once."""
    assert claim.anchor is not None
    match = locate_anchor(
        claim.anchor,
        state.text,
        min_score=limits.drift_min_score,
        near=near,
        code=state.code or frozenset(),
        from_code=from_code,
    )
    where = _where(state)

    def result(verdict: Verdict, reason: str, diff: str | None = None) -> ClaimResult:
        return ClaimResult(
            claim=claim,
            verdict=verdict,
            reason=reason,
            score=round(match.score, 1) if match else None,
            found=match.found if match else None,
            occurrences=match.occurrences if match else 0,
            diff=diff,
            snapshot=state.snapshot,
            moved_to=state.moved_to,
            baseline=baseline,
        )

    if match is None:
        return result(
            Verdict.MISSING, f"the quote is not in the source{where}, and nothing close to it is"
        )
    if match.exact and match.context_ok:
        verdict = Verdict.MOVED if state.moved_to else Verdict.VERIFIED
        return result(verdict, _verified_reason(match, state))
    quoted = _quoted_text(claim)
    if match.exact:
        context = " ".join(p for p in (claim.anchor.prefix, quoted, claim.anchor.suffix) if p)
        return result(
            Verdict.DRIFTED,
            f"the quote is in the source{where}, but no longer between its prefix/suffix: "
            "the text around it changed",
            diff_words(context, _context_of(state.text, match)),
        )
    if inside_a_longer_token(claim.anchor.quote, state.text):
        return result(
            Verdict.DRIFTED,
            f"the quote's characters are in the source{where} only inside a longer number, "
            "version or name, which says something else",
            anchor_change(claim.anchor, match.found).text,
        )
    return result(
        Verdict.DRIFTED,
        f"the quote changed{where}: the closest text matches {match.score:.0f}%",
        anchor_change(claim.anchor, match.found).text,
    )


def verified_reason_start(live: bool, snapshot: Snapshot) -> str:
    """How the reason of a quote found verbatim starts: the one part of a `verified` or
    `moved` reason that says whether the source was read now or from the store (so a
    kept answer can serve both, `cache.verdicts`)."""
    when = "now" if live else f"in the snapshot of {snapshot.fetched_at.date()}"
    return f"the quote is in the source {when}"


def _verified_reason(match: AnchorMatch, state: Observed) -> str:
    text = verified_reason_start(state.live, state.snapshot)
    place = _region(match, state)
    text += f", {place}" if place else ""
    text += f" ({match.occurrences} occurrences)" if match.occurrences > 1 else ""
    return text + moved_note(state)


def moved_note(state: Observed) -> str:
    """What a reason adds for a source that moved (nothing when it did not)."""
    if not state.moved_to:
        return ""
    why = state.moved_why or f"the source moved permanently to {state.moved_to}"
    return f"; {why}: update the claim's URL"


def _region(match: AnchorMatch, state: Observed) -> str:
    """Which part of the page the quote was found in, and under which headings: for a
    page read in part (an HTML page's main content, a claim's scope) only; for a PDF,
    on which of its pages."""
    page = state.page
    if not page.units or page.text != state.text:
        return ""
    if page.pdf_pages is not None:
        return f"on page {page.pdf_pages[page.unit_at(match.start)]} of the PDF"
    if page.region is None:
        return ""
    place = "in the main content" if page.region == MAIN_CONTENT else f"in {page.region!r}"
    chain = page.units[page.unit_at(match.start)].headings
    return place + (f", under {' › '.join(chain)!r}" if chain else "")


def _where(state: Observed) -> str:
    return "" if state.live else f" (snapshot of {state.snapshot.fetched_at.date()})"


def _quoted_text(claim: Claim) -> str:
    anchor = claim.anchor
    assert anchor is not None
    return f"{anchor.quote} … {anchor.quote_end}" if anchor.quote_end else anchor.quote


def _context_of(text: str, match: AnchorMatch, width: int = 60) -> str:
    """The matched span with the text just around it, for a prefix/suffix diff."""
    start = max(0, match.start - width)
    end = min(len(text), match.end + width)
    return text[start:end]
