"""Tokens as atoms: where a quote may begin and end, and where a sentence ends.

A desk's claims are numbers, versions and names. Read as words split at every `.`,
`,` or `-`, "5 GPUs" is found in "2.5 GPUs", "100,000" in "1,100,000", "MIT" in
"MIT-0" and "CUDA 12" in "CUDA 12.8": each a wrong "verified". So a number, version
or identifier is one token — letters and digits joined by `.`, `,`, `-`, `/`, `:`,
`_` or `@` *between* two of them (`2.5`, `1,100,000`, `v0.6.3`, `llama.cpp`,
`x86-64`, `C/C++`, `qwen2:7b`), with trailing `+` or `#` (`C++`, `C#`) — and a match
may start and end only at a token's edge. Punctuation that ends a sentence (`128K.`,
`v0.6.3,`) is not part of the token before it: a joiner counts only with an
alphanumeric on both sides.

Scripts written without spaces (CJK, kana, Thai…) have no word boundaries to keep:
each of their characters is a token of its own, as in text fragments.
"""

from __future__ import annotations

import re
import unicodedata

_NO_SPACE_CHARS = (
    "\u0e00-\u0eff\u1000-\u109f\u1780-\u17ff\u2e80-\u9fff"
    "\uf900-\ufaff\uff66-\uff9f\U00020000-\U0003ffff"
)
NO_SPACE = re.compile(f"[{_NO_SPACE_CHARS}]")

JOINERS = frozenset(".,-/:_@")
"""Characters that join two alphanumerics into one token (`2.5`, `MIT-0`, `C/C++`)."""

TRAILERS = frozenset("+#")
"""Characters that stay with the token they follow (`C++`, `g++`, `C#`)."""

_ALNUM_RUN = f"[^\\W_{_NO_SPACE_CHARS}]+"
_JOINED = "[" + re.escape("".join(sorted(JOINERS))) + "]"
TOKEN = re.compile(f"[{_NO_SPACE_CHARS}]|{_ALNUM_RUN}(?:{_JOINED}{_ALNUM_RUN})*[+#]*|[^\\w\\s]")
"""One token: a no-space-script character, a joined alphanumeric run, or one symbol."""

WORD = re.compile(f"[{_NO_SPACE_CHARS}]|{_ALNUM_RUN}(?:{_JOINED}{_ALNUM_RUN})*")
"""A token that is a word, number, version or name (not a lone symbol)."""


# Characters that shape an emoji without being one of their own: variation selectors,
# the keycap's enclosing square, skin tones (Sk) and the zero-width joiner.
_EMOJI_PARTS = frozenset("\ufe0e\ufe0f\u20e3\u200d")
# Emoji that a Unicode database older than the text does not know yet (category Cn).
_EMOJI_BLOCKS = ((0x1F000, 0x1FAFF), (0x2600, 0x27BF))


def is_pictograph(token: str) -> bool:
    """Whether a token is an emoji or another pictographic symbol (🔥, 🎉, ✅, ©), not a
    word, number or punctuation mark: decoration a heading may gain or lose without
    saying anything else ("🔥 Hot Topics" is "Hot Topics")."""
    return bool(token) and all(_pictographic(char) for char in token)


def _pictographic(char: str) -> bool:
    if char in _EMOJI_PARTS:
        return True
    category = unicodedata.category(char)
    if category == "So" or (category == "Sk" and not char.isascii()):
        return True
    return category == "Cn" and any(low <= ord(char) <= high for low, high in _EMOJI_BLOCKS)


def is_alnum(char: str) -> bool:
    """A letter or digit of a spaced script: the stuff tokens are made of."""
    return char.isalnum() and NO_SPACE.match(char) is None


def at_token_edge(text: str, at: int) -> bool:
    """Whether position `at` (between text[at-1] and text[at]) is not inside a token."""
    if at <= 0 or at >= len(text):
        return True
    before, after = text[at - 1], text[at]
    if is_alnum(before) and is_alnum(after):
        return False
    if after in JOINERS and is_alnum(before) and at + 1 < len(text) and is_alnum(text[at + 1]):
        return False
    if before in JOINERS and is_alnum(after) and at >= 2 and is_alnum(text[at - 2]):
        return False
    return not (after in TRAILERS and (is_alnum(before) or before in TRAILERS))


def on_token_edges(text: str, start: int, end: int) -> bool:
    """Whether text[start:end] neither begins nor ends inside a token."""
    return at_token_edge(text, start) and at_token_edge(text, end)


def widen_to_tokens(text: str, start: int, end: int) -> tuple[int, int]:
    """The smallest span around text[start:end] that cuts no token."""
    while start > 0 and not at_token_edge(text, start):
        start -= 1
    while end < len(text) and not at_token_edge(text, end):
        end += 1
    return start, end


# A sentence ends at . ! ? (or their full-width forms), optionally followed by closing
# quotes or brackets, then whitespace and the start of a new sentence — which may be a
# lower-case name here ("vLLM is…", "llama.cpp now…"), so any letter or digit counts.
_SENTENCE_END = re.compile(r"[.!?。！？][\"'”’)\]]*\s+(?=[\"'“‘(\[]?[^\W_])")
_ABBREVIATIONS = frozenset(
    {"e.g", "i.e", "etc", "vs", "cf", "fig", "no", "approx", "incl", "resp", "mr", "dr", "st"}
)


def sentence_spans(text: str) -> list[tuple[int, int]]:
    """The sentences of one unit's text, as spans; a unit without an end mark is one."""
    spans: list[tuple[int, int]] = []
    start = 0
    for end in _SENTENCE_END.finditer(text):
        words = text[start : end.start()].rsplit(None, 1)
        if words and words[-1].casefold().rstrip(".") in _ABBREVIATIONS:
            continue
        stop = end.start() + 1
        while stop < len(text) and not text[stop].isspace():
            stop += 1
        spans.append((start, stop))
        start = end.end()
    if start < len(text):
        spans.append((start, len(text)))
    return spans or [(0, len(text))]
