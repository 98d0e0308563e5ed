"""A PDF as a reader reads it: paragraphs within pages, in reading order, as a page's units.

The text layer is read by pdfminer.six's layout analysis, which groups a page's
characters into lines and lines into text boxes and orders the boxes as a reader reads
them: a two-column paper gives its first column whole, then its second, where a reader
that follows the content stream interleaves the columns' lines (pypdf does; measured by
`bench/pdf_text.py`, figures in docs/development/performance.md). Each text box is a
paragraph, a unit of the page (`page.Unit`, kind `paragraph`), and knows the number of
its PDF page (`Page.pdf_pages`), which reports show and citations open (`#page=N`).

A box's lines are joined into one text as a reader reads them:

- ligature glyphs (U+FB00…U+FB06: ﬀ ﬁ ﬂ ﬃ ﬄ ﬅ ﬆ) are unfolded to their letters, and
  nothing else of NFKC is applied here (the units then get the normalization every
  page's text gets, `normalize.normalize_text`);
- a word broken at a line's end is joined: "infer-" then "ence" is "inference". A line
  that ends in a soft hyphen (U+00AD) is always joined. A hyphen is kept, and the lines
  joined with nothing between, when the break is most likely at a real compound's own
  hyphen: the next line begins with anything but a lower-case letter ("Llama-" then
  "Guard", "GPT-" then "4"), the broken part already holds a hyphen ("state-of-the-"
  then "art"), or the document says the hyphenated word elsewhere on one line and never
  the joined one ("well-" then "known", where "well-known" stands elsewhere). Else the
  hyphen goes. A compound broken at its hyphen that the document never says whole is
  joined without it: quote it as the PDF shows it broken, or quote around it.

A paragraph that runs over a page break is two units, one a page, as the PDF's
pages are: a quote across the break is not found.

Reading untrusted bytes is bounded: the body is at most the fetch's `max_bytes`; the
compressed streams are measured before the library sees them (`expansion_problem`:
at most `MAX_EXPANDED` bytes once inflated, and no stream compressed twice over, so a
decompression bomb is refused, not inflated); at most `MAX_PAGES` pages are read, and a
longer PDF is refused whole rather than judged on its first pages. pdfminer.six has no
limits of its own on stream sizes. What it raises on a malformed PDF (a truncated file,
a password) becomes a problem in words, never an exception out of here.

A PDF's body travels through the run as text one character a byte (Latin-1:
`body_text`, `body_bytes`), lossless, so that the store and the page cache, which hold
text, hold a PDF's bytes unchanged: the snapshot file is the PDF as it was served.
"""

from __future__ import annotations

import io
import re
import zlib
from array import array
from dataclasses import dataclass

from claimcheck.judge.normalize import normalize_text
from claimcheck.late import pdf_reader
from claimcheck.models import MediaType
from claimcheck.page import Page, Unit

PDF_MAGIC = b"%PDF-"
MAGIC_WITHIN = 1024
"""The header may follow up to this many bytes of junk, as readers allow."""
END_WITHIN = 2048
"""`%%EOF` must stand in the last this many bytes, or the file was cut short."""
MAX_PAGES = 500
"""The most pages read of one PDF: a longer one is refused whole (about 10 s of reading)."""
MAX_EXPANDED = 200 * 2**20
"""The most bytes a PDF's compressed streams may inflate to, all together."""
_CHUNK = 2**20

NO_TEXT_LAYER = "the PDF has no text layer (a scan?)"

_UNFOLDED = {
    "\ufb00": "ff",
    "\ufb01": "fi",
    "\ufb02": "fl",
    "\ufb03": "ffi",
    "\ufb04": "ffl",
    "\ufb05": "st",  # ſt: NFKC gives "st"
    "\ufb06": "st",
}
_LIGATURE = re.compile("[\ufb00-\ufb06]")
_HYPHENS = "-\u2010"  # hyphen-minus, hyphen
_WORD_AT_END = re.compile(rf"(\S*)[{_HYPHENS}]$")
_WORD_AT_START = re.compile(r"^(\w+)")
_HYPHENATED = re.compile(rf"\w+(?:[{_HYPHENS}]\w+)+")
_WORD = re.compile(r"\w+")
_STREAM = re.compile(rb"stream\r?\n")
_END_STREAM = b"endstream"
_TWICE_COMPRESSED = re.compile(
    rb"/Filter\s*\[[^\]]*/(?:FlateDecode|Fl|LZWDecode|LZW)\b[^\]]*"
    rb"/(?:FlateDecode|Fl|LZWDecode|LZW)\b"
)


