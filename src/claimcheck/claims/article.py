"""Read a published article (Markdown or HTML) as a claim file: its highlight links are its claims.

A link whose URL carries a text directive (`#:~:text=…`, as a browser's "Copy link to
highlight" writes it) is a claim: its source is the link, its quote the directive, its
claim text what the article says around the link, its line the link's own. Links without
a text directive, and links in code, are not claims. The rules, each documented in
docs/claim-files.md ("Articles as claim files"):

- claim text: the sentence that holds the link; in a table cell, the row's first cell,
  the column's header and the cell (`row (column): cell`); in a list item, the item's
  own text (not its nested lists); always the plain text a reader sees, one line.
- check date, the first found: the link's own (`<!-- checked: YYYY-MM-DD -->` right
  after it, or `data-checked` on the `<a>`); its block's (paragraph, list item, table
  cell, heading): a `<time datetime>` in it, else a "checked" line in it; the nearest
  "checked" line before it in its section (no heading between them); the article's
  (front matter `checked:` in Markdown, `<meta name="claimcheck:checked" content>` in
  HTML). A "checked" line is prose as the desk writes it: `Checked 2026-10-20.`,
  `(checked 2026-10-20)`, `Sources checked on 2026-10-20`, `2026-10-20 확인.`,
  `확인일: 2026-10-20`; one that names two dates in a sentence is refused.
- id: the link's own (`<!-- claim: ID -->` right after it, or `data-claim-id` on the
  `<a>`), else derived from the page, the source and the quote alone, so that editing
  any other text of the article never changes it.
- page: front matter `page:` (`<meta name="claimcheck:page">`), else the file's name;
  title: front matter `title:` (`<title>`), else the first heading.

The anchor comes from the link by `split_text_fragment`, as it does for a claim file's
`source`, and each claim is checked by the claim file's own rules (`ClaimEntry`), so an
article and the claim file `claimcheck extract` writes from it read as the same claims.
Like `parse_claims`, reading is pure and reports every problem at once, by line. What
the reading asks of the HTML itself (blocks, tables, sentences, prose dates, derived
ids) is `claims.article_html`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections import Counter
from dataclasses import dataclass
from html import escape
from urllib.parse import unquote

from pydantic import ValidationError
from selectolax.lexbor import LexborHTMLParser, LexborNode

from claimcheck.claims.article_html import (
    HEADINGS,
    LISTS,
    NO_PROSE,
    PROSE_BLOCKS,
    Prose,
    anchor_problem,
    article_title,
    block_of,
    claim_text,
    derived_id,
    in_code,
    plain,
    prose_checked,
    slug,
    source_lines,
)
from claimcheck.claims.fragment import FragmentError, split_text_fragment
from claimcheck.claims.problems import error_message
from claimcheck.claims.schema import MAX_ID_LENGTH, MODELINE, ClaimEntry
from claimcheck.claims.yaml_values import Map, ReadDocument, ReadError, UnmarkedError
from claimcheck.errors import ClaimFileError
from claimcheck.judge.extract import TEXT
from claimcheck.judge.gfm import SOURCEPOS, UNSAFE, gfm_to_html
from claimcheck.models import Claim, MediaType
from claimcheck.utf8 import NotUtf8Error

MAX_ARTICLE_BYTES = 2 * 1024 * 1024
"""The largest article read (2 MiB): pages are larger than claim files, not this large."""

MARKDOWN_SUFFIXES = (".md", ".markdown")
HTML_SUFFIXES = (".html", ".htm")

_ID = re.compile(r"[A-Za-z0-9][A-Za-z0-9._-]*")
_DATE = re.compile(r"([0-9]{4}-[0-9]{2}-[0-9]{2})(?:[T ].*)?", re.S)
_DATE_SLACK = dt.timedelta(days=1)
_FRONT_MATTER = re.compile(
    r"\A(?:\ufeff)?---[ \t]*\r?\n(.*?)^(?:---|\.\.\.)[ \t]*(?:\r?\n|\Z)", re.S | re.M
)
_SETTING = re.compile(r"\s*(claim|checked)\s*:", re.I)


ARTICLE_HINT = (
    'fix the lines above; "Articles as claim files" in docs/claim-files.md says how an'
    " article's links are read as claims"
)


def not_utf8_article(name: str, error: NotUtf8Error) -> str:
    """An article's byte that is not UTF-8, at its line (an article has no fields)."""
    return f"{name}:{error.line}: file: {error}"


