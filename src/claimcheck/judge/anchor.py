"""Text normalization, locating an anchor in a source's text, and word diffs.

An anchor is looked for the way a browser resolves a text fragment: in the visible
text, case-insensitively, on word boundaries. When the exact words are gone, a fuzzy
search tells a reworded sentence (drifted) from a deleted one (missing).
"""

from __future__ import annotations

import functools
import re
import unicodedata
from collections.abc import Callable
from dataclasses import dataclass

from rapidfuzz import fuzz, process
from rapidfuzz.distance import Indel

from claimcheck.models import Anchor

# Invisible characters that only steer layout: a reader sees no difference.
_INVISIBLE = dict.fromkeys(map(ord, "\u200b\u200c\u200d\u2060\ufeff\u00ad"))

# Typographic quotes and dashes fold to ASCII so "smart" punctuation in a quote or a
# source never decides a match.
_FOLD = str.maketrans(
    {
        **dict.fromkeys("‘’‚‛′‹›", "'"),
        **dict.fromkeys("“”„‟″«»", '"'),
        **dict.fromkeys("‐‑‒–—―−", "-"),
    }
)

_WHITESPACE = re.compile(r"\s+")

# Scripts written without spaces between words (CJK, kana, Thai, Lao, Myanmar,
# Khmer): each character is its own word, so word-boundary checks do not apply.
_NO_SPACE_CHARS = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u2e80-\u9fff"
    "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003ffff"
)
_NO_SPACE = re.compile(f"[{_NO_SPACE_CHARS}]")
# A word is a no-space-script character or a run of other word characters; a token
# is a word or one symbol.
_WORD_PATTERN = f"[{_NO_SPACE_CHARS}]|[^\\W{_NO_SPACE_CHARS}]+"
_WORD = re.compile(_WORD_PATTERN)
_TOKEN = re.compile(f"{_WORD_PATTERN}|[^\\w\\s]")

# How many tokens the fuzzy span's ends may move while its score is refined.
_REFINE_TOKENS = 8

# A quote of fewer words is never matched fuzzily: "HiCache" is there or it is missing,
# and one or two changed letters ("DSpark" ~ "/Spark") would pass any score threshold.
_MIN_FUZZY_WORDS = 3


@dataclass(frozen=True)
class AnchorMatch:
    """Where an anchor stands in a normalized text, and how well it matched.

    `start`/`end` index the normalized text and `found` is that span in the page's
    own case. `occurrences` counts exact occurrences of the quote (0 for a fuzzy
    match), so a caller can tell an ambiguous anchor; `context_ok` is False when the
    anchor's prefix/suffix do not stand around the span.
    """

    exact: bool
    start: int
    end: int
    found: str
    score: float
    occurrences: int
    context_ok: bool


def normalize_text(text: str) -> str:
    """Fold the differences a reader cannot see or does not care about.

    Zero-width characters go first, so NFKC can compose what they separated; quotes
    and dashes are folded before NFKC (″ is one double quote, not two primes) and
    after it (NFKC turns some compatibility characters into primes or dashes).
    """
    text = text.translate(_INVISIBLE).translate(_FOLD)
    text = unicodedata.normalize("NFKC", text).translate(_FOLD)
    return _WHITESPACE.sub(" ", text).strip()


