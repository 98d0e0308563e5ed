"""PDFs the tests write, with fpdf2: each line placed by hand, so its text is known.

The font is a subset of DejaVu Sans carried in `tests/data/fonts/` (its licence beside
it), so the ligature glyphs (U+FB00…U+FB06) are in the text layer as themselves, as a
typesetter writes them, and the suite needs no font of the machine.

`two_column_paper` writes its page row by row across both columns (left line, right
line, next row), as some typesetters do: a reader that follows the content stream
interleaves the columns, one that reads the layout does not.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence

from fpdf import FPDF

from support import paths

FONT = paths.ROOT / "tests" / "data" / "fonts" / "DejaVuSans-subset.ttf"
FIXED_DATE = dt.datetime(2026, 1, 2, tzinfo=dt.UTC)
LEFT_X = 15.0
RIGHT_X = 110.0
TOP_Y = 30.0
PITCH = 4.2  # mm between lines of a paragraph (12 pt for 10 pt type); a gap is one blank line

# Page 1, left column: a word broken at a line's end, then ligature glyphs.
LEFT_1 = (
    (
        "Speculative decoding lets a small draft",
        "model propose tokens that the large model",
        "checks in one pass, which makes infer-",
        "ence up to three times faster on long",
        "prompts.",
    ),
    (
        "The scheduler is e\ufb03cient: it \ufb01nds free",
        "slots and \ufb02ushes the cache when full.",
    ),
)
# Page 1, right column: real compounds broken at their hyphen.
RIGHT_1 = (
    (
        "Paged attention stores the key-value",
        "cache in blocks of sixteen tokens, so",
        "memory is shared between requests that",
        "begin with the same system prompt.",
    ),
    (
        "It ships a state-of-the-",
        "art kernel for Llama-",
        "Guard and a well-known allocator; the",
        "well-",
        "known allocator is the default.",
    ),
)
# Page 2, one column.
PAGE_2 = (
    (
        "Quantized weights cut the memory of a",
        "seventy billion parameter model to about",
        "forty gigabytes.",
    ),
)


def _document() -> FPDF:
    pdf = FPDF(unit="mm", format="A4")
    pdf.set_creation_date(FIXED_DATE)
    pdf.set_auto_page_break(False)
    pdf.add_font("DejaVu", fname=str(FONT))
    pdf.set_font("DejaVu", size=10)
    return pdf


def _rows(paragraphs: Sequence[Sequence[str]]) -> list[str | None]:
    """A column's lines top to bottom, None for the blank line between paragraphs."""
    rows: list[str | None] = []
    for n, paragraph in enumerate(paragraphs):
        if n:
            rows.append(None)
        rows += list(paragraph)
    return rows


def _columns(pdf: FPDF, left: Sequence[Sequence[str]], right: Sequence[Sequence[str]]) -> None:
    """Write two columns on a new page, row by row across both."""
    pdf.add_page()
    lefts, rights = _rows(left), _rows(right)
    for row in range(max(len(lefts), len(rights))):
        y = TOP_Y + row * PITCH
        for x, lines in ((LEFT_X, lefts), (RIGHT_X, rights)):
            line = lines[row] if row < len(lines) else None
            if line:
                pdf.text(x, y, line)


def _column(pdf: FPDF, paragraphs: Sequence[Sequence[str]]) -> None:
    pdf.add_page()
    for row, line in enumerate(_rows(paragraphs)):
        if line:
            pdf.text(LEFT_X, TOP_Y + row * PITCH, line)


def two_column_paper(*, right: Sequence[Sequence[str]] = RIGHT_1) -> bytes:
    """Two pages: two columns on the first (ligatures, broken words), one on the second."""
    pdf = _document()
    _columns(pdf, LEFT_1, right)
    _column(pdf, PAGE_2)
    return bytes(pdf.output())


def long_paper(pages: int = 20) -> bytes:
    """`pages` pages of two columns each, for measuring a reader's time and memory."""
    pdf = _document()
    for number in range(1, pages + 1):
        left = [[f"Page {number} left {n}: " + line for line in LEFT_1[0]] for n in range(3)]
        right = [[f"Page {number} right {n}: " + line for line in RIGHT_1[0]] for n in range(3)]
        _columns(pdf, left, right)
    return bytes(pdf.output())


def scanned_page() -> bytes:
    """A page with drawings and no text at all: a scan, as far as text goes."""
    pdf = _document()
    pdf.add_page()
    for row in range(30):
        y = TOP_Y + row * PITCH
        pdf.rect(LEFT_X, y, 60 + (row * 7) % 40, 2.5, style="F")
        pdf.rect(RIGHT_X, y, 50 + (row * 11) % 35, 2.5, style="F")
    return bytes(pdf.output())


def plain_document(
    text: str, *, user_password: str | None = None, owner_password: str | None = None
) -> bytes:
    """One line on one page; encrypted when a password is given (an owner's password
    alone locks nothing a reader needs)."""
    pdf = _document()
    pdf.add_page()
    pdf.text(LEFT_X, TOP_Y, text)
    if user_password is not None or owner_password is not None:
        pdf.set_encryption(owner_password=owner_password or "owner", user_password=user_password)
    return bytes(pdf.output())