def body_text(body: bytes) -> str:
    """A PDF's bytes as the text the store and the page cache carry: one character a byte."""
    return body.decode("latin-1")


def body_bytes(text: str) -> bytes:
    """The bytes of a PDF carried as text (`body_text`)."""
    return text.encode("latin-1")


def stored_bytes(text: str, media: MediaType) -> bytes:
    """The bytes a body carried as text is stored as: a PDF's own, any other's UTF-8."""
    return body_bytes(text) if media is MediaType.PDF else text.encode("utf-8")


def stored_text(body: bytes, media: MediaType) -> str:
    """A stored body as the text the run carries (`stored_bytes` undone)."""
    return body_text(body) if media is MediaType.PDF else body.decode("utf-8", errors="replace")


def is_pdf(body: bytes) -> bool:
    """Whether the bytes are a PDF: `%PDF-` at the start, or after a little junk."""
    return PDF_MAGIC in body[:MAGIC_WITHIN]


PDF_TYPES = frozenset({"application/pdf", "application/x-pdf", "application/acrobat"})
"""The media types of a PDF."""


def pdf_expected(content_type: str | None, path: str, body: bytes) -> bool:
    """Whether an answer is to be read as a PDF: served as one, asked for by a `.pdf`
    path (so that an HTML page in its place is weighed as a PDF, and refused), or
    bytes that begin `%PDF-` (an HTML page that only mentions it stays a page)."""
    mime = (content_type or "").split(";", 1)[0].strip().lower()
    return mime in PDF_TYPES or path.lower().endswith(".pdf") or body.lstrip()[:5] == PDF_MAGIC


@dataclass(frozen=True)
class Paragraph:
    """A text box of a PDF page: its lines, as the text layer gives them."""

    page: int
    lines: tuple[str, ...]


@dataclass(frozen=True)
class Unreadable:
    """A PDF that cannot be read, and why in words."""

    reason: str


def read_layout(body: bytes, max_pages: int = MAX_PAGES) -> list[Paragraph] | Unreadable:
    """The text boxes of a PDF in reading order, page by page, or why it can't be read
    (one of more than `max_pages` pages is not read)."""
    if not is_pdf(body):
        return Unreadable("the answer is not a PDF (it does not begin with %PDF-)")
    if b"%%EOF" not in body[-END_WITHIN:]:
        return Unreadable("the PDF was cut short: it does not end with %%EOF")
    problem = expansion_problem(body)
    if problem is not None:
        return Unreadable(problem)
    found: list[Paragraph] = []
    pages = 0
    pdfminer = pdf_reader()  # loaded on the first PDF: most runs read none
    try:
        for number, layout in enumerate(
            pdfminer.extract_pages(
                io.BytesIO(body), laparams=pdfminer.laparams(), maxpages=max_pages + 1
            ),
            1,
        ):
            pages = number
            if number > max_pages:
                return Unreadable(
                    f"the PDF has more than {max_pages} pages; claimcheck reads at most "
                    f"{max_pages} of one PDF"
                )
            for element in layout:
                if isinstance(element, pdfminer.text_box):
                    lines = tuple(line.get_text().strip("\n") for line in element)
                    if any(line.strip() for line in lines):
                        found.append(Paragraph(number, lines))
    except pdfminer.password_incorrect:
        return Unreadable("the PDF is encrypted with a password: its text cannot be read")
    except pdfminer.encryption_error as exc:
        return Unreadable(f"the PDF's encryption cannot be read ({_said(exc)})")
    # pdfminer.six raises many kinds of exception on a malformed file (its own, and
    # plain KeyError, TypeError, struct.error, …): each is this PDF's problem, told.
    except Exception as exc:
        return Unreadable(f"the PDF cannot be read: {type(exc).__name__}: {_said(exc)}")
    if pages == 0:
        return Unreadable("the PDF has no pages")
    return found


def _said(exc: Exception) -> str:
    words = " ".join(str(exc).split())
    return (words[:117] + "…") if len(words) > 120 else (words or "no detail")


