"""Locating an anchor in a page's text, exactly or approximately, and word diffs.

The text is a page's units, one per line (see `units.py`); a plain string is one unit.
An anchor is looked for the way a browser resolves a text fragment — in the visible
text, case-insensitively — with two rules of our own that a desk's claims need:

- **tokens are atoms** (`tokens.py`): a match starts and ends only at a token's edge,
  so "5 GPUs" is not in "2.5 GPUs" nor "MIT" in "MIT-0";
- **units are boundaries**: a quote lies inside one paragraph, list item, table row or
  heading; only a range quote (`quote` … `quote_end`) may span units.

When the exact words are gone, the approximate search tells a reworded unit (drifted,
with the sentence, item or row that now stands there) from a deleted one (missing).
Candidates are ranked the way Hypothesis anchors a TextQuoteSelector: by how well the
quote matches, then how well the text before and after matches the anchor's prefix
and suffix, then by nearness to where the quote stood before.
"""

from __future__ import annotations

import bisect
import functools
from dataclasses import dataclass

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Indel

from claimcheck.judge.folded import Folded, fold_page, terms
from claimcheck.judge.normalize import normalize_text
from claimcheck.judge.tokens import (
    TOKEN,
    WORD,
    is_pictograph,
    on_token_edges,
    sentence_spans,
    widen_to_tokens,
)
from claimcheck.models import Anchor

__all__ = [
    "AnchorMatch",
    "diff_words",
    "fold",
    "locate_anchor",
    "normalize_text",
    "quote_holds",
    "read_alike",
]

# A quote of fewer words is never matched approximately: "HiCache" is there or it is
# missing, and one or two changed letters ("DSpark" ~ "/Spark") would pass any score.
_MIN_FUZZY_WORDS = 3

# Most of a quote's words (distinct words and meaningful symbols) surviving in one
# unit make it a rewording of that unit, if the quote still aligns with it loosely
# (a partial ratio at most this far below the drift score).
_SURVIVAL = 0.6
_LOOSE_ALIGNMENT = 20.0

# Weights of the ranking (Hypothesis's dom-anchor-text-quote uses the same shape).
_QUOTE_WEIGHT, _CONTEXT_WEIGHT, _POSITION_WEIGHT = 50.0, 20.0, 2.0

_SENTENCE_PUNCTUATION = frozenset(".,;:!?")

# How many candidate units are refined and ranked by their context.
_RANKED = 8

# How many words the aligned part's ends may move while it is refined.
_REFINE_WORDS = 8

# No approximate match scores 100: that is the exact match's alone.
_MAX_APPROXIMATE = 99.0

# A sentence far longer than any a README writes (a page that never ends one) is not
# shown whole: its aligned part is.
_MAX_FOUND_CHARS = 600


@dataclass(frozen=True)
class AnchorMatch:
    """Where an anchor stands in a page's text, and how well it matched.

    `start`/`end` index the text and `found` is that span in the page's own case: the
    quote itself when exact, else the smallest whole unit (sentence, list item, table
    row) holding the best alignment. `aligned` is the aligned part alone, widened to
    whole tokens. `occurrences` counts exact occurrences (0 for an approximate match);
    `context_ok` is False when the prefix/suffix do not stand around the span.
    """

    exact: bool
    start: int
    end: int
    found: str
    score: float
    occurrences: int
    context_ok: bool
    aligned: tuple[int, int] | None = None


def locate_anchor(
    anchor: Anchor,
    text: str,
    *,
    min_score: float,
    near: float | None = None,
    code: frozenset[int] = frozenset(),
    from_code: bool | None = None,
) -> AnchorMatch | None:
    """Find `anchor` in `text` (units one per line): exactly if possible, else fuzzily.

    Among several exact occurrences, the first whose prefix/suffix fit wins (else the
    first, with `context_ok=False`). Only when the quote does not occur at all is an
    approximate match tried (quotes of three words or more), accepted when it scores
    at least `min_score` or keeps most of the quote's words in one unit; `near` (0..1)
    is where the quote stood before, as a fraction of the page, to break ties.

    `code` names the units (lines of `text`) that are code blocks, and `from_code`
    whether the quote stood in one on the claim's check date (None: not known). A long
    code block holds many words, so most of a sentence's may be scattered over it: it
    may replace a quote that was code, never one that was prose, and when the quote's
    origin is not known it is looked at only if no other unit will do.
    """
    verbatim = _verbatim(text, anchor.quote, anchor.quote_end, anchor.prefix, anchor.suffix)
    if verbatim is None:
        return None
    places, count, fits = verbatim
    if places:
        start, end = places[0]
        return AnchorMatch(True, start, end, text[start:end], 100.0, count, fits)
    if min_score > 100:
        return None  # exact matches only: no approximate pass to pay for
    quote, quote_end, prefix, suffix = _folded_anchor(anchor)
    folded = fold_page(text)
    for skip in _left_out(code, from_code):
        found = _approximate(folded, text, quote, quote_end, prefix, suffix, min_score, near, skip)
        if found is not None:
            return found
    return None


