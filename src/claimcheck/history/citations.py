"""Citations of the claims whose quote holds: the live link and the version that was checked.

A reader who follows a claim's link sees the page as it is today; an editor who wants
readers to see what was checked links the version itself. Every result whose quote
holds gets a `Citation`: the text-fragment link to the live page (built from the claim
alone, no request) and, when the store knows which fixed version the checked snapshot
is (`Store.origin_of`: a commit of a forge's file, or a Wayback capture), the permanent
link to it, on a forge with the quote's lines selected (`Forge.permalink`).

Which version a snapshot is gets learnt once, by history (a backfilled baseline is a
commit or a capture) or by asking (`online.learn_origins`, used by `cite` and
`verify --cite`), and is kept in the source's index by the body's SHA-256, so later
runs cite it with no request at all.
"""

from __future__ import annotations

import datetime as dt
import functools
import re
import sys
from collections.abc import Sequence
from dataclasses import dataclass, field
from urllib.parse import quote

from pydantic import ValidationError

from claimcheck import forges
from claimcheck.cache.kept import Kept
from claimcheck.cache.keys import code_version, entry_key
from claimcheck.cache.verdicts import judge_version
from claimcheck.claims import fragment
from claimcheck.claims.fragment import FragmentError, build_text_fragment
from claimcheck.config import Config
from claimcheck.forges.registry import forge_of
from claimcheck.forges.resolve import source_ref
from claimcheck.judge.extract import MARKDOWN_MEDIA
from claimcheck.judge.permalink import at_pdf_page, quote_pdf_page
from claimcheck.judge.permalink import quote_lines as lines_of
from claimcheck.judge.verdict import read_page_cached
from claimcheck.models import (
    Anchor,
    ArchivedCopy,
    Citation,
    ClaimResult,
    MediaType,
    Snapshot,
    SourceRef,
    Verdict,
)
from claimcheck.page import Page
from claimcheck.store.store import Store

QUOTE_HOLDS = frozenset({Verdict.VERIFIED, Verdict.MOVED, Verdict.CONTEXT_CHANGED, Verdict.EXPIRED})
"""The verdicts whose quote is on the checked snapshot: what can be cited."""

LEARN_LIMIT = 50
"""At most this many snapshots are asked about per `verify --cite` run (two or three
requests each), so a large claim set cannot spend a rate limit on citations."""


LINES_FILE = "lines.json"
"""Where the lines each quote stands on in a stored README are kept between runs."""

CITATIONS_FILE = "citations.json"
"""Where each citation is kept between runs, by everything it is made from."""

ARCHIVED_NOTE = "archived"
"""The history note that holds a source's last capture `claimcheck archive` made."""
ARCHIVED_AT_NOTE = "archived_at"
"""The history note that holds when that capture was made (ISO 8601, UTC)."""


@functools.cache
def citation_version() -> str:
    """A digest of the code a citation is made by besides the judge's: this module, the
    forges' modules (their permanent links) and the text fragments."""
    return f"{judge_version()}-{code_version((sys.modules[__name__], forges, fragment))}"


