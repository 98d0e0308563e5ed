"""The data that crosses the pipeline's stages: claims, anchors, snapshots, verdicts, reports.

Every model is a frozen pydantic model so a stage can never mutate what an earlier
stage handed it, and every one serialises to JSON the same way for the reports.
"""

from __future__ import annotations

import datetime as dt
from enum import IntEnum, StrEnum
from typing import Literal, Self

from pydantic import BaseModel, ConfigDict, Field, model_validator

DEFAULT_API_URL = "https://api.github.com"
"""GitHub's REST API, unless GITHUB_API_URL names another (GitHub Enterprise, a test)."""


class ExitCode(IntEnum):
    """The documented exit codes of every claimcheck command."""

    OK = 0
    STALE = 1
    BAD_INPUT = 2
    UNCHECKED = 3
    CAPPED = 4
    """`issues` only: more claims needed a new issue than the cap lets one run create;
    the rest are created by the next runs."""


class Frozen(BaseModel):
    """Base of every pipeline model: immutable, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid")


class Anchor(Frozen):
    """The quoted text that supports a claim, as a reader sees it on the source.

    `quote` alone is the common case. `quote_end` turns it into a range (the text from
    `quote` up to the first `quote_end` after it), as in a text fragment `start,end`.
    `prefix` / `suffix` pick one occurrence among several: they must stand right
    before / after the quoted text, with only whitespace between.
    """

    quote: str
    quote_end: str | None = None
    prefix: str | None = None
    suffix: str | None = None


class FieldValue(Frozen):
    """What a claim on a field of its source expects (`field:` in a claim file).

    `path` names the field: a JSON Pointer (RFC 6901, `/license`) into a JSON answer or
    a card's front matter, or a key of the front matter (`license`, `a.b` for a nested
    one). The field holds the claim when its value is `value` (compared as text, see
    `judge.fields`) or, with `matches`, when its text matches that regular expression
    whole. One of `value` and `matches` is given.
    """

    path: str
    value: str | None = None
    matches: str | None = None
    read: str | None = None
    """Where the field is read, when its name is one the source's forge knows (a
    repository's `license` is `/license/spdx_id` of its REST object); None: at `path`."""

    @property
    def expected(self) -> str:
        """What the claim expects, as a person reads it: the value, or the pattern."""
        if self.value is not None:
            return self.value
        return f"matches {self.matches}"


class ClaimPart(Frozen):
    """One of the sources a claim rests on (`sources:` in a claim file), with its own
    anchor, absent texts and scope, as a single-source claim has them."""

    source: str
    anchor: Anchor | None
    scope: str | None = None
    absent: tuple[str, ...] = ()
    render: str | None = None


class Claim(Frozen):
    """One checkable statement of a published page, tied to its source and anchor.

    `source` is None when the page cites something that has no checkable address yet
    ("citation needed"); `cited` then says what the page cites. `scope`, a CSS
    selector, names the part of the source the quote must be in, instead of the main
    content of an HTML page. `absent` is text the source must not say (an "is not" or
    "lacks" claim): the claim holds while none of it is there, beside its quote if it
    has one. `render` ("browser" or "plain", None: as the host's config says) says
    whether a web source is read as headless Chromium renders it. `owner` is who looks
    after it (the claim's `owner:`, else its file's), by which notifications are routed.

    A claim that rests on several sources has `parts`, one a source; it holds when
    every part holds. Its `source`, `anchor`, `scope` and `absent` are then those of
    one part: the first as parsed, the part its verdict comes from in a result. Every
    stage that fetches or judges sees the parts as claims of one source each (`views`).
    """

    id: str
    page: str
    claim: str
    source: str | None
    anchor: Anchor | None
    checked: dt.date
    cited: str | None = None
    scope: str | None = None
    absent: tuple[str, ...] = ()
    render: str | None = None
    owner: str | None = None
    file: str
    line: int
    parts: tuple[ClaimPart, ...] = ()
    field: FieldValue | None = None
    """A claim on a field of its source (a JSON document's, a card's front matter)
    instead of a quote: `anchor` is then None."""
    reviewed: Review | None = None
    """A person's acknowledgement of the claim's review verdict (`Review`), if any."""

    @property
    def judgeable(self) -> bool:
        """Whether the claim says what to look for in its source: a quote, texts that
        must be absent, or a field's value."""
        return self.anchor is not None or bool(self.absent) or self.field is not None

    def views(self) -> tuple[Claim, ...]:
        """The claims of one source each that this claim rests on: itself, when it has
        one source; else one a part, the same claim with that part's source and anchor."""
        if not self.parts:
            return (self,)
        return tuple(self.view(part) for part in self.parts)

    def view(self, part: ClaimPart) -> Claim:
        """This claim as a claim of one source: `part`'s."""
        return self.model_copy(
            update={
                "source": part.source,
                "anchor": part.anchor,
                "scope": part.scope,
                "absent": part.absent,
                "render": part.render,
                "parts": (),
            }
        )

    @property
    def sources(self) -> tuple[str, ...]:
        """Every source URL the claim rests on, in order (none: citation needed)."""
        if not self.parts:  # asked for every claim in every run: no view is made
            return () if self.source is None else (self.source,)
        return tuple(view.source for view in self.views() if view.source is not None)


