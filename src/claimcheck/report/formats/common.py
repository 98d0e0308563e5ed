"""What several formats share: severity levels, the claims needing attention, links, diffs.

Every format answers the same questions (how bad is this verdict, which claims need a
person, where does the source open at the quote, which words changed), so the answers
live here once and each format only decides how to show them.
"""

from __future__ import annotations

import re
from enum import StrEnum
from urllib.parse import quote, urlsplit

from claimcheck.claims.fragment import FragmentError, build_text_fragment
from claimcheck.judge.anchor import locate_anchor
from claimcheck.judge.change import Change, WordKind, change_of, parse_diff, runs, shown_diff
from claimcheck.models import (
    Anchor,
    Blame,
    Citation,
    Claim,
    ClaimResult,
    MediaType,
    Report,
    Verdict,
)
from claimcheck.untrusted import clean_text


class Level(StrEnum):
    """How loudly a verdict is reported, in the words GitHub annotations use.

    Stale claims are errors (they fail the gate); review verdicts are warnings; claims
    that could not be judged (unreachable, unverified) and moved sources are notices:
    a person may want to know, but nothing is known to be wrong.
    """

    ERROR = "error"
    WARNING = "warning"
    NOTICE = "notice"
    NONE = "none"


def level_of(verdict: Verdict) -> Level:
    """The reporting level of a verdict."""
    if verdict.is_stale:
        return Level.ERROR
    if verdict.needs_review:
        return Level.WARNING
    if verdict.is_unknown or verdict is Verdict.MOVED:
        return Level.NOTICE
    return Level.NONE


ATTENTION_LEVELS = (Level.ERROR, Level.WARNING, Level.NOTICE)


def needing_attention(report: Report) -> list[ClaimResult]:
    """Results a person should look at: stale first, then review, then notices.

    Within a level the claim-file order is kept, so a page's claims stay together. A
    review verdict a person acknowledged is not among them (`acknowledged_results`).
    """
    return [
        r
        for level in ATTENTION_LEVELS
        for r in report.results
        if level_of(r.verdict) is level and not r.quiet
    ]


def acknowledged_results(report: Report) -> list[ClaimResult]:
    """Review verdicts a person acknowledged, still as they were (`ClaimResult.quiet`):
    shown apart from those needing attention, in claim-file order."""
    return [r for r in report.results if r.quiet]


def acknowledgement_text(result: ClaimResult) -> str | None:
    """A result's acknowledgement in one plain line (raw: the note is a person's text,
    each format escapes it), or None without one: `acknowledged on 2026-12-06 by Ana:
    NOTE (until 2027-01-01)`, or for one that lapsed, why it no longer holds."""
    acknowledged = result.acknowledged
    if acknowledged is None:
        return None
    review = acknowledged.review
    by = f" by {review.by}" if review.by else ""
    said = f"acknowledged on {review.date.isoformat()}{by}: {review.note}"
    if not acknowledged.holds:
        return f"{said} (no longer holds: {acknowledged.lapsed})"
    return said + (f" (until {review.until.isoformat()})" if review.until else "")


def quote_text(claim: Claim) -> str | None:
    """The claim's quote as a reader would say it: `start … end` for a range."""
    if claim.anchor is None:
        return None
    if claim.anchor.quote_end:
        return f"{claim.anchor.quote} … {claim.anchor.quote_end}"
    return claim.anchor.quote


def field_values(result: ClaimResult) -> tuple[str, str, str | None, str | None] | None:
    """A claim on a field: its field, what the claim expects (its value, or `matches
    PATTERN`), the value on the check date (None: not known or not there) and now (None:
    not there). None for a claim on a quote."""
    field = result.claim.field
    if field is None:
        return None
    return field.path, field.expected, result.value_then, result.value_now


def absent_text(claim: Claim) -> str | None:
    """What an absence claim checks, as a reader would say it: “a” or “b”."""
    if not claim.absent:
        return None
    return " or ".join(f"“{text}”" for text in claim.absent)