class ArticleError(ClaimFileError):
    """One or more articles cannot be read as claims; every problem names file and line.

    A claim file's errors point at the claim-file schema, which says nothing about an
    article: its claims are links, and its problems are fixed in its links and prose,
    so its errors point at how those are read.
    """

    hint = ARTICLE_HINT


@dataclass(frozen=True)
class Article:
    """An article read as a claim file: its page, title, default check date and claims."""

    name: str
    page: str
    title: str | None
    checked: dt.date | None
    claims: list[Claim]
    links: list[str]
    """The link each claim was read from (its source with its text fragment)."""


def article_media(name: str) -> MediaType | None:
    """How a file is read as an article, from its name: Markdown, HTML, or not an article."""
    lower = name.lower()
    if lower.endswith(MARKDOWN_SUFFIXES):
        return MediaType.MARKDOWN
    if lower.endswith(HTML_SUFFIXES):
        return MediaType.HTML
    return None


def article_too_large(name: str, size: int) -> str | None:
    """The problem of an article of `size` bytes, when it is over the limit."""
    if size <= MAX_ARTICLE_BYTES:
        return None
    return (
        f"{name}:1: file: {size:,} bytes, more than the {MAX_ARTICLE_BYTES:,} bytes"
        f" ({MAX_ARTICLE_BYTES // 1024 // 1024} MiB) an article may hold"
    )


def parse_article(
    name: str, text: str, media: MediaType, *, read: ReadDocument, today: dt.date | None = None
) -> list[Claim]:
    """The claims of one article; raise ArticleError listing every problem, by line."""
    return read_article(name, text, media, read=read, today=today).claims


def read_article(
    name: str, text: str, media: MediaType, *, read: ReadDocument, today: dt.date | None = None
) -> Article:
    """The article as a claim file (`Article`); raise ArticleError listing every problem.

    `read` reads the YAML of its front matter (`yaml_read.read_document`)."""
    too_large = article_too_large(name, len(text.encode("utf-8", "replace")))
    if too_large is not None:
        raise ArticleError([too_large])
    latest = (today or dt.datetime.now(dt.UTC).date()) + _DATE_SLACK
    reader = _Reader(name, text, media, latest, read)
    article = reader.read()
    if reader.problems:
        reader.problems.sort(key=lambda problem: problem[0])  # stable within a line
        raise ArticleError([problem for _, problem in reader.problems])
    return article


def claim_file_text(article: Article) -> str:
    """The claim file (YAML, with the schema's modeline) equivalent to the article.

    Each source keeps its text fragment, so the claim file's `source` is the article's
    link; the file's `checked` is the article's date (else the one most claims carry),
    and a claim checked on another day says so.
    """
    dates = Counter(claim.checked for claim in article.claims)
    default = article.checked or (dates.most_common(1)[0][0] if dates else None)
    lines = [MODELINE, f"# The claims of {article.name}, as `claimcheck extract` reads them."]
    lines.append(f"page: {_scalar(article.page)}")
    if article.title:
        lines.append(f"title: {_scalar(article.title)}")
    if default is not None:
        lines.append(f"checked: {default.isoformat()}")
    lines.append("claims:" if article.claims else "claims: []")
    for claim, link in zip(article.claims, article.links, strict=True):
        lines.append(f"  - id: {_scalar(claim.id)}")
        lines.append(f"    claim: {_scalar(claim.claim)}")
        lines.append(f"    source: {_scalar(link)}")
        if claim.checked != default:
            lines.append(f"    checked: {claim.checked.isoformat()}")
    return "\n".join(lines) + "\n"


