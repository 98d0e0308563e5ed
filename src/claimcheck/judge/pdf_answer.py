"""The answer gate's checks of an answer that should be a PDF (`plausible.judge_answer`).

After the checks every answer passes (a whole 200, not a login page on another host),
an answer to be read as a PDF (`pdf.pdf_expected`: served as one, or asked for by a
`.pdf` path, or bytes that begin `%PDF-`) is a new version only when:

1. its bytes are a PDF (`%PDF-` in the first 1024 bytes): an HTML page served in its
   place (an error page, a sign-in wall, a "download will start" page) is not, and
   says so, as does any other body;
2. it is whole: `%%EOF` in its last 2048 bytes (a PDF cut short loses its cross
   reference table and its last pages);
3. it can be read: not encrypted with a password, not damaged past pdfminer.six's
   recovery, not a decompression bomb, at most `pdf.MAX_PAGES` pages
   (`pdf.read_layout`);
4. it has a text layer: a scan (pictures of pages, no text) is `unreachable` with
   `pdf.NO_TEXT_LAYER`, never judged stale, since no quote can be read from it;
5. it is not a collapse to a stub against the previous version (the rule every page
   has, `plausible.COLLAPSE_*`).

The gate reads the layout once to weigh it; the store reads the units again when the
claims are judged, as for any page the gate lets through.
"""

from __future__ import annotations

import re

from claimcheck.judge.answer import (
    Answer,
    NewVersion,
    Plausibility,
    Suspicion,
    suspect,
)
from claimcheck.judge.pdf import (
    NO_TEXT_LAYER,
    Unreadable,
    body_text,
    is_pdf,
    page_of,
    read_layout,
)

_HTML_START = re.compile(rb"^\s*(?:<!doctype\s+html|<html|<head|<body|<!--|<\?xml)", re.IGNORECASE)


def pdf_answer(answer: Answer) -> Plausibility:
    """A new version of a PDF source, or why the answer is not one (rules 1 to 4 of the
    module doc; the collapse, rule 5, is `plausible.judge_answer`'s, as for any page)."""
    body = answer.body
    if not body:
        return suspect(Suspicion.EMPTY, "the answer was empty, not the PDF")
    if not is_pdf(body):
        if _HTML_START.match(body[:1024]) or b"<html" in body[:1024].lower():
            return suspect(
                Suspicion.ERROR_PAGE,
                "the answer is an HTML page, not the PDF (an error page or a sign-in wall "
                "served in its place?)",
            )
        return suspect(
            Suspicion.MEDIA_TYPE, "the answer is not a PDF (it does not begin with %PDF-)"
        )
    layout = read_layout(body)
    if isinstance(layout, Unreadable):
        kind = Suspicion.CUT_SHORT if "cut short" in layout.reason else Suspicion.UNREADABLE
        return suspect(kind, layout.reason)
    page = page_of(layout)
    if not page.units:
        return suspect(Suspicion.NO_TEXT, NO_TEXT_LAYER)
    return NewVersion(text=body_text(body))
