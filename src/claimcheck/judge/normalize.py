"""Fold the differences between two texts that a reader cannot see or does not care about."""

from __future__ import annotations

import re
import unicodedata

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


def normalize_text(text: str) -> str:
    """Fold the differences a reader cannot see or does not care about.

    Zero-width characters go first, so NFKC can compose what they separated; quotes
    and dashes are folded before NFKC (″ is one double quote, not two primes) and
    after it (NFKC turns some compatibility characters into primes or dashes). ASCII
    text has none of these and is its own NFKC form: only its whitespace is folded.
    """
    if text.isascii():
        return _WHITESPACE.sub(" ", text).strip()
    text = text.translate(_INVISIBLE).translate(_FOLD)
    text = unicodedata.normalize("NFKC", text).translate(_FOLD)
    return _WHITESPACE.sub(" ", text).strip()
