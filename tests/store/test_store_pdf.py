"""A PDF in the store: its bytes kept as served, read back whole, its units read once."""

from __future__ import annotations

import datetime as dt
import hashlib
from pathlib import Path

from claimcheck.judge.pdf import body_bytes
from claimcheck.models import MediaType
from claimcheck.store.store import Store
from support import pdfs

SOURCE = "https://papers.example.org/paper.pdf"
WHEN = dt.datetime(2026, 11, 2, 8, 30, tzinfo=dt.UTC)


def _saved(root: Path, body: bytes) -> Store:
    store = Store(root)
    store.save(
        key="papers.example.org/paper.pdf",
        url=SOURCE,
        final_url=SOURCE,
        status=200,
        body=body,
        media=MediaType.PDF,
        fetched_at=WHEN,
    )
    return store


def test_a_pdf_is_stored_byte_for_byte_and_read_back_whole(tmp_path: Path) -> None:
    body = pdfs.two_column_paper()
    _saved(tmp_path, body)
    store = Store(tmp_path)  # a later run: everything from disk
    (snapshot,) = store.versions("papers.example.org/paper.pdf")
    assert snapshot.file == f"2026-11-02T083000Z-{hashlib.sha256(body).hexdigest()[:8]}.pdf"
    assert (tmp_path / "papers.example.org/paper.pdf" / snapshot.file).read_bytes() == body
    assert body_bytes(store.read_body(snapshot)) == body
    page = store.page(snapshot)
    assert page.units[-1].text == (
        "Quantized weights cut the memory of a seventy billion parameter model to about "
        "forty gigabytes."
    )
    assert page.pdf_page_of(len(page.units) - 1) == 2


def test_a_pdf_page_kept_in_the_cache_keeps_its_page_numbers(tmp_path: Path) -> None:
    store = _saved(tmp_path, pdfs.two_column_paper())
    (snapshot,) = store.versions("papers.example.org/paper.pdf")
    first = store.page(snapshot)
    later = Store(tmp_path)
    again = later.page(snapshot)
    assert later.pages.read == 0  # taken from snapshots/.cache, not read again
    assert again.units == first.units
    assert again.pdf_pages is not None
    assert list(again.pdf_pages) == [1, 1, 1, 1, 2]