@dataclass
class Citer:
    """Cites results against one store. A quote's lines are found in the units of the
    page's reading (`Store.page`: the run's, or the one kept in the cache), and kept
    from run to run (`cache.kept`) by the body and the anchor, so that a night in
    which nothing changed loads no cited page at all."""

    store: Store
    config: Config
    _pages: dict[str, Page] = field(default_factory=dict)
    _bodies: dict[str, str] = field(default_factory=dict)  # of held pages, once needed
    _refs: dict[tuple[str, str | None], SourceRef] = field(default_factory=dict)
    _settled: dict[int, tuple[ClaimResult, int]] = field(default_factory=dict)
    """Results cited as their source settled (`cite_settled`), by identity, with what the
    store said then of everything else a citation is made from."""
    _lines: Kept = field(init=False)
    _citations: Kept = field(init=False)

    def __post_init__(self) -> None:
        self._lines = Kept(self.store.root, LINES_FILE, judge_version())
        self._citations = Kept(self.store.root, CITATIONS_FILE, citation_version())

    def save(self) -> None:
        """Keep the lines and the citations made this run for the next one."""
        self._lines.save()
        self._citations.save()

    def place(self, result: ClaimResult) -> None:
        """Find and keep the lines of a result's quotes (and its parts') while their
        pages are at hand: a run calls this as it judges, page by page, before the page
        is freed, so that citing afterwards loads no page again. Only for a page the run
        holds (a kept verdict reads none, and its lines are most likely kept too) of a
        snapshot known to be a commit's file (the lines of any other go in no link)."""
        for part in result.parts:
            self.place(part)
        snapshot = result.snapshot
        if result.verdict not in QUOTE_HOLDS or snapshot is None or result.claim.anchor is None:
            return
        if not self.store.pages.holds(snapshot.sha256, snapshot.media):
            return
        origin = self.store.origin_of(snapshot)
        if origin is not None and origin.startswith("commit "):
            self._quote_lines(snapshot, result, placing=True)

    def cite_settled(self, result: ClaimResult) -> ClaimResult:
        """The result cited now, as its source settles in the fetch and its page is at
        hand (`judging.JudgedAsSettled`), rather than after the last answer: the wait
        for the other answers does the work. `cite_all` keeps this citation unless the
        store has learnt since what a citation is made from (which version the body is,
        a history note, another version): then it is made again, as it would have been."""
        cited = self.cite_one(result)
        if cited is not result:
            self._settled[id(cited)] = (cited, self._store_terms(cited))
        return cited

    def let_go(self) -> None:
        """Hold no page any more: its source's results are cited (`cite_settled`), and
        a run that fetches must not keep every page it cited until the end."""
        self._drop()

    def _store_terms(self, result: ClaimResult) -> int:
        """What the store says of a result's source besides the result, as a number
        that changes whenever the store learns something of it (`Store.edits`): a
        citation's origin, history notes and version dates are all in its record."""
        snapshot = result.snapshot
        return -1 if snapshot is None else self.store.edits(snapshot.key)

    def cite_all(self, results: list[ClaimResult]) -> list[ClaimResult]:
        """Every result (and every part of one) with its citation; others unchanged.

        The list is cited in place and returned: each result is replaced by its cited
        form as it is made, so a run never holds both forms of all its results. A
        body's page is freed once no later result stands on it, so the run holds a few
        pages at a time, not every cited one. A result cited as its source settled
        (`cite_settled`) is kept as it is when the store says the same as then.
        """
        self._drop()  # the last page `place` read
        stands = [_snapshots_of(result) for result in results]
        last_use = {page: n for n, pages in enumerate(stands) for page in pages}
        settled, self._settled = self._settled, {}
        for n, result in enumerate(results):
            early = settled.pop(id(result), None)  # held there, so its id is its own
            if early is None:
                results[n] = self.cite_one(result)
            elif early[1] != self._store_terms(result):
                results[n] = self.cite_one(result.model_copy(update={"citation": None}))
            for sha, media in stands[n]:
                if last_use[sha, media] == n and self._drop(sha):
                    self.store.pages.forget(sha, media)
        return results

    def cite_one(self, result: ClaimResult) -> ClaimResult:
        """The result with its citation and its parts' (a claim on several sources)."""
        parts = tuple(self.cite_one(part) for part in result.parts)
        citation = self.citation(result)
        if citation is None and not parts:
            return result
        return result.model_copy(update={"citation": citation, "parts": parts})

    def citation(self, result: ClaimResult) -> Citation | None:
        """How to cite the result's claim, or None when its quote does not hold now.

        Kept from run to run under a digest of all it is made from: the claim's source
        and anchor, where the result moved to, the source as resolved (the config's
        forges decide it), the snapshot's body, the version the store knows it is and
        the README's path. Most nights every citation is the one made the night before.
        """
        claim, snapshot = result.claim, result.snapshot
        if result.verdict not in QUOTE_HOLDS or snapshot is None:
            return None
        if claim.source is not None and claim.field is not None:
            return self._field_citation(result, claim.source, claim.field.path, snapshot)
        if claim.source is None or claim.anchor is None:
            return None  # an absence claim holds, but there is no quote to point at
        anchor = claim.anchor
        ref = self.ref_of(result)
        origin = self.store.origin_of(snapshot)
        notes = self.store.history_notes(snapshot.key)
        readme_path = notes.get("readme_path")
        terms: tuple[str | None, ...] = (claim.source, result.moved_to, anchor.quote)
        terms += (anchor.quote_end, anchor.prefix, anchor.suffix, claim.scope)
        terms += (ref.kind.value, ref.url, ref.key, snapshot.sha256)
        terms += (snapshot.media.value, snapshot.key, origin, readme_path)
        terms += (notes.get(ARCHIVED_NOTE), notes.get(ARCHIVED_AT_NOTE))
        key = entry_key(*terms)
        kept = self._citations.get(key)
        if isinstance(kept, dict):
            try:
                citation = Citation.model_validate(kept) if kept else None
            except ValidationError:
                pass  # not a citation: made again
            else:
                if snapshot.media in MARKDOWN_MEDIA:  # its lines stay kept with it
                    self._lines.get(_lines_key(snapshot, anchor, claim.scope))
                return citation
        citation = self._made(result, claim.source, anchor, snapshot, ref, origin)
        archived = recorded_capture(notes)
        if citation is not None and archived is not None:
            if citation.page is not None:  # a PDF's capture opens at the quote's page too
                archived = archived.model_copy(
                    update={"url": at_pdf_page(archived.url, citation.page)}
                )
            citation = citation.model_copy(update={"archived": archived})
        self._citations.put(key, citation.model_dump(mode="json") if citation else {})
        return citation

    def _made(
        self,
        result: ClaimResult,
        source: str,
        anchor: Anchor,
        snapshot: Snapshot,
        ref: SourceRef,
        origin: str | None,
    ) -> Citation | None:
        """The citation made afresh (see `citation`)."""
        page = None
        if snapshot.media is MediaType.PDF:  # no viewer opens a PDF at a text fragment
            page = quote_pdf_page(self._page(snapshot, result.claim.scope), anchor)
            if page is None:
                return None
            live = at_pdf_page(result.moved_to or source, page)
        else:
            try:
                live = build_text_fragment(
                    result.moved_to or source, anchor.quote, anchor.prefix, anchor.suffix
                )
            except (FragmentError, UnicodeEncodeError):
                return None
        if origin is None:
            return Citation(live=live, page=page)
        permalink, lines = self._fixed(ref, snapshot, origin, result)
        if permalink is not None and page is not None:
            permalink = at_pdf_page(permalink, page)
        day, dated = version_date(self.store, snapshot, origin)
        return Citation(
            live=live,
            permalink=permalink,
            lines=lines,
            version=origin,
            version_date=day,
            dated=dated,
            page=page,
        )

    def _field_citation(
        self, result: ClaimResult, source: str, path: str, snapshot: Snapshot
    ) -> Citation:
        """How to cite a claim on a field that holds: the source (a JSON document's with
        the field's pointer as its fragment, RFC 6901's URI form) and the version checked
        (a commit's file, a capture), as a quote's but without lines. Cheap: not kept."""
        live = result.moved_to or source
        if path.startswith("/") and snapshot.media is MediaType.JSON:
            live = f"{live.split('#', 1)[0]}#{quote(path, safe='/~')}"
        origin = self.store.origin_of(snapshot)
        if origin is None:
            return Citation(live=live)
        permalink, _ = self._fixed(self.ref_of(result), snapshot, origin, result)
        day, dated = version_date(self.store, snapshot, origin)
        return Citation(
            live=live, permalink=permalink, version=origin, version_date=day, dated=dated
        )

    def ref_of(self, result: ClaimResult) -> SourceRef:
        """The source as fetched: where it moved to, if it did. Asked once per source
        and move (the config, which decides it, is the Citer's for its life)."""
        asked = (result.claim.source or "", result.moved_to)
        found = self._refs.get(asked)
        if found is None:
            found = self._refs[asked] = self._resolved(*asked)
        return found

    def _resolved(self, source: str, moved_to: str | None) -> SourceRef:
        ref = source_ref(moved_to or source, self.config)
        if moved_to and forge_of(ref) is None:
            return source_ref(source, self.config)  # a page that redirects: cite as claimed
        return ref

    def _fixed(
        self, ref: SourceRef, snapshot: Snapshot, origin: str, result: ClaimResult
    ) -> tuple[str | None, tuple[int, int] | None]:
        kind, _, value = origin.partition(" ")
        if kind == "wayback" and value:
            return value, None
        if kind != "commit" or not value:
            return None, None
        forge = forge_of(ref)
        if forge is None:
            return None, None
        path = forge.named_path(ref) or self.store.history_notes(snapshot.key).get("readme_path")
        if not path:
            return None, None  # the README's path in its repository is not known yet
        lines = self._quote_lines(snapshot, result) if result.claim.anchor is not None else None
        return forge.permalink(ref, value, path, lines), lines

    def _quote_lines(
        self, snapshot: Snapshot, result: ClaimResult, *, placing: bool = False
    ) -> tuple[int, int] | None:
        if snapshot.media not in MARKDOWN_MEDIA:
            return None
        claim = result.claim
        assert claim.anchor is not None
        key = _lines_key(snapshot, claim.anchor, claim.scope)
        kept = self._lines.get(key)
        if isinstance(kept, list):
            return (kept[0], kept[1]) if len(kept) == 2 else None  # [] : on no line
        if placing and not self._holds(snapshot.sha256):
            self._drop()  # judging goes page by page: one page held
        page = self._page(snapshot, claim.scope)
        # The file itself, for a quote in raw HTML (read only then, once while its page
        # is held); for a scoped claim, with the page read whole to place it in.
        markdown = functools.partial(self._body, snapshot)
        whole = None if claim.scope is None else functools.partial(self._page, snapshot, None)
        found = lines_of(page, claim.anchor, markdown, whole)
        self._lines.put(key, list(found) if found else [])
        return found

    def _page(self, snapshot: Snapshot, scope: str | None) -> Page:
        """The page the claim's quote was judged on: the stored version's, held while
        its results are cited, or the part of it the claim's scope selects."""
        if scope is not None:
            return read_page_cached(self._body(snapshot), snapshot.media, scope)
        page = self._pages.get(snapshot.sha256)
        if page is None:
            page = self._pages[snapshot.sha256] = self.store.page(snapshot)
        return page

    def _holds(self, sha256: str) -> bool:
        """Whether the page or the file of the stored body `sha256` is held."""
        return sha256 in self._pages or sha256 in self._bodies

    def _body(self, snapshot: Snapshot) -> str:
        """The text of the stored file whose results are being cited, read once for all
        the quotes on it that need it (a scoped part of its page, raw HTML's lines)."""
        body = self._bodies.get(snapshot.sha256)
        if body is None:
            body = self._bodies[snapshot.sha256] = self.store.read_body(snapshot)
        return body

    def _drop(self, sha256: str | None = None) -> bool:
        """Let go of one held page (and its file's text), or of all; whether one was held."""
        if sha256 is None:
            self._pages.clear()
            self._bodies.clear()
            return True
        self._bodies.pop(sha256, None)
        return self._pages.pop(sha256, None) is not None