def _left_out(code: frozenset[int], from_code: bool | None) -> tuple[frozenset[int], ...]:
    """The units the approximate search leaves out, one set a try, in order: none for a
    quote that was code; the code blocks for one that was prose; for one of unknown
    origin, the code blocks first, then none."""
    if from_code or not code:
        return (frozenset(),)
    if from_code is False:
        return (code,)
    return (code, frozenset())


def verbatim_spans(anchor: Anchor, text: str) -> list[tuple[int, int]]:
    """Where in `text` the quote stands verbatim, in order: the occurrences its prefix
    and suffix fit, or every occurrence when they fit none.

    `locate_anchor` takes the first of these; each is the quote as much as the first
    (a citation takes the first it can point at a line of).
    """
    verbatim = _verbatim(text, anchor.quote, anchor.quote_end, anchor.prefix, anchor.suffix)
    return [] if verbatim is None else list(verbatim[0])


Verbatim = tuple[tuple[tuple[int, int], ...], int, bool]
"""Where a quote stands verbatim in a text (`_verbatim`): the original text's spans of
the occurrences its context fits, else of every occurrence; how many occurrences there
are; and whether the context fits any."""


@functools.lru_cache(maxsize=16)
def _verbatim(
    text: str, quote: str, quote_end: str | None, prefix: str | None, suffix: str | None
) -> Verbatim | None:
    """The exact search of `locate_anchor` and `verbatim_spans`, made once for both: a
    result whose quote holds is placed on its lines right after it is judged, on the
    same page, and a quote of the baseline is looked for again when its context is
    compared. None: nothing to look for (an empty quote or text).

    Keyed by the page's text and the anchor's own texts, all it depends on; the few
    last searches are kept, since a page's claims are judged and placed one by one."""
    folded_quote = fold(quote)
    if not folded_quote or not text:
        return None
    folded = fold_page(text)
    spans, fits = _occurrences(
        folded,
        folded_quote,
        _folded_part(quote_end),
        _folded_part(prefix),
        _folded_part(suffix),
    )
    return tuple(folded.original(span) for span in fits or spans), len(spans), bool(fits)


def fold(text: str) -> str:
    """A text as quotes are matched: normalised (`normalize_text`) and case-folded, the
    way a page's text is (`Folded`), so "MacOS" is "macOS" and a curly quote a
    straight one."""
    return normalize_text(text).casefold()


def read_alike(old: str, new: str) -> bool:
    """Whether two short texts (a heading then and now) say the same words.

    They are compared as a quote is matched: folded (`fold`), so a change of case is
    none. An emoji is a token of its own, so a quote is found with or without one
    beside it ("Hot Topics" in "🔥 Hot Topics"): emoji at either end are decoration,
    gained or lost without changing the words. Anything else changed, an emoji among
    the words included, is a change: what is left of one text is a quote of the other.
    """
    return _said(old) == _said(new)


def _said(text: str) -> str:
    """A text as it is matched (`fold`), without the emoji at its ends."""
    folded = fold(text)
    tokens = [m.span() for m in TOKEN.finditer(folded) if not is_pictograph(m.group())]
    return folded[tokens[0][0] : tokens[-1][1]] if tokens else ""


def _folded_anchor(anchor: Anchor) -> tuple[str, str | None, str | None, str | None]:
    """The anchor's quote, quote end, prefix and suffix as the page's text is matched
    (`fold`)."""
    quote_end = _folded_part(anchor.quote_end)
    prefix, suffix = _folded_part(anchor.prefix), _folded_part(anchor.suffix)
    return fold(anchor.quote), quote_end, prefix, suffix


def _folded_part(text: str | None) -> str | None:
    """An anchor's optional text as it is matched (`fold`); None when it says nothing."""
    return (fold(text) or None) if text else None