class SourceKind(StrEnum):
    """How a source is read: through a forge's API (its module in `forges/`, named in
    `forges.registry`) or as a plain web page."""

    GITHUB_README = "github-readme"
    GITHUB_FILE = "github-file"
    GITHUB_REPO = "github-repo"  # a GitHub repository's data: its REST object, latest release
    HF_CARD = "hf-card"  # a Hugging Face Hub model, dataset or Space card (its README)
    GITLAB = "gitlab"  # a GitLab project's README or file
    FORGEJO = "forgejo"  # a Codeberg (Forgejo, Gitea) repository's README or file
    WEB = "web"


class MediaType(StrEnum):
    """What the stored body is, which decides how its visible text is extracted."""

    MARKDOWN = "markdown"
    HTML = "html"
    TEXT = "text"
    JSON = "json"
    """A JSON document (an API's answer, a `.json` file): its fields are read by claims
    on fields, its text as plain text by quotes."""
    CARD = "card"
    """Markdown whose leading YAML front matter is metadata, not text: a Hugging Face
    card, as the Hub shows it (GitHub shows a README's front matter, as a table)."""
    PDF = "pdf"
    """A PDF: its bytes stored as served, its text layer read into paragraphs within
    pages (`judge.pdf`)."""


class Ending(StrEnum):
    """How a fetched body's end is known: told by the protocol, agreed by two answers, or not.

    HTTP/1 ends a body by its Content-Length, by its last chunk, or else by closing the
    connection. httpx checks the first two (a body short of its length is an error), but
    a closed connection looks the same whether the server finished or the connection
    dropped mid-body. A body that ended so is asked for once more (`net.fetcher`): two
    identical answers are the page as the server sends it; a second that differs or
    fails leaves the end unknown, and the answer gate (`judge.plausible`) weighs such a
    body as possibly cut short. Most servers tell the length, so the second request is
    rare.
    """

    TOLD = "told"  # a Content-Length, the last chunk, or a protocol that frames bodies
    AGREED = "agreed"  # ended by a closed connection, and a second answer was the same
    UNTOLD = "untold"  # ended by a closed connection, and no second answer agreed


class SourceRef(Frozen):
    """A claim's source URL resolved to what is fetched and where it is stored.

    `url` is the canonical source URL (fragment removed); `fetch_url` is what is
    requested (the GitHub API for GitHub sources); `key` is the relative snapshot
    folder, already sanitised so it cannot leave `snapshots/`.
    """

    url: str
    kind: SourceKind
    fetch_url: str
    key: str
    accept: str | None = None
    media: MediaType | None = None


class Snapshot(Frozen):
    """One stored version of a source: where the body lives and how it was obtained."""

    key: str
    url: str
    final_url: str
    fetched_at: dt.datetime
    status: int
    etag: str | None = None
    last_modified: str | None = None
    sha256: str
    media: MediaType
    file: str
    origin: str = "fetch"
    vouched_until: dt.date | None = None
    """For a version from history (a commit, a capture): the last day history said it
    was in force, so it stands from `fetched_at` to that day's end and no further (see
    `store.store.known_in_force`). None for a version fetched live, which stands until
    the next one, and in an index written before the field was kept."""