def locate_anchor(anchor: Anchor, text: str, *, min_score: float) -> AnchorMatch | None:
    """Find `anchor` in the normalized `text`: exactly if possible, else fuzzily.

    Exact matching follows text fragments: case-insensitive, on word boundaries, the
    prefix/suffix right before/after (only whitespace between). When several exact
    occurrences exist the first whose context fits wins; when none fits, the first
    one is returned with `context_ok=False`. Only when the quote does not occur at
    all is a fuzzy match tried (for quotes of three words or more); it is returned
    if it scores at least `min_score`.
    """
    quote = normalize_text(anchor.quote)
    if not quote or not text:
        return None
    # An empty (or all-whitespace) optional field is no field at all.
    quote_end = normalize_text(anchor.quote_end or "") or None
    prefix = normalize_text(anchor.prefix or "") or None
    suffix = normalize_text(anchor.suffix or "") or None
    folded = _fold(text)

    spans = _exact_spans(folded, quote.casefold(), quote_end.casefold() if quote_end else None)
    if spans:
        fits = [s for s in spans if _context_fits(folded, s, prefix, suffix)]
        start, end = folded.original(fits[0] if fits else spans[0])
        return AnchorMatch(True, start, end, text[start:end], 100.0, len(spans), bool(fits))

    if min_score > 100:
        return None  # exact matches only: no fuzzy pass to pay for
    fuzzy = _fuzzy_span(
        folded, quote.casefold(), quote_end.casefold() if quote_end else None, min_score
    )
    if fuzzy is None:
        return None
    span, score = fuzzy
    context_ok = _context_fits(folded, span, prefix, suffix)
    start, end = folded.original(span)
    return AnchorMatch(False, start, end, text[start:end], score, 0, context_ok)


@functools.lru_cache(maxsize=32)
def _fold(text: str) -> _Folded:
    """The case-folded view of a page, built once per page rather than once per claim."""
    return _Folded(text)


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


class _Folded:
    """A text case-folded for matching, with the way back to the original's indices.

    `str.casefold` may turn one character into several (ß -> ss), so folded indices
    are mapped back through a table; the common case (no expansion) needs none.
    """

    def __init__(self, text: str) -> None:
        self.text = text.casefold()
        self._to_original: list[int] | None = None
        if len(self.text) != len(text):
            self._to_original = [i for i, c in enumerate(text) for _ in c.casefold()]
            self._to_original.append(len(text))

    def original(self, span: tuple[int, int]) -> tuple[int, int]:
        """The original text's span covering a folded span."""
        if self._to_original is None:
            return span
        start, end = span
        return self._to_original[start], self._to_original[end - 1] + 1


def _is_word_char(char: str) -> bool:
    return (char.isalnum() or char == "_") and _NO_SPACE.match(char) is None