def _occurrences(
    folded: Folded, quote: str, quote_end: str | None, prefix: str | None, suffix: str | None
) -> tuple[list[tuple[int, int]], list[tuple[int, int]]]:
    """The (folded) quote's exact occurrences as folded spans, and those its (folded)
    context fits."""
    spans = _exact_spans(folded, quote, quote_end)
    return spans, [s for s in spans if _context_fits(folded.text, s, prefix, suffix)]


def quote_holds(anchor: Anchor, text: str) -> bool:
    """The quote stands verbatim in the text, between its prefix and suffix."""
    found = locate_anchor(anchor, text, min_score=101.0)
    return found is not None and found.context_ok


def diff_words(old: str, new: str) -> str:
    """Show what changed between two texts, word by word, like `git diff --word-diff`.

    Unchanged words are plain, removed ones `[-like this-]`, added ones `{+like this+}`;
    a run of changes shows all its removals, then all its additions.
    """
    a, b = old.split(), new.split()
    parts: list[str] = []
    removed: list[str] = []
    added: list[str] = []

    def flush() -> None:
        change = ""
        if removed:
            change += "[-" + " ".join(removed) + "-]"
        if added:
            change += "{+" + " ".join(added) + "+}"
        if change:
            parts.append(change)
        removed.clear()
        added.clear()

    for op in Indel.opcodes(a, b):
        if op.tag == "equal":
            flush()
            parts.extend(a[op.src_start : op.src_end])
        else:
            removed.extend(a[op.src_start : op.src_end])
            added.extend(b[op.dest_start : op.dest_end])
    flush()
    return " ".join(parts)


# -- exact -----------------------------------------------------------------------------


def _first(text: str, needle: str, start: int) -> int | None:
    """The first start of `needle` at or after `start`, on token edges, within a unit."""
    at = text.find(needle, start)
    while at != -1 and not on_token_edges(text, at, at + len(needle)):
        at = text.find(needle, at + 1)
    return None if at == -1 else at


def _exact_spans(folded: Folded, quote: str, quote_end: str | None) -> list[tuple[int, int]]:
    """Folded spans of every exact occurrence of the (range) quote.

    A quote never contains a newline (normalized text has none), so a found quote lies
    in one unit; a range runs from its start text to the first end text after it, in
    the same unit or a later one.
    """
    spans: list[tuple[int, int]] = []
    at = _first(folded.text, quote, 0)
    while at is not None:
        end = at + len(quote)
        if quote_end is not None:
            last = _first(folded.text, quote_end, end)
            if last is None:
                break
            end = last + len(quote_end)
        spans.append((at, end))
        at = _first(folded.text, quote, at + 1)
    return spans


def _context_fits(text: str, span: tuple[int, int], prefix: str | None, suffix: str | None) -> bool:
    """Whether the (folded) prefix ends right before the span and the suffix starts
    right after (only whitespace, or a unit boundary, between)."""
    start, end = span
    if prefix is not None:
        want = prefix
        while start > 0 and text[start - 1].isspace():
            start -= 1
        at = start - len(want)
        if at < 0 or not _spells(text, at, want) or not on_token_edges(text, at, start):
            return False
    if suffix is not None:
        want = suffix
        while end < len(text) and text[end].isspace():
            end += 1
        if not _spells(text, end, want) or not on_token_edges(text, end, end + len(want)):
            return False
    return True


def _spells(text: str, at: int, want: str) -> bool:
    """Whether `want` stands at `at`, a unit break counting as the space it looks like."""
    return text[at : at + len(want)].replace("\n", " ") == want


# -- approximate -----------------------------------------------------------------------


@dataclass(frozen=True)
class _Candidate:
    """One unit's best alignment with the quote (folded offsets)."""

    unit: int
    aligned: tuple[int, int]
    score: float
    survival: float


def _approximate(
    folded: Folded,
    text: str,
    quote: str,
    quote_end: str | None,
    prefix: str | None,
    suffix: str | None,
    min_score: float,
    near: float | None,
    skip: frozenset[int],
) -> AnchorMatch | None:
    """The reworded form of the quote: the best candidate unit (not one of `skip`),
    shown whole."""
    parts = [quote, *([quote_end] if quote_end else [])]
    if any(len(terms(part)) < _MIN_FUZZY_WORDS for part in parts):
        return None
    last_suffix = suffix if not quote_end else None
    first = _best(folded, parts[0], 0, min_score, prefix, last_suffix, near, skip)
    if first is None:
        return None
    start, end = _shown(text, folded, first, len(parts[0]))
    aligned, score = first.aligned, first.score
    if quote_end is not None:
        last = _best(folded, parts[1], first.aligned[1], min_score, None, suffix, near, skip)
        if last is None:
            return None
        end = max(end, _shown(text, folded, last, len(parts[1]))[1])
        aligned, score = (aligned[0], last.aligned[1]), min(score, last.score)
    context_ok = _context_fits(folded.text, aligned, prefix, suffix)
    return AnchorMatch(
        False, start, end, text[start:end], score, 0, context_ok, folded.original(aligned)
    )


