"""Fold the differences between two texts that a reader cannot see or does not care about."""

from __future__ import annotations

import re
import unicodedata

_INVISIBLE_CHARS = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
_SINGLE_QUOTES = "‘’‚‛′‹›"
_DOUBLE_QUOTES = "“”„‟″«»"
_DASHES = "‐‑‒–—―−"

# Invisible characters that only steer layout: a reader sees no difference.
_INVISIBLE = re.compile(f"[{_INVISIBLE_CHARS}]")

# Typographic quotes and dashes fold to ASCII so "smart" punctuation in a quote or a
# source never decides a match.
_FOLDED = {
    **dict.fromkeys(_SINGLE_QUOTES, "'"),
    **dict.fromkeys(_DOUBLE_QUOTES, '"'),
    **dict.fromkeys(_DASHES, "-"),
}
_TO_FOLD = re.compile(f"[{''.join(_FOLDED)}]")


def _fold(text: str) -> str:
    """Each quote and dash of `_FOLDED` as its ASCII form (`str.translate` with a table
    would look every character of the text up; the expression finds the few to fold)."""
    return _TO_FOLD.sub(lambda found: _FOLDED[found[0]], text)


def normalize_text(text: str) -> str:
    """Fold the differences a reader cannot see or does not care about.

    Zero-width characters go first, so NFKC can compose what they separated; quotes
    and dashes are folded before NFKC (″ is one double quote, not two primes) and
    after it (NFKC turns some compatibility characters into primes or dashes). ASCII
    text has none of these and is its own NFKC form: only its whitespace is folded.
    Runs of whitespace become one space, none at either end (`str.split` and the
    regular expressions' `\\s` know the same whitespace).
    """
    if text.isascii():
        return " ".join(text.split())
    text = _fold(_INVISIBLE.sub("", text))
    return " ".join(_fold(unicodedata.normalize("NFKC", text)).split())
