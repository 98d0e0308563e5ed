"""Make third-party text safe to show: no control, escape or bidi characters.

Quotes and found text come from pages we do not control. Shown raw on a terminal, an
escape sequence could rewrite the screen or hide a verdict; a bidi override could
make a line read differently from what it holds.
"""

from __future__ import annotations

import re
import unicodedata

_BIDI = "\u202a\u202b\u202c\u202d\u202e\u2066\u2067\u2068\u2069\u200e\u200f\u061c"
_ESCAPE = re.compile(r"\x1b(\[[0-?]*[ -/]*[@-~]|\][^\x07\x1b]*(\x07|\x1b\\)?|.)?")


def clean_text(text: str) -> str:
    """Drop terminal escape sequences, control and bidi characters; tabs/newlines → space."""
    text = _ESCAPE.sub("", text)
    out = []
    for char in text:
        if char in "\t\n\r":
            out.append(" ")
        elif char in _BIDI or unicodedata.category(char) in ("Cc", "Cf"):
            continue
        else:
            out.append(char)
    return "".join(out)


def shorten(text: str, width: int) -> str:
    """Cut a long text to `width` characters with an ellipsis in the middle."""
    if len(text) <= width:
        return text
    keep = max(1, width - 1)
    head = keep * 2 // 3
    return text[:head] + "…" + text[len(text) - (keep - head) :]