def _best(
    folded: Folded,
    quote: str,
    offset: int,
    min_score: float,
    prefix: str | None,
    suffix: str | None,
    near: float | None,
    skip: frozenset[int],
) -> _Candidate | None:
    """The best-ranked candidate unit at or after `offset` (not one of `skip`), if any
    is good enough."""
    candidates = _candidates(folded, quote, offset, min_score, skip)
    if not candidates:
        return None
    # Prefix and suffix are compared with what stands around the refined alignment, so
    # the few best candidates are refined before they are ranked.
    candidates.sort(key=lambda c: c.score, reverse=True)
    ranked = _RANKED if prefix or suffix or near is not None else 1
    candidates = [_refined(folded, c, quote) for c in candidates[:ranked]]
    units = max(1, len(folded.units) - 1)

    def rank(candidate: _Candidate) -> tuple[float, float]:
        weights = _QUOTE_WEIGHT
        total = _QUOTE_WEIGHT * candidate.score / 100
        start, end = candidate.aligned
        if prefix is not None:
            before = folded.text[max(0, start - len(prefix) - 1) : start].strip()
            total += _CONTEXT_WEIGHT * fuzz.ratio(prefix, before[-len(prefix) :]) / 100
            weights += _CONTEXT_WEIGHT
        if suffix is not None:
            after = folded.text[end : end + len(suffix) + 1].strip()
            total += _CONTEXT_WEIGHT * fuzz.ratio(suffix, after[: len(suffix)]) / 100
            weights += _CONTEXT_WEIGHT
        distance = abs(candidate.unit / units - near) if near is not None else 0.0
        if near is not None:
            total += _POSITION_WEIGHT * (1.0 - distance)
            weights += _POSITION_WEIGHT
        return total / weights, -distance

    return max(candidates, key=rank)


def _candidates(
    folded: Folded, quote: str, offset: int, min_score: float, skip: frozenset[int]
) -> list[_Candidate]:
    """Units (not of `skip`) that hold a close alignment of the quote, or most of its words.

    Two cheap searches name the candidates: one alignment of the quote over the whole
    page (rapidfuzz's partial ratio, in C; the units left out blanked), and an index of
    each unit's words (built once per page) for the units that keep most of the quote's
    words. Only those few units are aligned and scored one by one.
    """
    first = bisect.bisect_right(folded.starts, offset) - 1
    loose = max(0.0, min_score - _LOOSE_ALIGNMENT)
    wanted: set[int] = set()
    text = folded.without(skip)
    best = fuzz.partial_ratio_alignment(quote, text[offset:], score_cutoff=loose)
    if best is not None:
        start, end = offset + best.dest_start, offset + max(best.dest_start, best.dest_end - 1)
        wanted.update(range(folded.unit_at(start), folded.unit_at(end) + 1))
    words = frozenset(terms(quote))
    survival = folded.survival(words, first)
    wanted.update(unit for unit, kept in survival.items() if kept >= _SURVIVAL)
    found: list[_Candidate] = []
    for unit in sorted(wanted - skip):
        candidate = _candidate(folded, quote, unit, offset, min_score, survival.get(unit, 0.0))
        if candidate is not None:
            found.append(candidate)
    return found


def _candidate(
    folded: Folded, quote: str, unit: int, offset: int, min_score: float, kept: float
) -> _Candidate | None:
    """One unit's alignment with the quote, scored on whole tokens; None if too poor."""
    line, unit_start = folded.units[unit], folded.starts[unit]
    aligned = fuzz.partial_ratio_alignment(quote, line)
    # Words that survive only scattered over a long unit (a code block full of them)
    # are no rewording: the quote must still align loosely.
    if aligned is None or aligned.score < min_score - _LOOSE_ALIGNMENT:
        return None
    start = max(aligned.dest_start, offset - unit_start)
    end = max(start, aligned.dest_end)
    local = _trimmed(line, *widen_to_tokens(line, start, end))
    # The score is that of the whole tokens aligned, never of a cut one: "5 GPUs"
    # inside "2.5 GPUs" is a close match, not a perfect one.
    score = fuzz.ratio(quote, line[local[0] : local[1]])
    if score < min_score and kept < _SURVIVAL:
        return None
    # A rewording that keeps most words scores by them; nothing approximate is 100.
    score = min(_MAX_APPROXIMATE, max(score, 100 * kept))
    return _Candidate(unit, (unit_start + local[0], unit_start + local[1]), score, kept)