class Verdict(StrEnum):
    """The judgement on one claim. Stale verdicts fail the gate; others do not.

    `context-changed` (the quote holds but its block changed since the baseline) and
    `expired` (the check date is too old) are for review: they fail the gate only
    when the user asks for it (`--fail-on`).
    """

    VERIFIED = "verified"
    CONTEXT_CHANGED = "context-changed"
    EXPIRED = "expired"
    DRIFTED = "drifted"
    CHANGED = "changed"
    """A claim on a field: the field holds another value than the claim's."""
    MISSING = "missing"
    CONTRADICTED = "contradicted"
    SOURCE_GONE = "source-gone"
    MOVED = "moved"
    UNREACHABLE = "unreachable"
    UNVERIFIED = "unverified"

    @property
    def is_stale(self) -> bool:
        """The claim's support changed or vanished: a person must act."""
        return self in STALE_VERDICTS

    @property
    def needs_review(self) -> bool:
        """The quote holds, but a person should look again (context changed, expired)."""
        return self in REVIEW_VERDICTS

    @property
    def is_unknown(self) -> bool:
        """The claim could not be judged at all (network, no snapshot, no source)."""
        return self in UNKNOWN_VERDICTS


STALE_VERDICTS = frozenset(
    {
        Verdict.DRIFTED,
        Verdict.CHANGED,
        Verdict.MISSING,
        Verdict.CONTRADICTED,
        Verdict.SOURCE_GONE,
    }
)
REVIEW_VERDICTS = frozenset({Verdict.CONTEXT_CHANGED, Verdict.EXPIRED})
UNKNOWN_VERDICTS = frozenset({Verdict.UNREACHABLE, Verdict.UNVERIFIED})
ACKNOWLEDGEABLE_VERDICTS = frozenset({Verdict.CONTEXT_CHANGED, Verdict.MOVED, Verdict.EXPIRED})
"""The verdicts a person may acknowledge (`claimcheck ack`): the quote holds, and a
person should look. Never a stale one, whose support is gone, nor an unknown one."""
WORST_FIRST = (
    Verdict.SOURCE_GONE,
    Verdict.CONTRADICTED,
    Verdict.MISSING,
    Verdict.CHANGED,
    Verdict.DRIFTED,
    Verdict.UNREACHABLE,
    Verdict.UNVERIFIED,
    Verdict.CONTEXT_CHANGED,
    Verdict.EXPIRED,
    Verdict.MOVED,
    Verdict.VERIFIED,
)
"""The verdicts from worst to best: a claim on several sources takes its worst part's.

Stale first (the support is gone or changed: a person must act), then unknown (a part
could not be checked, so the claim may be stale: the gate says so with exit 3), then
review (the quote holds but a person should look), then what holds (a moved source
still says it)."""


NotifiedState = Literal["stale", "review", "acknowledged"]
"""What a notification route was last told of a claim (kept in the store's state); a
claim a route holds no record of was last said to be verified, or never anything else.
`acknowledged`: a review verdict a person acknowledged (`claimcheck ack`), recorded
without a message, so that its lapse is told as newly needing review."""


class Review(Frozen):
    """A person's acknowledgement of a review verdict: a claim file's `reviewed:` entry.

    Written by `claimcheck ack`: the day (`date`), the person's `note`, the verdict
    acknowledged and the `version` of the source it was about (`judge.review.version_of`),
    and optionally `until`, the last day it holds, and `by`, who looked. A review verdict
    that still has this kind and version, up to `until`, is acknowledged: reported
    truly but apart, and no longer a reason to fail the gate.
    """

    date: dt.date
    note: str
    verdict: Verdict
    version: str
    until: dt.date | None = None
    by: str | None = None


class Acknowledged(Frozen):
    """How a claim's acknowledgement (`Review`) stands against its verdict now.

    `holds`: the verdict is the review verdict acknowledged, its version unchanged and
    `until` not passed, so the claim is quiet. Otherwise `lapsed` says why it no longer
    holds ("the source changed since", "it ran out on 2026-12-31", "the verdict is now
    drifted"), for every report to say beside the verdict.
    """

    review: Review
    holds: bool
    lapsed: str | None = None


class Blame(Frozen):
    """The upstream commit that changed or removed a claim's quote."""

    sha: str
    date: dt.datetime
    author: str
    title: str
    url: str


class ArchivedCopy(Frozen):
    """The Wayback Machine's last capture of a gone source from before it went: where a
    reader may still read what the claim cited (a suggestion; it changes no verdict)."""

    url: str
    captured: dt.datetime

    def __str__(self) -> str:
        return f"{self.url} ({self.captured.date().isoformat()})"


