"""Lint rules for claim files, and where a quote stands among its occurrences on a page.

Pure: the parser's problems, the claims and what is stored of each source come in as
values, findings with file:line go out, so every rule is testable without files. The
occurrence helpers are shared with `add` and `accept`, which pick one occurrence of an
ambiguous quote the same way `lint` proposes it, and `accept` refuses an absence claim
the source contradicts as `lint` reports it (`absent_said`).
"""

from __future__ import annotations

import dataclasses
import re
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import StrEnum

from claimcheck.judge.anchor import locate_anchor, normalize_text, verbatim_spans
from claimcheck.judge.fields import judge_field
from claimcheck.judge.verdict import Observed, SourceState, Thresholds, judge_observed
from claimcheck.models import Anchor, Claim, ClaimResult, ExitCode, Verdict
from claimcheck.untrusted import clean_text, shorten
from claimcheck.wording import counted

# A quote shorter than this matches too easily to support anything: a warning.
MIN_QUOTE_WORDS = 3
MIN_QUOTE_CHARS = 12
# The widest context, in words on each side, proposed to pick one occurrence.
MAX_CONTEXT_WORDS = 8
# An exact-only search: locate_anchor never accepts a fuzzy score above 100.
_EXACT = 101.0
_PROBLEM = re.compile(r"^(?P<file>.+?):(?P<line>\d+): (?:claim '(?P<id>[^']*)': )?(?P<rest>.*)$")


class Level(StrEnum):
    """How much a finding matters: errors fail `lint` (exit 1), warnings do not."""

    ERROR = "error"
    WARNING = "warning"


class Rule(StrEnum):
    """What a finding is about; docs/commands/lint.md lists each with its level."""

    SCHEMA = "schema"
    DUPLICATE_ID = "duplicate-id"
    NO_SNAPSHOT = "no-snapshot"
    QUOTE_NOT_FOUND = "quote-not-found"
    ABSENT_FOUND = "absent-found"
    CONTEXT_MISMATCH = "context-mismatch"
    AMBIGUOUS_QUOTE = "ambiguous-quote"
    SHORT_QUOTE = "short-quote"
    FIELD_MISMATCH = "field-mismatch"

    @property
    def level(self) -> Level:
        """Warnings are the rules a claim can break and still be judged correctly."""
        return Level.WARNING if self in (Rule.AMBIGUOUS_QUOTE, Rule.SHORT_QUOTE) else Level.ERROR


# Rules whose files `verify` refuses outright: lint exits 2 on them, as verify does.
UNPARSEABLE = frozenset({Rule.SCHEMA, Rule.DUPLICATE_ID})


@dataclass(frozen=True, order=True)
class Finding:
    """One problem of one claim file, at a line, possibly of one claim."""

    file: str
    line: int
    rule: Rule
    message: str
    claim_id: str | None = None
    part: int | None = None
    """For a claim on several sources: the part the finding is about (K of `sources[K]`,
    from 1)."""

    @property
    def level(self) -> Level:
        """The level of the finding's rule."""
        return self.rule.level

    def render(self) -> str:
        """`FILE:LINE: LEVEL: claim 'ID': MESSAGE [RULE]` (`claim 'ID' sources[K]:` for a
        part of a claim on several sources), safe to print."""
        where = f"{self.file}:{self.line}: " if self.line else f"{self.file}: "
        part = f" sources[{self.part}]" if self.part is not None else ""
        who = f"claim {self.claim_id!r}{part}: " if self.claim_id else ""
        return clean_text(f"{where}{self.level}: {who}{self.message} [{self.rule}]")


def findings_from_problems(
    problems: Iterable[str], shown: Mapping[str, str] | None = None
) -> list[Finding]:
    """The parser's problems (`file:line: claim 'id': field: message`) as findings.

    The parser names each file as it was read, from the current folder; `shown` maps
    those names to the paths the findings of parsed claims show (relative to the
    repository's root, as every report shows them), so that one lint output names each
    file one way: where the finding is, and where its message names a file (a duplicate
    id's first definition).
    """
    rename = _renaming(shown or {})
    findings = []
    for problem in map(rename, problems):
        match = _PROBLEM.match(problem)
        if match is None:
            findings.append(Finding(problem, 0, Rule.SCHEMA, "cannot be read"))
            continue
        rest = match["rest"]
        rule = Rule.DUPLICATE_ID if rest.startswith("id: duplicate id") else Rule.SCHEMA
        findings.append(Finding(match["file"], int(match["line"]), rule, rest, match["id"]))
    return findings


