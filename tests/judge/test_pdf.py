"""A PDF read as a reader reads it (`judge.pdf`), and the answer gate's PDF checks.

The PDFs are written by the test (`support.pdfs`, fpdf2): every expected text and page
number is written here by hand from the lines placed there.
"""

from __future__ import annotations

import zlib

import pytest

from claimcheck.judge.answer import Answer, Expect, NewVersion, Previous, Suspect, Suspicion
from claimcheck.judge.pdf import (
    NO_TEXT_LAYER,
    Paragraph,
    Unreadable,
    body_bytes,
    body_text,
    expansion_problem,
    join_lines,
    page_of,
    pdf_expected,
    pdf_page,
    read_layout,
    unfold_ligatures,
)
from claimcheck.judge.plausible import judge_answer
from claimcheck.judge.units import read_page
from claimcheck.models import MediaType
from support import pdfs

PAPER_UNITS = [
    (
        1,
        "Speculative decoding lets a small draft model propose tokens that the large model "
        "checks in one pass, which makes inference up to three times faster on long prompts.",
    ),
    (1, "The scheduler is efficient: it finds free slots and flushes the cache when full."),
    (
        1,
        "Paged attention stores the key-value cache in blocks of sixteen tokens, so memory "
        "is shared between requests that begin with the same system prompt.",
    ),
    (
        1,
        "It ships a state-of-the-art kernel for Llama-Guard and a well-known allocator; the "
        "well-known allocator is the default.",
    ),
    (
        2,
        "Quantized weights cut the memory of a seventy billion parameter model to about forty "
        "gigabytes.",
    ),
]


def test_a_two_column_paper_reads_column_by_column_in_paragraphs_with_their_pages() -> None:
    page = pdf_page(pdfs.two_column_paper())
    assert [(page.pdf_page_of(i), u.text) for i, u in enumerate(page.units)] == PAPER_UNITS
    assert {unit.kind for unit in page.units} == {"paragraph"}


def test_read_page_reads_a_pdf_carried_as_text() -> None:
    body = pdfs.two_column_paper()
    page = read_page(body_text(body), MediaType.PDF)
    assert [u.text for u in page.units] == [text for _, text in PAPER_UNITS]
    assert read_page(body_text(body), MediaType.PDF, scope="main").units == ()


def test_a_pdf_carried_as_text_keeps_every_byte() -> None:
    every = bytes(range(256)) * 3
    assert body_bytes(body_text(every)) == every


@pytest.mark.parametrize(
    ("text", "unfolded"),
    [
        ("e\ufb03cient \ufb01nds \ufb02ushes", "efficient finds flushes"),
        ("\ufb00 \ufb04 \ufb05 \ufb06", "ff ffl st st"),
        ("no ligature: ½ ™ ①", "no ligature: ½ ™ ①"),  # not the rest of NFKC
    ],
    ids=["fi-fl-ffi", "ff-ffl-st", "other-compatibility-characters-kept"],
)
def test_ligatures_are_unfolded_and_nothing_else(text: str, unfolded: str) -> None:
    assert unfold_ligatures(text) == unfolded


@pytest.mark.parametrize(
    ("lines", "joined"),
    [
        (("makes infer-", "ence faster"), "makes inference faster"),
        (("makes infer\u00ad", "ence faster"), "makes inference faster"),
        (("makes infer\u2010", "ence faster"), "makes inference faster"),
        (("a state-of-the-", "art kernel"), "a state-of-the-art kernel"),
        (("for Llama-", "Guard and"), "for Llama-Guard and"),
        (("GPT-", "4 and"), "GPT-4 and"),
        (("two lines", "of text"), "two lines of text"),
        (("a dash -", "then"), "a dash - then"),
        (("", "  lone line  ", ""), "lone line"),
    ],
    ids=[
        "broken-word-joined",
        "soft-hyphen-joined",
        "unicode-hyphen-joined",
        "compound-with-a-hyphen-kept",
        "capital-after-kept",
        "digit-after-kept",
        "plain-lines-spaced",
        "dash-alone-kept",
        "blank-lines-skipped",
    ],
)
def test_lines_join_as_a_reader_reads_them(lines: tuple[str, ...], joined: str) -> None:
    assert join_lines(lines) == joined


def test_a_compound_the_document_says_whole_keeps_its_hyphen_when_broken() -> None:
    said_whole = [
        Paragraph(1, ("a well-known allocator",)),
        Paragraph(1, ("the well-", "known one")),
    ]
    assert page_of(said_whole).units[1].text == "the well-known one"
    never_whole = [Paragraph(1, ("the well-", "known one"))]
    assert page_of(never_whole).units[0].text == "the wellknown one"
    # Said both ways: the joined word stands too, so the break is a broken word.
    both = [
        Paragraph(1, ("a data-base and a database",)),
        Paragraph(1, ("the data-", "base one")),
    ]
    assert page_of(both).units[1].text == "the database one"


def test_a_scan_has_no_text() -> None:
    assert read_layout(pdfs.scanned_page()) == []


@pytest.mark.parametrize(
    ("body", "reason"),
    [
        (b"<html><body>Not found</body></html>", "not a PDF"),
        (pdfs.two_column_paper()[:-400], "cut short: it does not end with %%EOF"),
        (b"%PDF-1.4\nnothing of a PDF\n%%EOF\n", "the PDF cannot be read: PDFSyntaxError"),
    ],
    ids=["html", "cut-short", "no-objects"],
)
def test_an_unreadable_pdf_says_why(body: bytes, reason: str) -> None:
    found = read_layout(body)
    assert isinstance(found, Unreadable)
    assert reason in found.reason


