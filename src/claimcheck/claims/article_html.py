"""An article's HTML read as a reader sees it: blocks, code, tables, sentences, prose dates.

What `claims.article` asks of the HTML an article is (or its Markdown renders to): the
lines a node came from, whether a link is in code, the block that holds it, a title,
the claim text around a link (its sentence, a table row, a list item's own text), the
"checked" dates its prose names, and the id a claim without one is given. Each takes
nodes or text and returns values.
"""

from __future__ import annotations

import datetime as dt
import hashlib
import re
from dataclasses import dataclass

from selectolax.lexbor import LexborNode

from claimcheck.claims.field_checks import bad_character
from claimcheck.judge.extract import TEXT, hidden
from claimcheck.judge.normalize import normalize_text
from claimcheck.models import Anchor, MediaType

_SOURCEPOS = re.compile(r"(\d+):\d+-(\d+):\d+")
_CONTROL = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f]")
_SPACE = re.compile(r"\s+")
_WORD = re.compile(r"[a-z0-9]+")
# A sentence ends at . ! ? (or their full-width forms, or …), closing quotes and brackets
# may follow, then whitespace. (A next sentence may start in lower case: `llama.cpp`.)
# A "checked" line: English `checked [on] DATE`, Korean `DATE [에] 확인` / `확인[일]: DATE`.
_CHECKED_PROSE = re.compile(
    r"\bchecked(?:\s+on)?\s*:?\s*[0-9]{4}-[0-9]{2}-[0-9]{2}"
    r"|[0-9]{4}-[0-9]{2}-[0-9]{2}\s*(?:에\s*)?확인"
    r"|확인(?:일|\s*날짜)?\s*[:：]?\s*[0-9]{4}-[0-9]{2}-[0-9]{2}",
    re.I,
)
_ISO_DATE = re.compile(r"(?<![0-9])[0-9]{4}-[0-9]{2}-[0-9]{2}(?![0-9])")
HEADINGS = frozenset({"h1", "h2", "h3", "h4", "h5", "h6"})
PROSE_BLOCKS = frozenset(
    {"p", "li", "td", "th", "dt", "dd", "caption", "figcaption", "summary", "address"}
)
_SENTENCE_END = re.compile(r"([.!?。！？…]+)[\"'”’)\]]*\s+")
_ABBREVIATIONS = frozenset(
    {"e.g", "i.e", "vs", "cf", "etc", "mr", "mrs", "dr", "fig", "no", "approx"}
)
_BLOCK_NAMES = frozenset(
    {
        "p",
        "li",
        "td",
        "th",
        "h1",
        "h2",
        "h3",
        "h4",
        "h5",
        "h6",
        "dt",
        "dd",
        "caption",
        "figcaption",
        "summary",
        "blockquote",
        "address",
        "div",
        "section",
        "article",
        "aside",
        "header",
        "footer",
        "main",
        "nav",
        "body",
    }
)
LISTS = frozenset({"ul", "ol"})
_CODE = frozenset({"pre", "code", "kbd", "samp", "script", "style", "template", "textarea"})
_WORD_LIMIT = 3
_WORDS_CHARS = 32
_PAGE_CHARS = 100
# Markers of the link's start and end in a block's text (control characters, which the
# text is cleaned of before they are put in).
_START, _END = "\x01", "\x02"


@dataclass(frozen=True)
class Prose:
    """A "checked" line's date (None: refused, or none in force) and whether one was
    written at all (so a refused date is not also reported as a missing one)."""

    date: dt.date | None
    dated: bool


NO_PROSE = Prose(None, False)


def prose_checked(text: str) -> list[str]:
    """The dates of the sentences of `text` that say when its links were checked."""
    dates: list[str] = []
    for match in _CHECKED_PROSE.finditer(text):
        start = max((m.end() for m in _SENTENCE_END.finditer(text, 0, match.start())), default=0)
        ends = _SENTENCE_END.search(text, match.end())
        sentence = text[start : ends.start() if ends else len(text)]
        dates += [d for d in _ISO_DATE.findall(sentence) if d not in dates]
    return dates


def source_lines(node: LexborNode) -> tuple[int, int] | None:
    current: LexborNode | None = node
    while current is not None:
        attributes = current.attributes if current.is_element_node else {}
        found = _SOURCEPOS.fullmatch(attributes.get("data-sourcepos") or "")
        if found is not None:
            return int(found.group(1)), int(found.group(2))
        current = current.parent
    return None


def in_code(node: LexborNode) -> bool:
    current = node.parent
    while current is not None:
        if (current.tag or "").lower() in _CODE:
            return True
        current = current.parent
    return False


def block_of(node: LexborNode) -> LexborNode:
    current = node.parent
    while current is not None:
        if (current.tag or "").lower() in _BLOCK_NAMES:
            return current
        if current.parent is None:
            return current
        current = current.parent
    return node  # pragma: no cover - a link always has a parent


def article_title(root: LexborNode, media: MediaType) -> str | None:
    if media is MediaType.HTML:
        title = root.css_first("title")
        if title is not None and (text := plain(title)):
            return text
    for selector in ("h1", "h1, h2, h3, h4, h5, h6"):
        heading = root.css_first(selector)
        if heading is not None and (text := plain(heading)):
            return text
    return None


# -- claim text ---------------------------------------------------------------------------


def claim_text(link: LexborNode, block: LexborNode) -> str:
    name = (block.tag or "").lower()
    if name in ("td", "th"):
        return _row_text(block)
    if name == "li":
        return plain(block, skip=LISTS)
    text, start, end = _marked(block, link)
    return _sentence(text, start, end)


