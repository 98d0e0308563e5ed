"""Fold the differences between two texts that a reader cannot see or does not care about."""

from __future__ import annotations

import re
import unicodedata

_INVISIBLE_CHARS = "\u200b\u200c\u200d\u2060\ufeff\u00ad"
_SINGLE_QUOTES = "‘’‚‛′‹›"
_DOUBLE_QUOTES = "“”„‟″«»"
_DASHES = "‐‑‒–—―−"

# Invisible characters that only steer layout: a reader sees no difference.
_INVISIBLE = dict.fromkeys(map(ord, _INVISIBLE_CHARS))

# Typographic quotes and dashes fold to ASCII so "smart" punctuation in a quote or a
# source never decides a match.
_FOLD = str.maketrans(
    {
        **dict.fromkeys(_SINGLE_QUOTES, "'"),
        **dict.fromkeys(_DOUBLE_QUOTES, '"'),
        **dict.fromkeys(_DASHES, "-"),
    }
)

# Whether a text holds a character of either table: `str.translate` looks every
# character up in its table, where a search of a character class runs in C; most texts
# (any with an emoji in them) hold none of these, and are left as they are.
_HAS_INVISIBLE = re.compile(f"[{_INVISIBLE_CHARS}]")
_HAS_FOLDED = re.compile(f"[{_SINGLE_QUOTES}{_DOUBLE_QUOTES}{_DASHES}]")


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
    if _HAS_INVISIBLE.search(text) is not None:
        text = text.translate(_INVISIBLE)
    if _HAS_FOLDED.search(text) is not None:
        text = text.translate(_FOLD)
    text = unicodedata.normalize("NFKC", text)
    if _HAS_FOLDED.search(text) is not None:
        text = text.translate(_FOLD)
    return " ".join(text.split())