class Citation(Frozen):
    """How to cite a claim whose quote holds, for an editor to paste into the article.

    `live` is the live page with a text fragment that opens at the quote; `permalink`
    the fixed version that was checked, when the store knows it (a file at a commit with
    the quote's `lines` selected, or a Wayback capture); `version` says which
    (`commit SHA`, `wayback URL`). `version_date` is the date that version is labelled
    by: its own (the commit's, the capture's) when `dated`, else the day the store first
    held its body (`history.citations.version_date`), so every report labels it as
    `claimcheck cite` does. `page`: a PDF's page the quote is on.
    """

    live: str
    permalink: str | None = None
    lines: tuple[int, int] | None = None
    version: str | None = None
    version_date: dt.date | None = None
    dated: bool = False
    archived: ArchivedCopy | None = None
    """The source's capture `claimcheck archive` made (`[archive]`), cited beside the
    live link: a copy that stays readable when the page changes or goes."""
    page: int | None = None
    """For a PDF: the page (from 1) the quote stands on; both links open at it
    (`#page=N`, RFC 8118)."""


class ClaimResult(Frozen):
    """A claim with its verdict, a human reason and the evidence behind it."""

    claim: Claim
    verdict: Verdict
    reason: str
    score: float | None = None
    found: str | None = None
    diff: str | None = None
    snapshot: Snapshot | None = None
    moved_to: str | None = None
    occurrences: int = 0
    baseline: Snapshot | None = None
    block_before: str | None = None
    block_after: str | None = None
    block_diff: str | None = None
    blame: Blame | None = None
    citation: Citation | None = None
    """Set for a claim whose quote holds (see `history.citations`)."""
    archived: ArchivedCopy | None = None
    """Set for a `source-gone` claim whose source the Wayback Machine captured before it
    went: the last such capture, suggested to the reader."""
    value_now: str | None = None
    """A claim on a field: the value the field holds in the source judged (as text; a
    list or mapping as compact JSON), None when it is not there."""
    value_then: str | None = None
    """A claim on a field: the value it held in the baseline (the source as of the
    check date), when a baseline was read and the field was there."""
    parts: tuple[ClaimResult, ...] = ()
    """A claim on several sources: each part's result, in order (each with the claim
    as a claim of that part's source). The result itself is its worst part's."""
    acknowledged: Acknowledged | None = None
    """Set for a claim with a `reviewed:` entry whose verdict is not `verified`: whether
    the acknowledgement holds for this verdict (`judge.review.acknowledge`)."""

    @property
    def quiet(self) -> bool:
        """A review verdict a person acknowledged, still as it was then: reported apart,
        and not counted as needing review (by `--fail-on` or an issue).

        Never a verdict that cannot be acknowledged, whatever `acknowledged` says: a
        report is read back from outside (`issues --report`), and a forged one must not
        quiet a stale claim."""
        acknowledged = self.acknowledged
        return (
            acknowledged is not None
            and acknowledged.holds
            and self.verdict in ACKNOWLEDGEABLE_VERDICTS
            and acknowledged.review.verdict is self.verdict
        )


class Shard(Frozen):
    """Which part of a sharded run a report is: shard `index` of `count`, from 1."""

    index: int = Field(ge=1, strict=True)
    count: int = Field(ge=1, strict=True)

    @model_validator(mode="after")
    def _within(self) -> Self:
        if self.index > self.count:
            raise ValueError(f"shard {self} does not exist: the index is at most the count")
        return self

    def __str__(self) -> str:
        return f"{self.index}/{self.count}"


class Report(Frozen):
    """All results of one run, in claim-file order."""

    generated_at: dt.datetime
    offline: bool
    duration_s: float | None = None
    """How long the run took, start to report (None: not known, e.g. an older report)."""
    results: tuple[ClaimResult, ...] = Field(default_factory=tuple)
    shard: Shard | None = None
    """The shard of a run whose claims alone the report holds (`verify --shard K/N`);
    None for a whole run's, a merged one included. It is said in the JSON report too,
    because a claim missing from a shard's report is not a claim removed from the claim
    files: `report merge` checks that it has every shard of the run once, and
    `claimcheck issues` refuses it."""

    def count(self, verdict: Verdict) -> int:
        """How many results carry this verdict."""
        return sum(1 for r in self.results if r.verdict is verdict)

    @property
    def acknowledged(self) -> int:
        """How many results are acknowledged review verdicts (`ClaimResult.quiet`)."""
        return sum(1 for r in self.results if r.quiet)