def _row_text(cell: LexborNode) -> str:
    """`row (column): cell` for a cell after the first; the row's cells for the first."""
    row = cell.parent
    if row is None or (row.tag or "").lower() != "tr":
        return plain(cell)
    cells = [c for c in _children(row) if (c.tag or "").lower() in ("td", "th")]
    index = next(i for i, c in enumerate(cells) if c.mem_id == cell.mem_id)
    texts = [plain(c) for c in cells]
    if index == 0:
        rest = "; ".join(t for t in texts[1:] if t)
        return f"{texts[0]}: {rest}" if rest else texts[0]
    header = _header_of(row, index)
    head = texts[0]
    if header and head:
        return f"{head} ({header}): {texts[index]}"
    return f"{head}: {texts[index]}" if head else texts[index]


def _header_of(row: LexborNode, index: int) -> str | None:
    """The text of column `index`'s header: the table's first row's, if it is not `row`."""
    table = row.parent
    while table is not None and (table.tag or "").lower() != "table":
        table = table.parent
    first = table.css_first("tr") if table is not None else None
    if first is None or first.mem_id == row.mem_id:
        return None
    cells = [c for c in _children(first) if (c.tag or "").lower() in ("td", "th")]
    return plain(cells[index]) or None if index < len(cells) else None


def _children(node: LexborNode) -> list[LexborNode]:
    out = []
    child = node.child
    while child is not None:
        out.append(child)
        child = child.next
    return out


def plain(node: LexborNode, skip: frozenset[str] = frozenset()) -> str:
    text, _, _ = _marked(node, None, skip)
    return text


def _marked(
    root: LexborNode, target: LexborNode | None, skip: frozenset[str] = frozenset()
) -> tuple[str, int, int]:
    """The visible text of `root` on one line, and where `target`'s text starts and ends."""
    out: list[str] = []
    stack: list[LexborNode | str] = [root]
    wanted = target.mem_id if target is not None else None
    while stack:
        node = stack.pop()
        if isinstance(node, str):
            out.append(node)
            continue
        tag = node.tag or ""
        if tag == TEXT:
            out.append(_CONTROL.sub(" ", node.text_content or ""))
            continue
        if tag.startswith("-") and tag != "-document":
            continue  # comments, doctypes
        name = tag.lower()
        if node is not root and (name in skip or hidden(node, name)):
            continue
        if name == "img":
            out.append(f" {node.attributes.get('alt') or ''} ")
            continue
        if name == "br" or (name in _BLOCK_NAMES and node is not root):
            out.append(" ")
        if wanted is not None and node.mem_id == wanted:
            out.append(_START)
            stack.append(_END)
        children = _children(node)
        stack.extend(reversed(children))
    joined = _SPACE.sub(" ", "".join(out)).strip()
    # A marker between spaces leaves one space on each side: fold them into one.
    joined = joined.replace(f" {_START} ", f" {_START}").replace(f" {_END} ", f"{_END} ")
    start = joined.find(_START)
    joined = joined.replace(_START, "")
    end = joined.find(_END)
    joined = joined.replace(_END, "")
    return joined.strip(), max(start, 0), max(end, start, 0)


def _sentence(text: str, start: int, end: int) -> str:
    """The sentence of `text` that holds [start, end); a link standing alone after a
    sentence (`… licensed. [source](…)`) belongs to the sentence before it."""
    bounds = [0]
    for found in _SENTENCE_END.finditer(text):
        before = text[: found.start(1)].rsplit(None, 1)[-1].lower() if found.start(1) else ""
        if before in _ABBREVIATIONS or (len(before) == 1 and before.isalpha()):
            continue
        bounds.append(found.end())
    bounds.append(len(text) + 1)
    first = max(i for i, b in enumerate(bounds[:-1]) if b <= start)
    last = max(i for i, b in enumerate(bounds[:-1]) if b <= max(end - 1, start))
    link = text[start:end].strip(" .,;:!?()[]")
    alone = text[bounds[first] : bounds[first + 1]].strip(" .,;:!?()[]")
    if first > 0 and alone == link:
        first -= 1
    return text[bounds[first] : bounds[last + 1]].strip()


# -- ids ------------------------------------------------------------------------------------


def slug(text: str) -> str:
    return "-".join(_WORD.findall(text.lower()))


def derived_id(page: str, source: str, anchor: Anchor) -> str:
    """`<page>-<the quote's first words>-<6 hex>`, from the page, source and quote alone."""
    key = "\n".join(
        [source, anchor.prefix or "", anchor.quote, anchor.quote_end or "", anchor.suffix or ""]
    )
    digest = hashlib.sha256(key.encode("utf-8")).hexdigest()[:6]
    words = "-".join(_WORD.findall(normalize_text(anchor.quote).lower())[:_WORD_LIMIT])[
        :_WORDS_CHARS
    ]
    parts = [page[:_PAGE_CHARS].rstrip("-."), words.strip("-"), digest]
    return "-".join(part for part in parts if part)


def anchor_problem(anchor: Anchor) -> str | None:
    """The claim file's rules for a text fragment's text: no control character, visible."""
    for role in ("quote", "quote_end", "prefix", "suffix"):
        value = getattr(anchor, role)
        if value is None:
            continue
        problem = bad_character(value)
        if problem is None and not normalize_text(value):
            problem = "it decodes to no visible text (only whitespace or invisible characters)"
        if problem is not None:
            return f"the text fragment's {role}: {problem}"
    return None
