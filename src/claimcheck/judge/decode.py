"""Turn a fetched body's bytes into text the way a browser does, in one function.

A page served as ISO-8859-1 or UTF-16 with a correct `charset` read as UTF-8 loses
every accented letter, and a quote with "café" is then `missing` although a reader
sees it. The order is the WHATWG Encoding Standard's (https://encoding.spec.whatwg.org,
"decode", and HTML's encoding sniffing, https://html.spec.whatwg.org/#encoding-sniffing-algorithm):

1. a byte order mark (UTF-8, UTF-16LE, UTF-16BE) — the standard lets it override
   the HTTP charset, because a BOM cannot be there by accident;
2. the `charset` parameter of the HTTP Content-Type;
3. for HTML, `<meta charset>` or `<meta http-equiv="Content-Type">` in the first
   1024 bytes (a UTF-16 label there means UTF-8, as the standard says: a document
   whose meta tag can be read as ASCII is not UTF-16);
4. detection: bytes that are valid UTF-8 are UTF-8; otherwise charset-normalizer's
   guess, with windows-1252 (the web's legacy default) preferred whenever it reads
   the bytes about as cleanly; failing any guess, windows-1252.

Labels are mapped as the standard maps them ("iso-8859-1", "latin1" and "ascii" mean
windows-1252, "utf-16" means UTF-16LE). Undecodable bytes become U+FFFD, as in a
browser. No I/O: bytes and a header in, text out. Bodies are stored as UTF-8 after
this, so every later read is a plain UTF-8 decode.
"""

from __future__ import annotations

import codecs
import functools
import re

import charset_normalizer

_BOMS = (
    (codecs.BOM_UTF8, "utf-8"),
    (codecs.BOM_UTF16_LE, "utf-16-le"),
    (codecs.BOM_UTF16_BE, "utf-16-be"),
)

# The WHATWG labels whose meaning differs from Python's codec of the same name.
_WHATWG_LABELS = {
    "iso-8859-1": "cp1252",
    "iso8859-1": "cp1252",
    "iso_8859-1": "cp1252",
    "latin1": "cp1252",
    "l1": "cp1252",
    "ascii": "cp1252",
    "us-ascii": "cp1252",
    "cp819": "cp1252",
    "iso-8859-9": "cp1254",
    "latin5": "cp1254",
    "tis-620": "cp874",
    "iso-8859-11": "cp874",
    "gb2312": "gb18030",
    "gbk": "gb18030",
    "x-gbk": "gb18030",
    "shift_jis": "cp932",
    "sjis": "cp932",
    "ks_c_5601-1987": "cp949",
    "euc-kr": "cp949",
    "utf-16": "utf-16-le",
    "unicode": "utf-16-le",
    "ucs-2": "utf-16-le",
    "unicodefeff": "utf-16-le",
    "unicodefffe": "utf-16-be",
    "utf8": "utf-8",
    "unicode-1-1-utf-8": "utf-8",
}

_WEB_ENCODING_NAMES = (
    *(f"cp{n}" for n in range(1250, 1259)),
    *(f"iso8859-{n}" for n in (2, 3, 4, 5, 6, 7, 8, 10, 13, 14, 15, 16)),
    "koi8-r",
    "koi8-u",
    "mac-cyrillic",
    "cp866",
    "cp874",
    "gb18030",
    "gbk",
    "big5",
    "big5hkscs",
    "euc-jp",
    "euc_jis_2004",  # charset-normalizer's name for EUC-JP text
    "iso2022-jp",
    "shift_jis",
    "cp932",
    "euc-kr",
    "cp949",
)
"""The legacy encodings the WHATWG Encoding Standard lists, as Python names them."""


@functools.cache
def _web_encodings() -> frozenset[str]:
    """Python's codecs for `_WEB_ENCODING_NAMES`: looked up once a run needs a guess (a
    codec lookup imports its module, and most runs decode nothing)."""
    return frozenset(codecs.lookup(name).name for name in _WEB_ENCODING_NAMES)


_HTML_PRESCAN_BYTES = 1024
_CHAOS_TIE = 0.05
_META = re.compile(rb"<meta\b[^>]*>", re.IGNORECASE)
_META_CHARSET = re.compile(rb"""charset\s*=\s*["']?\s*([A-Za-z0-9._:\-]+)""", re.IGNORECASE)
_CHARSET_PARAM = re.compile(r"""charset\s*=\s*["']?\s*([A-Za-z0-9._:\-]+)""", re.IGNORECASE)


def decode_body(body: bytes, content_type: str | None, *, html: bool = False) -> str:
    """The text of a body, by BOM, HTTP charset, `<meta>` (HTML only), then detection."""
    for bom, encoding in _BOMS:
        if body.startswith(bom):
            return body[len(bom) :].decode(encoding, errors="replace")
    declared = codec_for(charset_of(content_type))
    if declared is not None:
        return body.decode(declared, errors="replace")
    if html:
        meta = codec_for(meta_charset(body))
        if meta is not None:
            if meta.startswith("utf-16"):
                meta = "utf-8"
            return body.decode(meta, errors="replace")
    return body.decode(detect_encoding(body), errors="replace")


def charset_of(content_type: str | None) -> str | None:
    """The `charset` parameter of a Content-Type header, if any."""
    if not content_type or ";" not in content_type:
        return None
    match = _CHARSET_PARAM.search(content_type.split(";", 1)[1])
    return match[1] if match else None


def meta_charset(body: bytes) -> str | None:
    """The charset a `<meta>` tag in the first 1024 bytes declares, if any."""
    head = body[:_HTML_PRESCAN_BYTES]
    for tag in _META.finditer(head):
        # <meta charset=…> or <meta http-equiv="Content-Type" content="…; charset=…">
        match = _META_CHARSET.search(tag[0])
        if match is not None:
            return match[1].decode("ascii")
    return None


def codec_for(label: str | None) -> str | None:
    """Python's codec for an encoding label as WHATWG reads it; None when unknown."""
    if not label:
        return None
    name = label.strip().lower()
    name = _WHATWG_LABELS.get(name, name)
    try:
        return codecs.lookup(name).name
    except LookupError:
        return None


def detect_encoding(body: bytes) -> str:
    """The encoding of undeclared bytes: UTF-8 when they are valid UTF-8, else a guess."""
    try:
        body.decode("utf-8")
    except UnicodeDecodeError:
        pass
    else:
        return "utf-8"
    # Only the encodings of the web (the WHATWG list) are guessed: UTF-16 comes only
    # with a BOM or a charset, as in a browser, and DOS or Mac code pages that fit a
    # few legacy bytes ("caf\xe9" as cp1006) are noise.
    matches = [
        match
        for match in charset_normalizer.from_bytes(body)
        if codec_for(match.encoding) in _web_encodings()
    ]
    if not matches:
        return "cp1252"
    # charset-normalizer ranks by "chaos" first, but on short Western text several
    # legacy code pages are about as clean (French read as cp1257 loses only its
    # "à"). A browser falls back to windows-1252, the web's default: so does this,
    # whenever windows-1252 reads the bytes about as cleanly as the best guess.
    cleanest = min(match.chaos for match in matches)
    near = [match for match in matches if match.chaos <= cleanest + _CHAOS_TIE]
    if any(codec_for(match.encoding) == "cp1252" for match in near):
        return "cp1252"
    best = min(near, key=lambda match: (match.chaos, -match.coherence))
    return codec_for(best.encoding) or "cp1252"