def absent_said(result: ClaimResult) -> tuple[str, tuple[int, int]] | None:
    """For a contradicted absence claim: the absent text the page now says, and where it
    stands in the unit that says it (`found`), matched as the judge matches it."""
    if result.verdict is not Verdict.CONTRADICTED or not result.found:
        return None
    for absent in result.claim.absent:
        match = locate_anchor(Anchor(quote=absent), result.found, min_score=101.0)
        if match is not None:
            return absent, (match.start, match.end)
    return None


def text_now(result: ClaimResult) -> str | None:
    """The closest text on the page now, when it is not simply the quote again."""
    anchor = result.claim.anchor
    if not result.found or (anchor is not None and result.found == anchor.quote):
        return None
    return result.found


_URL_UNSAFE = re.compile(r"[^A-Za-z0-9\-._~:/?#\[\]@!$&'*+,;=%]")


def safe_url(url: str | None) -> str | None:
    """An http(s) URL with every character that could end a link or attribute escaped.

    Sources and redirect targets come from claim files and servers: anything but http
    and https (`javascript:`, `data:`) is refused, and spaces, quotes, brackets,
    parentheses and non-ASCII are percent-encoded, so the URL cannot break out of a
    Markdown link, an HTML attribute or a SARIF/annotation field.
    """
    if not url:
        return None
    try:
        parts = urlsplit(url)
    except ValueError:
        return None
    if parts.scheme.lower() not in ("http", "https") or not parts.netloc:
        return None
    try:
        return _URL_UNSAFE.sub(lambda m: quote(m.group(0), safe=""), url)
    except UnicodeEncodeError:  # a lone surrogate has no UTF-8 form to percent-encode
        return None


_QUOTE_HOLDS = frozenset(
    {Verdict.VERIFIED, Verdict.MOVED, Verdict.CONTEXT_CHANGED, Verdict.EXPIRED}
)


def source_link(result: ClaimResult) -> str | None:
    """The source URL (or where it moved) opening at the text, as a text-fragment link
    (a PDF's at the quote's page, `#page=N`, when its citation knows it).

    The fragment is built from the page's own characters: the text found on the page
    now when known, else the quote. Prefix and suffix are added only while the quote
    still holds, since a drifted text need not stand between them any more.
    """
    url = safe_url(result.moved_to) or safe_url(result.claim.source)
    if url is None or result.verdict is Verdict.SOURCE_GONE or result.claim.field is not None:
        return url  # a field's value is data, which no text fragment opens at
    if result.snapshot is not None and result.snapshot.media is MediaType.PDF:
        # A PDF viewer follows no text fragment: the PDF opens at the quote's page.
        cited = result.citation
        return (safe_url(cited.live) if cited and cited.page is not None else None) or url
    anchor = result.claim.anchor
    text = clean_text(result.found or "").strip() or clean_text(anchor.quote if anchor else "")
    if not text.strip():
        return url
    holds = anchor is not None and result.verdict in _QUOTE_HOLDS
    prefix = clean_text(anchor.prefix) if holds and anchor and anchor.prefix else None
    suffix = clean_text(anchor.suffix) if holds and anchor and anchor.suffix else None
    try:
        # The fragment leaves parentheses unescaped; safe_url escapes them for Markdown.
        return safe_url(build_text_fragment(url, text.strip(), prefix, suffix)) or url
    except (FragmentError, UnicodeEncodeError):
        return url