def _lines_key(snapshot: Snapshot, anchor: Anchor, scope: str | None) -> str:
    """Where the lines of a quote in a stored body are kept (`LINES_FILE`)."""
    terms = (snapshot.sha256, anchor.quote, anchor.quote_end, anchor.prefix, anchor.suffix)
    return entry_key(*terms, scope)


def _snapshots_of(result: ClaimResult) -> list[tuple[str, MediaType]]:
    """The pages a result (and its parts) stands on: each body's SHA-256 and medium."""
    snapshot = result.snapshot
    found = [(snapshot.sha256, snapshot.media)] if snapshot is not None else []
    return found + [page for part in result.parts for page in _snapshots_of(part)]


def version_date(store: Store, snapshot: Snapshot, origin: str | None) -> tuple[dt.date, bool]:
    """The date a cited version is labelled by, and whether it is the version's own.

    A version's own date is the one history gave it when it stored it (a commit's, a
    Wayback capture's), else the commit's date noted when the version was learnt
    (`learn_origins`), else a capture's from its address. Without one, the day the store
    first held the same body: never the day of a later fetch of an unchanged body, nor
    the claim's check date.
    """
    versions = store.versions(snapshot.key)
    if origin is not None:
        dated = [v.fetched_at for v in versions if v.origin == origin]
        if dated:
            return min(dated).astimezone(dt.UTC).date(), True
        noted = store.history_notes(snapshot.key).get(dated_note(origin))
        if noted is not None:
            return dt.datetime.fromisoformat(noted).astimezone(dt.UTC).date(), True
        kind, _, value = origin.partition(" ")
        captured = re.search(r"/web/(\d{8})", value) if kind == "wayback" else None
        if captured is not None:
            return dt.datetime.strptime(captured[1], "%Y%m%d").replace(tzinfo=dt.UTC).date(), True
    seen = [v.fetched_at for v in versions if v.sha256 == snapshot.sha256]
    return min(seen, default=snapshot.fetched_at).astimezone(dt.UTC).date(), False