def _scalar(value: str) -> str:
    """A YAML scalar for `value`: plain when it is an id-like word, else double-quoted.

    JSON's string syntax is YAML's double-quoted one; every character a claim may hold
    (`bad_character` leaves none of the others) is written as it is.
    """
    if _ID.fullmatch(value) and value[0].isalpha() and value.lower() not in _YAML_WORDS:
        return value
    return json.dumps(value, ensure_ascii=False)


_YAML_WORDS = frozenset({"true", "false", "null", "yes", "no", "on", "off", "y", "n"})


class _Reader:
    """One article being read: its document, settings and the problems found."""

    def __init__(
        self, name: str, text: str, media: MediaType, latest: dt.date, read: ReadDocument
    ) -> None:
        self.name = name
        self.read_yaml = read
        self.text = text
        self.media = media
        self.latest = latest
        self.problems: list[tuple[int, str]] = []
        self.dated = False
        self.starts: list[int] | None = None
        """Whether the article gives a check date of its own (even one refused)."""
        self.prose: dict[int, Prose] = {}
        self.reported: set[tuple[int, str]] = set()
        self.dates: dict[tuple[int, str], dt.date | None] = {}
        """By node: the "checked" line of a prose block, or the one in force at a link."""

    def problem(self, line: int, claim_id: str | None, field: str, message: str) -> None:
        who = f"claim {claim_id!r}: " if claim_id is not None else ""
        self.problems.append((line, f"{self.name}:{line}: {who}{field}: {message}"))

    # -- the article's settings ---------------------------------------------------------

    def read(self) -> Article:
        settings: dict[str, tuple[str, int]] = {}
        body = self.text
        if self.media is MediaType.MARKDOWN:
            body, settings = self._front_matter(body)
            html = gfm_to_html(body, SOURCEPOS | UNSAFE)
            root = LexborHTMLParser("<body>" + html).root
        else:
            root = LexborHTMLParser(body).root
        if root is None:  # pragma: no cover - a document parse always has <html>
            raise ValueError("the HTML parser built no document")
        if self.media is MediaType.HTML:
            settings = self._meta(root)
        page = self._page(settings)
        title = (
            settings["title"][0].strip() if "title" in settings else article_title(root, self.media)
        )
        self.dated = "checked" in settings
        checked = (
            self._date(*settings["checked"], None, "checked") if "checked" in settings else None
        )
        self.prose = self._prose_dates(root)
        claims, links = self._claims(root, page, checked)
        return Article(
            name=self.name,
            page=page,
            title=title or None,
            checked=checked,
            claims=claims,
            links=links,
        )

    def _front_matter(self, text: str) -> tuple[str, dict[str, tuple[str, int]]]:
        """The Markdown with its front matter blanked (lines kept), and its settings."""
        found = _FRONT_MATTER.match(text)
        if found is None:
            return text, {}
        blanked = "\n" * text.count("\n", 0, found.end()) + text[found.end() :]
        offset = text.count("\n", 0, found.start(1))  # lines before the YAML (the `---`)
        try:  # only an article with front matter reads YAML
            document = self.read_yaml(found.group(1))
        except ReadError as exc:
            self.problem(exc.line + offset, None, "front matter", f"invalid YAML: {exc}")
            return blanked, {}
        except UnmarkedError as exc:
            self.problem(1, None, "front matter", f"invalid YAML: {exc}")
            return blanked, {}
        values = document.value
        if values is None:
            return blanked, {}
        if not isinstance(values, Map):
            self.problem(
                1, None, "front matter", "must be a mapping of keys (page, title, checked)"
            )
            return blanked, {}
        settings: dict[str, tuple[str, int]] = {}
        for key in ("page", "title", "checked"):
            if key not in values:
                continue
            line = document.key_line(values, key, 1) + offset
            value = values[key]
            if not isinstance(value, str) or not value.strip():
                self.problem(line, None, key, "must be text")
                continue
            settings[key] = (value, line)
        return blanked, settings

    def _meta(self, root: LexborNode) -> dict[str, tuple[str, int]]:
        """An HTML article's settings: `<meta name="claimcheck:page|checked">`."""
        settings: dict[str, tuple[str, int]] = {}
        for key in ("page", "checked"):
            meta = root.css_first(f'meta[name="claimcheck:{key}"]')
            content = (meta.attributes.get("content") or "") if meta is not None else None
            if content is not None:
                settings[key] = (content, self._line_of_text(f"claimcheck:{key}"))
        return settings

    def _line_of_text(self, needle: str) -> int:
        at = self.text.find(needle)
        return self.text.count("\n", 0, at) + 1 if at >= 0 else 1

    def _page(self, settings: dict[str, tuple[str, int]]) -> str:
        if "page" in settings:
            value, line = settings["page"]
            value = value.strip()
            if _ID.fullmatch(value) and len(value) <= MAX_ID_LENGTH:
                return value
            self.problem(
                line,
                None,
                "page",
                "must be letters, digits, '.', '_' and '-', starting with a letter or digit",
            )
        stem = self.name.replace("\\", "/").rsplit("/", 1)[-1]
        stem = stem.rsplit(".", 1)[0] if "." in stem else stem
        return slug(stem) or "article"

    def _date(self, value: str, line: int, claim_id: str | None, field: str) -> dt.date | None:
        found = _DATE.fullmatch(value.strip())
        try:
            date = dt.date.fromisoformat(found.group(1)) if found else None
        except ValueError:
            date = None
        if date is None:
            shown = value if len(value) <= 40 else value[:39] + "…"
            self.problem(line, claim_id, field, f"must be a date (YYYY-MM-DD), not {shown!r}")
            return None
        if date > self.latest:
            self.problem(
                line,
                claim_id,
                field,
                f"{date.isoformat()} is in the future (after {self.latest.isoformat()}); write"
                " the day the claim was checked",
            )
            return None
        return date

    # -- the links ----------------------------------------------------------------------

    def _claims(
        self, root: LexborNode, page: str, checked: dt.date | None
    ) -> tuple[list[Claim], list[str]]:
        claims: list[Claim] = []
        links: list[str] = []
        seen: dict[str, int] = {}
        undated: list[int] = []
        cursor = 0
        for link in root.css("a[href]"):
            href = (link.attributes.get("href") or "").strip()
            if ":~:" not in href or in_code(link):
                continue
            block = block_of(link)
            line, cursor = self._line_of(link, block, href, cursor)
            try:
                base, anchor = split_text_fragment(href)
            except FragmentError as exc:
                self.problem(line, None, "source", str(exc))
                continue
            if anchor is None:
                continue  # a fragment directive, but no text directive: not a claim
            explicit, own_checked = self._settings(link, line)
            claim_id = explicit or derived_id(page, base, anchor)
            own_dated = own_checked is not None
            own_date = self._date(own_checked, line, claim_id, "checked") if own_checked else None
            problem = anchor_problem(anchor)
            if problem is not None:
                self.problem(line, claim_id, "source", problem)
            text = claim_text(link, block)
            block_date, block_dated = self._block_date(block, line, claim_id)
            # Prose: a "checked" line in the link's block, else the nearest in its section.
            prose = self.prose.get(block.mem_id) or self.prose.get(link.mem_id) or NO_PROSE
            date = own_date or block_date or prose.date or checked
            # A date written but refused is reported as such, not as a missing one.
            dated = own_dated or block_dated or prose.dated or self.dated
            first = seen.get(claim_id)
            if first is not None:
                same = "" if explicit else " (the same source and quote)"
                self.problem(
                    line,
                    claim_id,
                    "id",
                    f"duplicate id, first defined at {self.name}:{first}{same}; give one of"
                    " the links its own id (`<!-- claim: ID -->` right after it)",
                )
                continue
            seen[claim_id] = line
            if date is None:
                if not dated:
                    undated.append(line)
                continue
            entry = self._entry(claim_id, text, href, date, line)
            if entry is None or problem is not None:
                continue
            claim = Claim(
                id=claim_id,
                page=page,
                claim=entry.claim.strip(),
                source=base,
                anchor=anchor,
                checked=date,
                file=self.name,
                line=line,
            )
            claims.append(claim)
            links.append(entry.source or href)
        if undated:
            others = len(undated) - 1
            more = f" (nor do {others} other link{'s' if others > 1 else ''})" if others else ""
            where = (
                "front matter `checked: YYYY-MM-DD`, or `<!-- checked: YYYY-MM-DD -->` right "
                "after the link"
                if self.media is MediaType.MARKDOWN
                else '`<meta name="claimcheck:checked" content="YYYY-MM-DD">`, or '
                '`data-checked="YYYY-MM-DD"` on the link'
            )
            self.problem(
                undated[0],
                None,
                "checked",
                f"this link has no check date{more}: give the article one ({where})",
            )
        return claims, links

    def _entry(
        self, claim_id: str, text: str, href: str, date: dt.date, line: int
    ) -> ClaimEntry | None:
        """The claim checked by the claim file's rules; None (and its problems) if refused."""
        data = {"id": claim_id, "claim": text, "source": href, "checked": date.isoformat()}
        try:
            return ClaimEntry.model_validate(data, context={"latest": self.latest, "urls": {}})
        except ValidationError as exc:
            for details in exc.errors():
                field = ".".join(str(part) for part in details["loc"]) or "claim"
                self.problem(line, claim_id, field, error_message(details))
            return None

    def _settings(self, link: LexborNode, line: int) -> tuple[str | None, str | None]:
        """The link's own id and check date: its `data-*` attributes or the comments after it."""
        values: dict[str, str] = {}
        for key, attribute in (("claim", "data-claim-id"), ("checked", "data-checked")):
            given = link.attributes.get(attribute)
            if given is not None:
                values[key] = given
        node = link.next
        while node is not None:
            if node.tag == TEXT and not (node.text_content or "").strip():
                node = node.next
                continue
            if not node.is_comment_node:
                break
            content = node.comment_content or ""
            if _SETTING.match(content):
                for part in re.split(r"[;\n]", content):
                    if not part.strip():
                        continue
                    key, colon, value = part.partition(":")
                    key = key.strip().lower()
                    if not colon or key not in ("claim", "checked"):
                        self.problem(
                            line,
                            None,
                            "comment",
                            f"{part.strip()!r}: a link's comment sets `claim: ID` and"
                            " `checked: YYYY-MM-DD`, separated by `;`",
                        )
                        continue
                    if key in values and values[key] != value.strip():
                        self.problem(line, None, key, "given twice for this link")
                    values[key] = value.strip()
            node = node.next
        claim_id = values.get("claim")
        if claim_id is not None and not (
            _ID.fullmatch(claim_id) and len(claim_id) <= MAX_ID_LENGTH
        ):
            self.problem(
                line,
                claim_id,
                "id",
                "must be letters, digits, '.', '_' and '-', starting with a letter or digit",
            )
            claim_id = None
        return claim_id, values.get("checked")

    def _block_date(
        self, block: LexborNode, line: int, claim_id: str
    ) -> tuple[dt.date | None, bool]:
        """The date of the `<time datetime>` in the link's block, if there is one."""
        values = {t.attributes.get("datetime") or "" for t in block.css("time[datetime]")}
        dates = {found.group(1) for v in values if (found := _DATE.fullmatch(v.strip()))}
        if len(dates) > 1:
            self.problem(
                line,
                claim_id,
                "checked",
                f"the link's block has {len(dates)} dates (<time datetime>:"
                f" {', '.join(sorted(dates))}); give the link its own check date",
            )
            return None, True
        if not dates:
            return None, False
        return self._date(dates.pop(), line, claim_id, "checked"), True

    def _prose_dates(self, root: LexborNode) -> dict[int, Prose]:
        """The "checked" lines of the article, by the block that holds each, and the one
        in force at each link (the nearest before it with no heading between them).

        A line naming two dates in one sentence is a problem at its line (field
        `checked`): which one the links were checked on cannot be told.
        """
        found: dict[int, Prose] = {}
        section = NO_PROSE
        for node in root.traverse(include_text=False):
            name = (node.tag or "").lower()
            if name in HEADINGS:
                section = NO_PROSE
            elif name == "a":
                found[node.mem_id] = section
            elif name in PROSE_BLOCKS and not in_code(node):
                dates = prose_checked(plain(node, skip=LISTS))
                if dates:
                    section = found[node.mem_id] = self._prose_date(node, dates)
        return found

    def _prose_date(self, block: LexborNode, dates: list[str]) -> Prose:
        line = self._line_in(block, dates[0])
        if len(set(dates)) > 1:
            key = (line, "prose")
            if key not in self.reported:
                self.reported.add(key)
                self.problem(
                    line,
                    None,
                    "checked",
                    f'this "checked" line names {len(set(dates))} dates'
                    f" ({', '.join(sorted(set(dates)))}); write the one day its links were"
                    " checked",
                )
            return Prose(None, True)
        key = (line, dates[0])
        if key in self.reported:  # a list item and its paragraph: one line, one report
            return Prose(self.dates.get(key), True)
        self.reported.add(key)
        self.dates[key] = self._date(dates[0], line, None, "checked")
        return Prose(self.dates[key], True)

    def _line_in(self, block: LexborNode, needle: str) -> int:
        """The line of `needle` in a block (Markdown: within the block's lines)."""
        start, end = 0, len(self.text)
        lines = source_lines(block) if self.media is MediaType.MARKDOWN else None
        if lines is not None:
            start, end = self._line_start(lines[0]), self._line_start(lines[1] + 1)
        at = self.text.find(needle, start, end)
        if at < 0:
            return lines[0] if lines is not None else self._line_of_text(needle)
        return self.text.count("\n", 0, at) + 1

    def _line_of(
        self, link: LexborNode, block: LexborNode, href: str, cursor: int
    ) -> tuple[int, int]:
        """The link's line in the article, and where to look for the next link from.

        Markdown blocks carry their lines (`data-sourcepos`); the link is looked for in
        them as written (the renderer may have percent-encoded it), and is the block's
        first line when it cannot be found (a reference link). HTML is searched whole.
        """
        start, end = 0, len(self.text)
        first_line = 1
        if self.media is MediaType.MARKDOWN:
            lines = source_lines(link)
            if lines is not None:
                first_line = lines[0]
                start = self._line_start(lines[0])
                end = self._line_start(lines[1] + 1)
        variants = [href, escape(href, quote=True), unquote(href)]
        for origin in (max(start, cursor), start):
            for variant in variants:
                at = self.text.find(variant, origin, end)
                if at >= 0:
                    return self.text.count("\n", 0, at) + 1, at + len(variant)
        return first_line, cursor

    def _line_start(self, line: int) -> int:
        """Where line `line` (from 1) starts in the article; its end past the last line."""
        if self.starts is None:
            self.starts = [0, *(m.end() for m in re.finditer("\n", self.text))]
        return self.starts[line - 1] if 0 < line <= len(self.starts) else len(self.text)