def _refined(folded: Folded, candidate: _Candidate, quote: str) -> _Candidate:
    """Move the aligned part's ends a few whole words each way, to the span that reads
    most like the quote: an alignment as long as the quote cuts a sentence that grew
    ("It runs on CUDA, Metal and Vulkan GPUs for local use" for "… CUDA and Metal …")."""
    unit_start, unit_end = folded.unit_span(candidate.aligned[0])
    line = folded.text[unit_start:unit_end]
    words = [m.span() for m in WORD.finditer(line)]
    if not words:
        return candidate
    start, end = (a - unit_start for a in candidate.aligned)
    first = next((i for i, (_, e) in enumerate(words) if e > start), len(words) - 1)
    last = next((i for i in reversed(range(len(words))) if words[i][0] < end), first)
    best = (candidate.aligned, -1.0)
    low, high = max(0, first - _REFINE_WORDS), min(len(words), last + _REFINE_WORDS + 1)
    own = sorted(set(WORD.findall(quote)))

    @functools.cache
    def resembles(index: int) -> bool:
        """An edge word must resemble one of the quote's (a typo, "GPU" / "GPUs"): else
        the ratio pulls in a neighbour ("support" ~ "for") for the letters it shares."""
        word = line[words[index][0] : words[index][1]]
        return process.extractOne(word, own, scorer=fuzz.ratio, score_cutoff=66) is not None

    for i in (i for i in range(low, min(high, first + _REFINE_WORDS + 1)) if resembles(i)):
        for j in range(max(i, last - _REFINE_WORDS), high):
            if not resembles(j):
                continue
            span = (words[i][0], _symbol_end(line, words[j][1], len(line)))
            score = fuzz.ratio(quote, line[span[0] : span[1]])
            wider = span[1] - span[0] > best[0][1] - best[0][0]
            if score > best[1] or (score == best[1] and wider):
                best = ((unit_start + span[0], unit_start + span[1]), score)
    return _Candidate(candidate.unit, best[0], candidate.score, candidate.survival)


def _trimmed(line: str, start: int, end: int) -> tuple[int, int]:
    """The span without the spaces and stray punctuation an alignment picks up at its
    edges (". vLLM is" begins at "vLLM"); unchanged when nothing would be left."""
    words = [m.span() for m in WORD.finditer(line, start, end)]
    if not words:
        return start, end
    return words[0][0], max(words[-1][1], _symbol_end(line, words[-1][1], end))


def _symbol_end(line: str, after_word: int, end: int) -> int:
    """Keep the symbols that close a word (`C++`, `(beta)`, `90%`), up to `end`; a
    sentence's punctuation (`use.`, `GPUs,`) is not part of the word before it."""
    at = after_word
    while at < end and not line[at].isspace() and not line[at].isalnum():
        if line[at] in _SENTENCE_PUNCTUATION:
            break
        at += 1
    return at


def _shown(text: str, folded: Folded, candidate: _Candidate, quote_length: int) -> tuple[int, int]:
    """The smallest whole sentence(s) of the candidate's unit that hold its alignment,
    as a span of the original text; the aligned part alone when those sentences would
    be far longer than the quote (a page that never ends a sentence)."""
    unit = folded.original(folded.unit_span(candidate.aligned[0]))
    start, end = folded.original(candidate.aligned)
    line = text[unit[0] : unit[1]]
    start, end = start - unit[0], end - unit[0]
    sentences = sentence_spans(line)
    first = next((s for s in sentences if s[1] > start), sentences[-1])
    last = next((s for s in reversed(sentences) if s[0] < end), first)
    shown = (first[0], max(first[1], last[1]))
    if shown[1] - shown[0] > max(_MAX_FOUND_CHARS, 4 * quote_length):
        shown = (start, end)
    return unit[0] + shown[0], unit[0] + shown[1]


def inside_a_longer_token(quote: str, text: str) -> bool:
    """Whether the quote's characters stand in the page, but never on token edges
    ("5 GPUs" in "2.5 GPUs"): worth saying, since the page seems to say it."""
    folded = fold(quote)
    return bool(folded) and folded in text.casefold()
