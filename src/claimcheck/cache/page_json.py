"""A page (the judge's units of a body) as JSON, and back: the kept page's format.

Both the page cache (`pages.py`) and the worker processes that read pages ahead
(`read_ahead.py`) write it, byte for byte the same through orjson.
"""

from __future__ import annotations

from array import array
from typing import Any

from claimcheck.page import Notice, Page, Unit


def page_document(page: Page) -> dict[str, Any]:
    """A page as JSON: units as rows, heading chains shared by index."""
    chains: dict[tuple[str, ...], int] = {}
    rows: list[list[Any]] = []
    for unit in page.units:
        chain = chains.setdefault(unit.headings, len(chains))
        rows.append([unit.kind, unit.text, chain, unit.header, unit.lead_in])
    notices = [
        [n.text, n.start, n.end, chains.setdefault(n.headings, len(chains))] for n in page.notices
    ]
    return {
        "chains": [list(c) for c in chains],
        "units": rows,
        "notices": notices,
        "region": page.region,
        "lines": page.lines.tolist() if page.lines is not None else None,
        "pdf_pages": page.pdf_pages.tolist() if page.pdf_pages is not None else None,
    }


def page_from_document(document: dict[str, Any]) -> Page:
    """The page of `page_document`; a malformed document raises, it is never half read."""
    chains = [tuple(_strings(chain)) for chain in document["chains"]]
    found: list[Unit] = []
    for kind, text, chain, header, lead_in in document["units"]:
        # Checked inline, not a call a field: a README has a hundred units or more, and
        # a cold run takes every page from JSON twice (the worker's, then the kept one).
        if (
            type(kind) is not str
            or type(text) is not str
            or (header is not None and type(header) is not str)
            or (lead_in is not None and type(lead_in) is not str)
        ):
            raise TypeError("not a string")
        found.append(Unit(kind, text, chains[chain], header, lead_in))
    notices = [
        Notice(text=_string(text), start=int(start), end=int(end), headings=chains[chain])
        for text, start, end, chain in document["notices"]
    ]
    return Page.of(
        found,
        notices,
        _optional(document["region"]),
        _lines(document["lines"]),
        _lines(document.get("pdf_pages")),
    )


def _string(value: Any) -> str:
    if not isinstance(value, str):
        raise TypeError("not a string")
    return value


def _optional(value: Any) -> str | None:
    return None if value is None else _string(value)


def _lines(value: Any) -> array[int] | None:
    if value is None:
        return None
    if not isinstance(value, list) or not all(type(n) is int for n in value):
        raise TypeError("not a list of line numbers")
    return array("i", value)


def _strings(values: Any) -> list[str]:
    if not isinstance(values, list):
        raise TypeError("not a list")
    return [_string(v) for v in values]
