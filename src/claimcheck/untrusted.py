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
    """Drop terminal escape sequences, control, bidi and lone surrogate characters.

    Tabs and newlines become spaces. A lone surrogate (from a badly decoded page)
    would make writing the text as UTF-8 fail. Printable ASCII has none of them: it
    is returned as it is, without looking at each character (most text is).
    """
    if text.isascii() and text.isprintable():
        return text
    text = _ESCAPE.sub("", text)
    out = []
    for char in text:
        if char in "\t\n\r":
            out.append(" ")
        elif char in _BIDI or unicodedata.category(char) in ("Cc", "Cf", "Cs"):
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


# A URL's user info (`scheme://user:password@host`), anywhere in a text: the authority
# ends at the first `/`, `?` or `#` (an `@` after one is in the path) and its host
# starts after its last `@`, as `urlsplit` reads it.
_USER_INFO = re.compile(r"([A-Za-z][A-Za-z0-9+.-]*)://[^/?#\s]*@([^/?#@\s]*)")


def carried_credentials(text: str) -> str | None:
    """`carries a user name or password (https://***@host)` when a URL in `text` (a
    claim's source or `cited`, a server URL of the config) has user info; else None.

    The one test of a URL for credentials, wherever one is written: an HTTP client sends
    them as basic authentication to that host, and every message or report that shows
    the URL would publish them. The URL is shown up to its host, its user info as `***`:
    never the password, nor a token its path or query may hold. Each caller says why it
    refuses them.
    """
    found = _USER_INFO.search(text)
    if found is None:
        return None
    return f"carries a user name or password ({found.group(1)}://***@{found.group(2)})"


_MD_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+!|~])")
_MENTION = re.compile(r"@(?=\w)")
_ISSUE_REF = re.compile(r"#(?=\d)")
_AUTOLINK = re.compile(r"(?i)(?<=[a-z])://|(?<=\bwww)\.")


def markdown_text(text: str) -> str:
    """Third-party text as inert Markdown/HTML inline text.

    Control and bidi characters go; `<`, `>` and `&` become entities (so `<!--` cannot
    hide the rest of a document or forge a hidden marker, and no tag is rendered);
    Markdown punctuation is backslash-escaped (no links, images or emphasis); a
    zero-width space after `@`, between `#` and a digit, and inside `://` and `www.`
    keeps GitHub from pinging anyone, cross-referencing an issue or autolinking a URL.
    """
    text = clean_text(text)
    text = text.replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
    text = _MD_SPECIAL.sub(r"\\\1", text)
    return _defang(text)


def markdown_code(text: str, *, block: bool = False) -> str:
    """Third-party text as a Markdown code span or fenced block it cannot break out of.

    The fence is one backtick longer than the longest backtick run inside, as
    CommonMark requires; inside code nothing is rendered, so no other escaping is
    needed but the mention/reference defusing, which GitHub applies even in code.
    """
    text = _defang(clean_text(text) if not block else _clean_lines(text))
    longest = max((len(run) for run in re.findall(r"`+", text)), default=0)
    fence = "`" * (max(longest + 1, 3) if block else longest + 1)
    if block:
        return f"{fence}text\n{text}\n{fence}"
    pad = " " if text.startswith("`") or text.endswith("`") or not text.strip() else ""
    return f"{fence}{pad}{text}{pad}{fence}"


def _clean_lines(text: str) -> str:
    return "\n".join(clean_text(line) for line in text.splitlines())


def _defang(text: str) -> str:
    """Zero-width spaces that stop mentions, issue references and bare-URL autolinks."""
    text = _AUTOLINK.sub(lambda m: "\u200b" + m.group(0), text)
    return _ISSUE_REF.sub("#\u200b", _MENTION.sub("@\u200b", text))