def _on_word_boundaries(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] neither begins nor ends inside a word.

    A side whose own edge character is not a word character needs no check: a quote
    "(see" may follow anything, as with text fragments.
    """
    if _is_word_char(text[start]) and start > 0 and _is_word_char(text[start - 1]):
        return False
    return not (_is_word_char(text[end - 1]) and end < len(text) and _is_word_char(text[end]))


def _first(text: str, needle: str, start: int) -> int | None:
    """The first start of `needle` at or after `start` on word boundaries, if any."""
    at = text.find(needle, start)
    while at != -1 and not _on_word_boundaries(text, at, at + len(needle)):
        at = text.find(needle, at + 1)
    return None if at == -1 else at


def _find_all(text: str, needle: str) -> list[int]:
    """Every start of `needle` in `text` on word boundaries."""
    found: list[int] = []
    at = _first(text, needle, 0)
    while at is not None:
        found.append(at)
        at = _first(text, needle, at + 1)
    return found


def _exact_spans(folded: _Folded, quote: str, quote_end: str | None) -> list[tuple[int, int]]:
    """Folded spans of every exact occurrence of the (range) quote."""
    spans: list[tuple[int, int]] = []
    for start in _find_all(folded.text, quote):
        end = start + len(quote)
        if quote_end is not None:
            at = _first(folded.text, quote_end, end)
            if at is None:
                continue
            end = at + len(quote_end)
        spans.append((start, end))
    return spans


def _context_fits(
    folded: _Folded, span: tuple[int, int], prefix: str | None, suffix: str | None
) -> bool:
    """Whether the prefix ends right before the span and the suffix starts right after."""
    text = folded.text
    start, end = span
    if prefix is not None:
        want = prefix.casefold()
        while start > 0 and text[start - 1].isspace():
            start -= 1
        at = start - len(want)
        if at < 0 or not text.startswith(want, at) or not _on_word_boundaries(text, at, start):
            return False
    if suffix is not None:
        want = suffix.casefold()
        while end < len(text) and text[end].isspace():
            end += 1
        if not text.startswith(want, end) or not _on_word_boundaries(text, end, end + len(want)):
            return False
    return True


def _fuzzy_span(
    folded: _Folded, quote: str, quote_end: str | None, min_score: float
) -> tuple[tuple[int, int], float] | None:
    """The best approximate folded span of the quote and its score, if good enough.

    A range anchor is located as its start text, then its end text after it; the
    span runs from one to the other and scores as the worse of the two, since the
    words between were never quoted. Each located text needs `_MIN_FUZZY_WORDS`.
    """
    if any(len(_WORD.findall(part)) < _MIN_FUZZY_WORDS for part in (quote, quote_end) if part):
        return None
    first = _fuzzy_locate(folded.text, quote, 0, min_score)
    if first is None or quote_end is None:
        return first
    (start, end), score = first
    last = _fuzzy_locate(folded.text, quote_end, end, min_score)
    if last is None:
        return None
    (_, range_end), end_score = last
    return (start, range_end), min(score, end_score)


def _fuzzy_locate(
    text: str, quote: str, offset: int, min_score: float
) -> tuple[tuple[int, int], float] | None:
    """Align the quote in text[offset:], snap to whole tokens and refine the span.

    Both strings are already case-folded. rapidfuzz's partial ratio finds the best
    window of the quote's length (in C, fast on long texts). The window's ends then
    move a few whole tokens each way, to the span with the best `fuzz.ratio` to the
    quote, so a sentence that grew or shrank is reported whole. A span starts and
    ends on a word resembling one of the quote's (or on the quote's own first / last
    symbol): otherwise the ratio would pull in a neighbouring heading, word or comma
    for the one letter or space it shares.
    """
    # A loose cutoff: refining the span may raise the score of a rough alignment.
    cutoff = max(0.0, min_score - 15.0)
    aligned = fuzz.partial_ratio_alignment(quote, text[offset:], score_cutoff=cutoff)
    if aligned is None:
        return None
    window_start, window_end = aligned.dest_start + offset, aligned.dest_end + offset
    margin = len(quote) + 200
    lo, hi = max(offset, window_start - margin), min(len(text), window_end + margin)
    tokens = [m.span() for m in _TOKEN.finditer(text, lo, hi)]
    if not tokens:
        return None
    first = next((i for i, (_, e) in enumerate(tokens) if e > window_start), len(tokens) - 1)
    last = next((i for i in reversed(range(len(tokens))) if tokens[i][0] < window_end), first)

    own = _TOKEN.findall(quote)
    resembles = _word_resemblance(quote)
    near = range(max(0, first - _REFINE_TOKENS), min(len(tokens), last + _REFINE_TOKENS + 1))
    texts = {i: text[tokens[i][0] : tokens[i][1]] for i in near}
    starts = [i for i in near if abs(i - first) <= _REFINE_TOKENS]
    ends = [j for j in near if abs(j - last) <= _REFINE_TOKENS]
    best: tuple[tuple[int, int], float] | None = None
    for i in (i for i in starts if texts[i] == own[0] or resembles(texts[i])):
        for j in (j for j in ends if j >= i and (texts[j] == own[-1] or resembles(texts[j]))):
            span = (tokens[i][0], tokens[j][1])
            score = fuzz.ratio(quote, text[span[0] : span[1]])
            # On a tie the wider span wins: an edge word that costs nothing stays in.
            if best is None or (score, span[1] - span[0]) > (best[1], best[0][1] - best[0][0]):
                best = (span, score)
    return best if best is not None and best[1] >= min_score else None


def _word_resemblance(quote: str) -> Callable[[str], bool]:
    """A test of whether a token is a word resembling one of the quote's words.

    It resembles when it shares two thirds of its letters with one (fuzz.ratio >= 66):
    a typo or a changed inflection ("GPU" / "GPUs") still counts, a stray "for"
    next to "support" does not.
    """
    words = sorted(set(_WORD.findall(quote)))

    @functools.cache
    def resembles(token: str) -> bool:
        if not _WORD.fullmatch(token):
            return False
        found = process.extractOne(token, words, scorer=fuzz.ratio, score_cutoff=66)
        return found is not None

    return resembles