def _renaming(shown: Mapping[str, str]) -> Callable[[str], str]:
    """A problem with each `NAME:LINE` of a file in `shown` written as its shown path.

    A name counts only where a place starts (the problem's start, or after a space), so
    `a.yaml` is never found inside `claims/a.yaml`; the longest name is tried first.
    """
    names = sorted((name for name, path in shown.items() if name != path), key=len, reverse=True)
    if not names:
        return lambda problem: problem
    place = re.compile(rf"(?<!\S)({'|'.join(map(re.escape, names))})(?=:\d)")
    return lambda problem: place.sub(lambda found: shown[found.group(1)], problem)


def lint_claims(
    claims: Sequence[Claim], states: Mapping[str, SourceState], *, min_score: float
) -> list[Finding]:
    """The findings of parsed claims against the latest stored snapshot of each source."""
    findings: list[Finding] = []
    for each in claims:
        for index, claim in enumerate(each.views()):  # every part's
            found = _lint_one(claim, states, min_score)
            if each.parts:  # named as the part it is about
                found = [dataclasses.replace(f, part=index + 1) for f in found]
            findings.extend(found)
    return findings


def _lint_one(claim: Claim, states: Mapping[str, SourceState], min_score: float) -> list[Finding]:
    """The findings of one claim of one source (or one part of a claim on several)."""
    if claim.source is None or not claim.judgeable:
        return []  # citation needed: reported by verify, nothing to lint
    if claim.field is not None:
        return _field_mismatch(claim, states.get(claim.source))
    findings: list[Finding] = []
    if claim.anchor is not None:
        findings.extend(_short_quote(claim, claim.anchor))
    state = states.get(claim.source)
    if isinstance(state, Observed):
        if claim.anchor is not None:
            findings.extend(_against_snapshot(claim, claim.anchor, state, min_score))
        findings.extend(_absent_found(claim, state))
    else:
        findings.append(_finding(claim, Rule.NO_SNAPSHOT, _NO_SNAPSHOT))
    return findings


_NO_SNAPSHOT = (
    "no snapshot of the source is stored: run `claimcheck snapshot` (or `verify`) once "
    "with a network"
)


def lint_exit_code(findings: Iterable[Finding]) -> ExitCode:
    """2 when a file cannot be used at all, 1 on any other error, 0 otherwise."""
    rules = {f.rule for f in findings}
    if rules & UNPARSEABLE:
        return ExitCode.BAD_INPUT
    return ExitCode.STALE if any(r.level is Level.ERROR for r in rules) else ExitCode.OK


def summarize(findings: Sequence[Finding], claims: int, files: int) -> str:
    """One human line: how many errors and warnings among how many claims and files."""
    errors = sum(1 for f in findings if f.level is Level.ERROR)
    warnings = len(findings) - errors
    scope = f"{counted(claims, 'claim')} in {counted(files, 'file')}"
    if not findings:
        return f"lint: clean ({scope})"
    return f"lint: {counted(errors, 'error')}, {counted(warnings, 'warning')} ({scope})"


def find_occurrences(anchor: Anchor, text: str) -> list[tuple[int, int]]:
    """Spans of every exact occurrence of the anchor's quote (its context ignored).

    Occurrences are searched one after another in what follows the previous one, so
    overlapping ones count once; a match ends on a word boundary or a symbol, so no
    word is cut where the search restarts.
    """
    bare = Anchor(quote=anchor.quote, quote_end=anchor.quote_end)
    spans: list[tuple[int, int]] = []
    at = 0
    while at < len(text):
        match = locate_anchor(bare, text[at:], min_score=_EXACT)
        if match is None or not match.exact or match.end == 0:
            break
        spans.append((at + match.start, at + match.end))
        at += match.end
    return spans


def propose_context(
    anchor: Anchor, text: str, span: tuple[int, int]
) -> tuple[str | None, str | None] | None:
    """The shortest prefix/suffix (whole words of the page) that pick this occurrence.

    Grows the same number of words on each side, as browsers build a text fragment,
    until the context fits this occurrence and no other, judged as the judge resolves
    an anchor (`verbatim_spans`): so the claim written with it is verified on exactly
    this span. The context may reach into the units around the quote's (a heading
    above, the next list item), as a prefix/suffix may; a unit break is written as
    the space a reader sees. None when no context of up to MAX_CONTEXT_WORDS words on
    each side does (the occurrences stand in identical text).
    """
    start, end = span
    before = [m.start() for m in re.finditer(r"\S+", text[:start])]
    after = [end + m.end() for m in re.finditer(r"\S+", text[end:])]
    for words in range(1, MAX_CONTEXT_WORDS + 1):
        left = before[-words] if len(before) >= words else (before[0] if before else start)
        right = after[words - 1] if len(after) >= words else (after[-1] if after else end)
        prefix = " ".join(text[left:start].split()) or None
        suffix = " ".join(text[end:right].split()) or None
        if (prefix or suffix) and _picks(anchor, text, span, prefix, suffix):
            return prefix, suffix
        if words >= len(before) and words >= len(after):
            break
    return None