def test_a_pdf_locked_by_a_password_says_so() -> None:
    pdf = pdfs.plain_document("secret words", user_password="u")
    assert read_layout(pdf) == Unreadable(
        "the PDF is encrypted with a password: its text cannot be read"
    )
    # Encrypted with an owner's password only: any reader opens it, and so does this.
    opened = read_layout(pdfs.plain_document("open words", owner_password="o"))
    assert opened == [Paragraph(1, ("open words",))]


def test_a_pdf_longer_than_the_page_limit_is_refused_whole() -> None:
    body = pdfs.two_column_paper()  # two pages
    assert isinstance(read_layout(body, max_pages=2), list)
    found = read_layout(body, max_pages=1)
    assert found == Unreadable(
        "the PDF has more than 1 pages; claimcheck reads at most 1 of one PDF"
    )


def _with_stream(data: bytes, filters: str = "/FlateDecode") -> bytes:
    return (
        b"%PDF-1.4\n1 0 obj\n<< /Length " + str(len(data)).encode()
        + b" /Filter " + filters.encode() + b" >>\nstream\n" + data
        + b"\nendstream\nendobj\n%%EOF\n"
    )  # fmt: skip


def test_a_decompression_bomb_is_measured_not_inflated() -> None:
    bomb = _with_stream(zlib.compress(bytes(3 * 2**20), 9))  # 3 MiB of zeros, ~3 KB
    assert len(bomb) < 10_000
    assert expansion_problem(bomb, limit=4 * 2**20) is None
    problem = expansion_problem(bomb, limit=2 * 2**20)
    assert problem == (
        "the PDF's compressed streams expand beyond 2 MiB, refused (a decompression bomb?)"
    )


def test_a_stream_compressed_twice_over_is_refused() -> None:
    twice = _with_stream(zlib.compress(zlib.compress(b"x" * 100)), "[/FlateDecode /FlateDecode]")
    assert expansion_problem(twice) == (
        "the PDF has a stream compressed twice over, refused (a decompression bomb?)"
    )


@pytest.mark.parametrize(
    ("content_type", "path", "body", "expected"),
    [
        ("application/pdf", "/paper", b"<html>", True),
        ("text/html", "/paper.PDF", b"<html>", True),
        ("application/octet-stream", "/download/7", b"%PDF-1.7\n", True),
        ("text/html", "/about-pdf", b"<html>%PDF- is the header</html>", False),
        (None, "/readme.md", b"# Title", False),
    ],
    ids=["served-as-pdf", "pdf-path", "sniffed", "html-mentioning-the-header", "markdown"],
)
def test_which_answers_are_read_as_a_pdf(
    content_type: str | None, path: str, body: bytes, expected: bool
) -> None:
    assert pdf_expected(content_type, path, body) is expected


def _answer(body: bytes, content_type: str = "application/pdf", status: int = 200) -> Answer:
    headers = {"content-type": content_type}
    return Answer(status, headers, body, "https://example.org/p.pdf", "https://example.org/p.pdf")


@pytest.mark.parametrize(
    ("body", "content_type", "kind", "reason"),
    [
        (pdfs.scanned_page(), "application/pdf", Suspicion.NO_TEXT, NO_TEXT_LAYER),
        (
            b"<!DOCTYPE html><html><title>404</title><body>gone</body></html>",
            "application/pdf",
            Suspicion.ERROR_PAGE,
            "the answer is an HTML page, not the PDF (an error page or a sign-in wall "
            "served in its place?)",
        ),
        (
            b"\x89PNG\r\n\x1a\n....",
            "application/pdf",
            Suspicion.MEDIA_TYPE,
            "the answer is not a PDF (it does not begin with %PDF-)",
        ),
        (
            pdfs.two_column_paper()[:-400],
            "application/pdf",
            Suspicion.CUT_SHORT,
            "the PDF was cut short: it does not end with %%EOF",
        ),
        (b"", "application/pdf", Suspicion.EMPTY, "the answer was empty, not the PDF"),
    ],
    ids=["scan", "html-error-page", "an-image", "cut-short", "empty"],
)
def test_the_gate_refuses_what_is_not_a_readable_pdf(
    body: bytes, content_type: str, kind: Suspicion, reason: str
) -> None:
    found = judge_answer(_answer(body, content_type), Expect.PAGE, MediaType.PDF)
    assert found == Suspect(kind, reason)


def test_the_gate_keeps_a_pdf_as_its_bytes() -> None:
    body = pdfs.two_column_paper()
    found = judge_answer(_answer(body), Expect.PAGE, MediaType.PDF)
    assert isinstance(found, NewVersion)
    assert body_bytes(found.text) == body


def test_the_gate_refuses_a_pdf_collapsed_to_a_stub() -> None:
    stub = pdfs.plain_document("Nothing here.")
    previous = Previous(body="", text="x" * 5_000)
    found = judge_answer(_answer(stub), Expect.PAGE, MediaType.PDF, previous)
    assert isinstance(found, Suspect)
    assert found.kind is Suspicion.COLLAPSE


def test_the_gate_still_refuses_a_pdf_that_is_not_a_whole_200() -> None:
    body = pdfs.two_column_paper()
    found = judge_answer(_answer(body, status=206), Expect.PAGE, MediaType.PDF)
    assert isinstance(found, Suspect)
    assert found.kind is Suspicion.STATUS