def expansion_problem(body: bytes, limit: int = MAX_EXPANDED) -> str | None:
    """Why the PDF's compressed streams are refused (a decompression bomb), or None.

    Each stream is inflated in chunks and the output counted, never kept, up to
    `MAX_EXPANDED` bytes for the whole file; a stream compressed twice over (two
    decompressing filters in a row) is refused outright, since its second stage is
    not measured here. A stream that is not zlib data counts for nothing.
    """
    if _TWICE_COMPRESSED.search(body):
        return "the PDF has a stream compressed twice over, refused (a decompression bomb?)"
    budget = limit
    for start in _STREAM.finditer(body):
        end = body.find(_END_STREAM, start.end())
        data = body[start.end() : end if end >= 0 else len(body)]
        inflate = zlib.decompressobj()
        try:
            budget -= len(inflate.decompress(data, _CHUNK))
            # Past the stream's end zlib leaves a byte in the tail for ever: stop at `eof`.
            while inflate.unconsumed_tail and not inflate.eof and budget >= 0:
                tail = inflate.unconsumed_tail
                out = inflate.decompress(tail, _CHUNK)
                if not out and inflate.unconsumed_tail == tail:
                    break  # no progress: not zlib data this function can measure
                budget -= len(out)
        except zlib.error:
            continue
        if budget < 0:
            return (
                f"the PDF's compressed streams expand beyond {limit / 2**20:g} MiB, "
                "refused (a decompression bomb?)"
            )
    return None


def pdf_page(body: bytes) -> Page:
    """A PDF's units, one a paragraph, each knowing its page; no units when the PDF
    cannot be read (the answer gate never stores such a PDF: `pdf_answer_problem`)."""
    layout = read_layout(body)
    if isinstance(layout, Unreadable):
        return Page.of([], [])
    return page_of(layout)


def page_of(paragraphs: list[Paragraph]) -> Page:
    """The units of a PDF's text boxes: lines joined, ligatures unfolded, then normalized
    as every page's text is."""
    unfolded = [
        Paragraph(p.page, tuple(unfold_ligatures(line) for line in p.lines)) for p in paragraphs
    ]
    said = _said_words([line for p in unfolded for line in p.lines])
    units: list[Unit] = []
    numbers = array("i")
    for paragraph in unfolded:
        text = normalize_text(join_lines(paragraph.lines, said))
        if text:
            units.append(Unit("paragraph", text))
            numbers.append(paragraph.page)
    return Page.of(units, [], pdf_pages=numbers)


def unfold_ligatures(text: str) -> str:
    """Ligature glyphs (U+FB00…U+FB06) as their letters; nothing else changed."""
    if not _LIGATURE.search(text):
        return text
    return _LIGATURE.sub(lambda found: _UNFOLDED[found[0]], text)


@dataclass(frozen=True)
class _Said:
    """The words a document says on one line: hyphenated ones, and plain ones."""

    hyphenated: frozenset[str]
    plain: frozenset[str]


def _said_words(lines: list[str]) -> _Said:
    hyphenated = {
        m[0].lower().replace("\u2010", "-") for line in lines for m in _HYPHENATED.finditer(line)
    }
    plain = {m[0].lower() for line in lines for m in _WORD.finditer(line)}
    return _Said(frozenset(hyphenated), frozenset(plain))


def join_lines(lines: tuple[str, ...], said: _Said | None = None) -> str:
    """A text box's lines as one text: a word broken at a line's end joined (see the
    module doc for when its hyphen is kept), other lines joined by a space."""
    said = said or _Said(frozenset(), frozenset())
    text = ""
    for raw in lines:
        line = raw.strip()
        if not line:
            continue
        if not text:
            text = line
        elif text.endswith("\u00ad"):
            text = text[:-1] + line
        elif text[-1] in _HYPHENS and _WORD_AT_END.search(text):
            text = _joined_at_hyphen(text, line, said)
        else:
            text = f"{text} {line}"
    return text


def _joined_at_hyphen(text: str, line: str, said: _Said) -> str:
    """`text` (ending in a hyphen) and the next line, hyphen kept or dropped."""
    head = _WORD_AT_END.search(text)
    assert head is not None
    broken = head[1]
    start = _WORD_AT_START.match(line)
    keep = (
        not broken  # a hyphen alone at the line's end: a dash, not a broken word
        or start is None
        or not line[0].islower()
        or any(c in _HYPHENS for c in broken)
    )
    if not keep and start is not None:
        whole = f"{broken}-{start[1]}".lower()
        joined = f"{broken}{start[1]}".lower()
        keep = whole in said.hyphenated and joined not in said.plain
    if keep:
        return text + line if broken else f"{text} {line}"
    return text[:-1] + line
