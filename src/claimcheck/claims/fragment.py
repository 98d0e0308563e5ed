"""Text fragments (`#:~:text=...` URLs): reading a claim's anchor from its source URL.

A source URL may carry its anchor as a WICG text fragment
(https://wicg.github.io/scroll-to-text-fragment/), so the link a reader follows and
the quote claimcheck looks for are one and the same. Parsing follows the spec, with
one addition: a claim has one anchor, so a URL with two text directives is an error.
"""

from __future__ import annotations

import string
from urllib.parse import unquote

from claimcheck.models import Anchor

_DIRECTIVE_DELIMITER = ":~:"

# What a fragment may hold unescaped (RFC 3986 pchar, "/" and "?"), minus the three
# characters that structure a text directive: "&", "," and "-".
_SAFE = "!$'()*+;=:@/?~._"
_KEPT = frozenset(string.ascii_letters + string.digits + _SAFE)
_BYTES = [chr(byte) if chr(byte) in _KEPT else f"%{byte:02X}" for byte in range(256)]
"""What each byte of a term's UTF-8 becomes in the fragment: itself, or its `%XX`."""


class FragmentError(ValueError):
    """A source URL's text fragment cannot be read as one anchor."""


def split_text_fragment(url: str) -> tuple[str, Anchor | None]:
    """Split a URL into the URL without its fragment directive and its anchor.

    The anchor is None when the URL has no fragment directive or no `text=` directive
    in it; other directives are ignored, as browsers do. The `#` goes too when
    nothing of the fragment is left.
    """
    base, directive = _split_directive(url)
    if directive is None:
        return url, None
    texts = [d.removeprefix("text=") for d in directive.split("&") if d.startswith("text=")]
    if len(texts) > 1:
        raise FragmentError(
            f"{url!r} has {len(texts)} text directives; a claim source needs exactly one anchor"
        )
    return base, (_parse_text_directive(texts[0]) if texts else None)


def build_text_fragment(
    url: str, text: str, prefix: str | None = None, suffix: str | None = None
) -> str:
    """Return `url` with a text directive for `text` (replacing any fragment directive).

    Each term is percent-encoded so that `,`, `-` and `&` inside it cannot be read as
    the directive's own syntax.
    """
    if not text or prefix == "" or suffix == "":
        raise FragmentError("a text fragment's text, prefix and suffix cannot be empty")
    base, _ = _split_directive(url)
    value = _encode(text)
    if prefix is not None:
        value = f"{_encode(prefix)}-,{value}"
    if suffix is not None:
        value = f"{value},-{_encode(suffix)}"
    separator = "" if "#" in base else "#"
    return f"{base}{separator}{_DIRECTIVE_DELIMITER}text={value}"


def _split_directive(url: str) -> tuple[str, str | None]:
    """The URL without its fragment directive, and the directive (None if absent)."""
    head, hash_, fragment = url.partition("#")
    if not hash_ or _DIRECTIVE_DELIMITER not in fragment:
        return url, None
    kept, _, directive = fragment.partition(_DIRECTIVE_DELIMITER)
    return (f"{head}#{kept}" if kept else head), directive


def _parse_text_directive(value: str) -> Anchor:
    """Parse `[prefix-,]start[,end][,-suffix]`, splitting before percent-decoding."""
    terms = value.split(",")
    if len(terms) > 4:
        raise FragmentError(f"text directive {value!r} has {len(terms)} terms; at most 4 allowed")
    if any(not term for term in terms):
        raise FragmentError(f"text directive {value!r} has an empty term")
    prefix = suffix = None
    if terms[0].endswith("-"):
        prefix = _decode(terms.pop(0)[:-1], "prefix", value)
        if not terms:
            raise FragmentError(f"text directive {value!r} has a prefix but no text to match")
    if terms[-1].startswith("-"):
        suffix = _decode(terms.pop()[1:], "suffix", value)
        if not terms:
            raise FragmentError(f"text directive {value!r} has a suffix but no text to match")
    if len(terms) > 2:
        raise FragmentError(
            f"text directive {value!r} has {len(terms)} texts between prefix and suffix;"
            " at most 2 (start,end) allowed"
        )
    start = _decode(terms[0], "start", value)
    end = _decode(terms[1], "end", value) if len(terms) == 2 else None
    return Anchor(quote=start, quote_end=end, prefix=prefix, suffix=suffix)


def _decode(term: str, role: str, value: str) -> str:
    """Percent-decode one term as UTF-8; it must not be empty nor start/end with '-'.

    A dash at a term's edge is the directive's own syntax; one left over after the
    prefix's and suffix's dashes are taken is a mistake the spec's grammar forbids.
    (A dash inside a term, as in `state-of-the-art`, is accepted, as browsers do.)
    """
    if not term:
        raise FragmentError(f"text directive {value!r} has an empty {role}")
    if term.startswith("-") or term.endswith("-"):
        raise FragmentError(
            f"text directive {value!r}: the {role} {term!r} starts or ends with '-', which"
            " only marks a prefix (first term, ending in '-') or a suffix (last term,"
            " starting with '-'); write a literal dash as %2D"
        )
    try:
        return unquote(term, errors="strict")
    except UnicodeDecodeError as error:
        raise FragmentError(
            f"text directive {value!r}: the {role} is not valid percent-encoded UTF-8"
        ) from error


def _encode(term: str) -> str:
    """`term` percent-encoded as UTF-8, every byte outside `_KEPT` escaped.

    What `urllib.parse.quote(term, safe=_SAFE)` gives with "-" escaped too, at half
    its cost (a report cites thousands of quotes): a table lookup per byte, all of
    it in C. A lone surrogate raises `UnicodeEncodeError`, as with `quote`.
    """
    return "".join(map(_BYTES.__getitem__, term.encode("utf-8")))