def recorded_capture(notes: dict[str, str]) -> ArchivedCopy | None:
    """The capture `claimcheck archive` recorded in a source's history notes, if any."""
    url, when = notes.get(ARCHIVED_NOTE), notes.get(ARCHIVED_AT_NOTE)
    if not url or not when:
        return None
    try:
        captured = dt.datetime.fromisoformat(when)
    except ValueError:
        return None
    if captured.tzinfo is None:
        captured = captured.replace(tzinfo=dt.UTC)
    return ArchivedCopy(url=url, captured=captured)


def dated_note(origin: str) -> str:
    """The history note that holds the date of a version learnt by asking."""
    return f"date of {origin}"


def utc_iso(when: dt.datetime) -> str:
    """A moment as a history note holds it: ISO 8601, in UTC."""
    return when.astimezone(dt.UTC).isoformat()


def uncited(results: Sequence[ClaimResult], store: Store) -> list[ClaimResult]:
    """The results (parts included) whose quote holds but whose version is not known."""
    found: list[ClaimResult] = []
    for result in results:
        found += uncited(result.parts, store)
        snapshot, holds = result.snapshot, result.verdict in QUOTE_HOLDS
        if holds and snapshot is not None and result.claim.anchor:
            found += [result] if store.origin_of(snapshot) is None else []
    return found