def _picks(
    anchor: Anchor, text: str, span: tuple[int, int], prefix: str | None, suffix: str | None
) -> bool:
    """Whether the quote with this context fits this occurrence and no other."""
    pinned = Anchor(quote=anchor.quote, quote_end=anchor.quote_end, prefix=prefix, suffix=suffix)
    match = locate_anchor(pinned, text, min_score=_EXACT)
    if match is None or not match.context_ok:
        return False
    return verbatim_spans(pinned, text) == [span]


def _short_quote(claim: Claim, anchor: Anchor) -> list[Finding]:
    quoted = " ".join(p for p in (anchor.quote, anchor.quote_end) if p).strip()
    reasons = []
    if len(quoted.split()) < MIN_QUOTE_WORDS:
        reasons.append(
            f"under {MIN_QUOTE_WORDS} words it is never matched fuzzily, so a rewording is "
            "reported missing rather than drifted"
        )
    if len(quoted) < MIN_QUOTE_CHARS:
        reasons.append(
            f"under {MIN_QUOTE_CHARS} characters it may match text that does not support the claim"
        )
    if not reasons:
        return []
    message = f"the quote {shorten(quoted, 40)!r} is short: {'; '.join(reasons)}"
    return [_finding(claim, Rule.SHORT_QUOTE, message)]


def _against_snapshot(
    claim: Claim, anchor: Anchor, state: Observed, min_score: float
) -> list[Finding]:
    when = f"the latest snapshot ({state.snapshot.fetched_at.date()})"
    match = locate_anchor(anchor, state.text, min_score=min_score)
    if match is None:
        return [
            _finding(
                claim, Rule.QUOTE_NOT_FOUND, f"the quote is not in {when}, nor anything close to it"
            )
        ]
    if not match.exact:
        found = shorten(match.found, 120)
        return [
            _finding(
                claim,
                Rule.QUOTE_NOT_FOUND,
                f"the quote is not in {when}; the closest text ({match.score:.0f}%) is {found!r}",
            )
        ]
    if not match.context_ok:
        return [
            _finding(
                claim,
                Rule.CONTEXT_MISMATCH,
                f"the quote is in {when}, but not between its prefix and suffix",
            )
        ]
    if match.occurrences > 1 and anchor.prefix is None and anchor.suffix is None:
        message = f"the quote occurs {match.occurrences} times in {when}; give a prefix/suffix"
        proposal = propose_context(anchor, state.text, (match.start, match.end))
        if proposal is not None:
            shown = ", ".join(
                f"{key}: {shorten(value, 60)!r}"
                for key, value in zip(("prefix", "suffix"), proposal, strict=True)
                if value
            )
            message += f" to pick one (the first: {shown})"
        return [_finding(claim, Rule.AMBIGUOUS_QUOTE, message)]
    return []


def _absent_found(claim: Claim, state: Observed) -> list[Finding]:
    """An error when the latest snapshot says a text the claim says its source does not."""
    said = absent_said(claim, state)
    if said is None:
        return []
    shown = f"; it says: {shorten(said.found, 120)!r}" if said.found else ""
    return [_finding(claim, Rule.ABSENT_FOUND, said.reason + shown)]


def absent_said(claim: Claim, state: Observed) -> ClaimResult | None:
    """The judge's `contradicted` result when the page says one of the claim's `absent`
    texts, else None (also for a claim without any).

    Decided by the judge itself, its absence rule alone (the quote left out), so `lint`
    reports and `accept` refuses a claim exactly when `verify` calls it `contradicted`
    on that snapshot.
    """
    if not claim.absent:
        return None
    absence = claim.model_copy(update={"anchor": None})
    result = judge_observed(absence, state, Thresholds(), baseline=None)
    return result if result.verdict is Verdict.CONTRADICTED else None