def citation_targets(result: ClaimResult) -> list[tuple[str, str]]:
    """The claim's citation as (label, URL) pairs: the live quote, then the version that
    was checked, with its lines, then the source's capture `archive` made. Empty:
    nothing to cite.

    Both URLs are built from a claim file's source and a repository's names and paths,
    so they go through `safe_url`; the labels are claimcheck's own words.
    """
    citation = result.citation
    live = safe_url(citation.live) if citation else None
    if citation is None or live is None:
        return []
    on_page = f", page {citation.page}" if citation.page is not None else ""
    targets = [("live" + on_page, live)]
    fixed = safe_url(citation.permalink)
    if fixed is not None:
        where = on_page
        if citation.lines is not None:
            first, last = citation.lines
            where = f", line {first}" if first == last else f", lines {first}–{last}"
        targets.append((version_label(citation) + where, fixed))
    archived = safe_url(citation.archived.url) if citation.archived is not None else None
    if archived is not None and citation.archived is not None and archived != fixed:
        targets.append((f"archived {citation.archived.captured.date().isoformat()}", archived))
    return targets


def version_label(citation: Citation) -> str:
    """What a cited version is called: by its own date (`version of 2024-01-31`), else by
    the day the store first held it, as `claimcheck cite` labels it."""
    if citation.version_date is None:
        return "as checked"  # a report of an older claimcheck
    if citation.dated:
        return f"version of {citation.version_date.isoformat()}"
    return f"as fetched on {citation.version_date.isoformat()}"


def cited_results(result: ClaimResult) -> list[tuple[int | None, ClaimResult]]:
    """The results whose citations a claim carries: its own, or, for a claim on several
    sources, each part's, numbered from 1."""
    if not result.parts:
        return [(None, result)]
    return list(enumerate(result.parts, 1))


def evidence(result: ClaimResult) -> list[tuple[str, str]]:
    """The facts behind a verdict as (label, text) pairs, for the plain-text formats.

    The texts are raw (third-party text included): each format escapes or shortens
    them as its medium requires.
    """
    facts: list[tuple[str, str]] = []
    quoted = quote_text(result.claim)
    if quoted:
        facts.append(("quote", quoted))
    absent = absent_text(result.claim)
    if absent:
        facts.append(("must not say", absent))
    now = text_now(result)
    if now:
        facts.append(("says now" if result.verdict is Verdict.CONTRADICTED else "now", now))
    diff = shown_diff(result)
    if diff:
        facts.append(("diff", diff))
    if result.block_diff:
        facts.append(("block diff", result.block_diff))
    link = source_link(result)
    if link:
        facts.append(("source", link))
    if result.blame is not None:
        facts.append(("upstream commit", blame_text(result.blame)))
    copy = archived_link(result)
    if copy:
        facts.append(("last archived copy", f"{copy[0]} ({copy[1]})"))
    acknowledged = acknowledgement_text(result)
    if acknowledged:
        facts.append(("reviewed", acknowledged))
    return facts


def archived_link(result: ClaimResult) -> tuple[str, str] | None:
    """A gone source's last archived copy as (safe URL, capture date), or None: a
    suggestion for the reader, shown beside the verdict it never changes."""
    archived = result.archived
    url = safe_url(archived.url) if archived is not None else None
    if archived is None or url is None:
        return None
    return url, archived.captured.date().isoformat()


def display_url(url: str) -> str:
    """A URL as a short label: no scheme, no trailing slash."""
    return re.sub(r"^https?://", "", url).rstrip("/")


def blame_text(blame: Blame) -> str:
    """The upstream commit that changed the quote, in one plain line."""
    return f"{blame.sha[:7]} on {blame.date.date()} by {blame.author}: {blame.title}"


__all__ = [
    "ATTENTION_LEVELS",
    "Change",
    "Level",
    "WordKind",
    "absent_said",
    "absent_text",
    "acknowledged_results",
    "acknowledgement_text",
    "archived_link",
    "blame_text",
    "change_of",
    "citation_targets",
    "cited_results",
    "display_url",
    "evidence",
    "level_of",
    "needing_attention",
    "parse_diff",
    "quote_text",
    "runs",
    "safe_url",
    "shown_diff",
    "source_link",
    "text_now",
]
