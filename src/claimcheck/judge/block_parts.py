"""The parts of a block that the page reader (`judge.units`) takes apart: a paragraph's
text and its pictures' alt texts, a GitHub alert's title, a table's rows, header row and
cells, and the lists a cell holds."""

from __future__ import annotations

import re

from selectolax.lexbor import LexborNode

from claimcheck.judge.extract import TEXT, hidden_in, shown_name, visible_text

_ALERT = re.compile(r"^\[!(note|tip|important|warning|caution)\]\s*", re.I)
LISTS = frozenset({"ul", "ol", "dl", "menu"})
_CELLS = frozenset({"td", "th"})
_THEAD = frozenset({"thead"})
# Lexbor's CSS engine finds elements in document order, much faster than a walk.
LIST_SELECTOR = ", ".join(sorted(LISTS))


def alert_title(text: str) -> str:
    """`[!WARNING] Text` as GitHub shows it: `Warning Text`."""
    return _ALERT.sub(lambda m: m.group(1).capitalize() + " ", text, count=1).strip()


def is_alert(tag: LexborNode) -> bool:
    """GitHub's rendered alerts (`<div class="markdown-alert markdown-alert-warning">`)."""
    if (tag.tag or "").lower() != "div":
        return False
    classes = tag.attributes.get("class")
    return classes is not None and "markdown-alert" in classes.split()


def alt_text(img: LexborNode) -> str:
    alt = img.attributes.get("alt")
    return alt.strip() if alt is not None else ""


def inline_text(tag: LexborNode, hiding: frozenset[int]) -> str:
    """An element's visible text on one line, pictures as their alt text (`hiding`: the
    page's `hiding_elements`, as for every function here that reads text)."""
    return visible_text(tag, hiding).replace("\n", " ").replace("\t", " ")


def inline_and_images(tag: LexborNode, hiding: frozenset[int]) -> tuple[str, list[str]]:
    """A paragraph's text without its pictures, and the pictures' alt texts.

    A row of badges is pictures side by side, each its own text ("License: MIT"); a
    Release badge added beside the licence badge does not change the licence badge.
    Its visible descendants are walked in document order with an explicit stack (no
    recursion), skipping hidden subtrees.
    """
    images: list[str] = []
    parts: list[str] = []
    stack: list[LexborNode] = []
    child = tag.last_child
    while child is not None:
        stack.append(child)
        child = child.prev
    while stack:
        node = stack.pop()
        kind = node.tag
        if kind == TEXT:
            parts.append(node.text_content or "")
            continue
        name = shown_name(node, kind, hiding)
        if name is None:
            continue
        if name == "img":
            alt = alt_text(node)
            if alt:
                images.append(alt)
        elif name == "br":
            parts.append(" ")
        child = node.last_child
        while child is not None:
            stack.append(child)
            child = child.prev
    return "".join(parts), images


def _has_ancestor(node: LexborNode, names: frozenset[str]) -> bool:
    """Whether an element named in `names` encloses `node`, up to the document."""
    parent = node.parent
    while parent is not None:
        if (parent.tag or "").lower() in names:
            return True
        parent = parent.parent
    return False


def row_cells(row: LexborNode) -> list[LexborNode]:
    """A row's own cells (`<td>`, `<th>`), hidden or not."""
    cells: list[LexborNode] = []
    child = row.first_child
    while child is not None:
        if (child.tag or "").lower() in _CELLS:
            cells.append(child)
        child = child.next
    return cells


def table_rows(table: LexborNode) -> tuple[list[LexborNode], LexborNode | None]:
    """A table's rows (not a nested table's), hidden or not, and its header row: the row
    naming the columns, in a `<thead>`, else a first row of `<th>` cells.

    A row counts as in a `<thead>` when any element above it is one, as in an enclosing
    table's header.
    """
    rows: list[LexborNode] = []
    in_thead: list[bool] = []
    table_id = table.mem_id
    for row in table.css("tr"):
        thead = False
        parent = row.parent
        while parent is not None:
            name = (parent.tag or "").lower()
            if name == "table":
                break
            thead = thead or name == "thead"
            parent = parent.parent
        if parent is not None and parent.mem_id == table_id:
            rows.append(row)
            in_thead.append(thead)
    outer_thead = _has_ancestor(table, _THEAD)
    for row, thead in zip(rows, in_thead, strict=True):
        if thead or outer_thead:
            return rows, row
    if rows:
        cells = row_cells(rows[0])
        if cells and all((cell.tag or "").lower() == "th" for cell in cells):
            return rows, rows[0]
    return rows, None


def row_text(row: LexborNode | None, hiding: frozenset[int], lists: bool = True) -> str:
    """A row's cells side by side; a list inside a cell is not row text (its items are
    units of their own). `lists`: whether the table holds any list at all."""
    if row is None:
        return ""
    return " ".join(
        _cell_text(cell, hiding) if lists else inline_text(cell, hiding)
        for cell in row_cells(row)
        if not hidden_in(cell, "td", hiding)
    )


def _cell_text(cell: LexborNode, hiding: frozenset[int]) -> str:
    """A cell's text without the lists it holds (unless the list sits in a cell nested in
    this one). When the table itself is inside a list, all of the cell's own text counts
    as inside a list."""
    if cell.css_first(LIST_SELECTOR) is None:
        return inline_text(cell, hiding)
    in_list = _has_ancestor(cell, LISTS)
    texts: list[str] = []
    # (node, inside a list below the cell, inside a cell nested in this one)
    stack: list[tuple[LexborNode, bool, bool]] = []
    child = cell.last_child
    while child is not None:
        stack.append((child, in_list, False))
        child = child.prev
    while stack:
        node, listed, nested = stack.pop()
        kind = node.tag
        if kind == TEXT:
            if not listed or nested:
                texts.append(node.text_content or "")
            continue
        name = shown_name(node, kind, hiding)
        if name is None:
            continue
        listed = listed or name in LISTS
        nested = nested or name in _CELLS
        child = node.last_child
        while child is not None:
            stack.append((child, listed, nested))
            child = child.prev
    return " ".join(texts)


def outer_lists(cell: LexborNode) -> list[LexborNode]:
    """The lists of a cell that are not inside another list or a nested table's cell,
    hidden or not; none when the table itself is inside a list."""
    lists = cell.css(LIST_SELECTOR)
    if not lists or _has_ancestor(cell, LISTS):
        return []
    cell_id = cell.mem_id
    outer: list[LexborNode] = []
    for inner in lists:
        parent = inner.parent
        while parent is not None:
            name = (parent.tag or "").lower()
            if name in _CELLS or name in LISTS:
                break
            parent = parent.parent
        if parent is not None and parent.mem_id == cell_id:
            outer.append(inner)
    return outer