def _field_mismatch(claim: Claim, state: SourceState | None) -> list[Finding]:
    """A claim on a field whose latest snapshot (its body read) does not hold its value:
    the field is not there, or holds another value (both named)."""
    if not isinstance(state, Observed):
        return [_finding(claim, Rule.NO_SNAPSHOT, _NO_SNAPSHOT)]
    snapshot = state.snapshot
    where = f"in the snapshot of {snapshot.fetched_at.date()}"
    result = judge_field(claim, state.body, snapshot.media, where)
    if result.verdict is Verdict.VERIFIED:
        return []
    return [_finding(claim, Rule.FIELD_MISMATCH, clean_text(shorten(result.reason, 300)))]


def _finding(claim: Claim, rule: Rule, message: str) -> Finding:
    return Finding(claim.file, claim.line, rule, message, claim.id)


@dataclass(frozen=True)
class Rebased:
    """The anchor `accept` writes: the current text, with a context that still fits."""

    anchor: Anchor


@dataclass(frozen=True)
class NotRebased:
    """Why `accept` cannot re-baseline; `usage` when only a person's edit can."""

    reason: str
    usage: bool = False


def rebase_anchor(
    anchor: Anchor,
    text: str,
    *,
    new_quote: str | None,
    min_score: float,
    aligned_only: bool = False,
) -> Rebased | NotRebased:
    """The anchor a reviewed claim gets: the text that replaced it, or `new_quote`.

    The text that replaced a quote is the whole sentence, list item or table row that
    holds its best alignment (with `aligned_only`, the aligned part alone, widened to whole
    tokens). Either way the new quote must stand exactly in the page on token edges,
    so a quote that cuts a number, version or name ("000,000 GPUs") is never written.
    A quote still there verbatim is kept as the author wrote it. Prefix/suffix are
    kept while they fit; when they no longer do, they go if the new quote is unique,
    else they are replaced by a context picking the occurrence nearest to where the
    old quote was. A claim that had no context gets none. A range (quote_end) is
    only re-baselined while it still holds: a changed range needs a person.
    """
    old = locate_anchor(anchor, text, min_score=min_score)
    quote_end = anchor.quote_end
    if new_quote is not None:
        if quote_end is not None:
            return NotRebased("--quote cannot replace a range quote (quote_end)", usage=True)
        quote = new_quote.strip()
        given = locate_anchor(Anchor(quote=quote), text, min_score=min_score)
        if given is None or not given.exact:
            closest = f"; the closest text ({given.score:.0f}%) is {given.found!r}" if given else ""
            return NotRebased(
                f"--quote is not in the latest snapshot as whole tokens (a number, version or "
                f"name is never cut){closest}"
            )
    elif old is not None and old.exact:
        quote = anchor.quote
    elif quote_end is not None:
        return NotRebased("the range quote (quote, quote_end) changed", usage=True)
    elif old is None:
        return NotRebased("nothing close to the quote is in the latest snapshot; give --quote")
    elif aligned_only and old.aligned is not None:
        quote = text[old.aligned[0] : old.aligned[1]]
    else:
        quote = old.found
    bare = Anchor(quote=quote, quote_end=quote_end)
    spans = find_occurrences(bare, text)
    if not spans:
        return NotRebased("the closest text cannot be quoted exactly; give --quote")
    if anchor.prefix is None and anchor.suffix is None:
        return Rebased(bare)
    kept = bare.model_copy(update={"prefix": anchor.prefix, "suffix": anchor.suffix})
    fits = locate_anchor(kept, text, min_score=_EXACT)
    if fits is not None and fits.exact and fits.context_ok:
        return Rebased(kept)
    if len(spans) == 1:
        return Rebased(bare)
    near = old.start if old is not None else 0
    held = [s for s in spans if _half_fits(text, s, anchor)] or spans
    span = min(held, key=lambda s: abs(s[0] - near))
    proposal = propose_context(bare, text, span)
    if proposal is None:
        return Rebased(bare)
    prefix, suffix = proposal
    return Rebased(bare.model_copy(update={"prefix": prefix, "suffix": suffix}))


def _half_fits(text: str, span: tuple[int, int], anchor: Anchor) -> bool:
    """Whether the old prefix still stands right before the span, or the old suffix after.

    The occurrence the old context half-recognizes is the one the author meant.
    """
    before = text[: span[0]].rstrip().casefold()
    after = text[span[1] :].lstrip().casefold()
    prefix = normalize_text(anchor.prefix or "").casefold()
    suffix = normalize_text(anchor.suffix or "").casefold()
    return bool(prefix and before.endswith(prefix)) or bool(suffix and after.startswith(suffix))
