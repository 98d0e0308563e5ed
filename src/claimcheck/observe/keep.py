"""Keep an answer: weigh it with the plausibility gate and store what passes.

A body that is the page is stored as the source's version of this run (decoded to
UTF-8, one copy of an unchanged body); an answer that is not the page (an error page,
a rate-limit message, a wall) keeps the last good snapshot current and makes the
source `unreachable`, and after `[fetch] suspect_limit` such runs in a row asks a
person to look. An outcome other than a body (not modified, gone, failed) becomes the
state the judge needs.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Sequence
from urllib.parse import urlsplit

from claimcheck.config import Config
from claimcheck.forges.registry import forge_of
from claimcheck.judge.answer import Answer, Expect, Previous, Suspect
from claimcheck.judge.extract import media_for
from claimcheck.judge.pdf import pdf_expected, stored_bytes
from claimcheck.judge.plausible import judge_answer
from claimcheck.judge.verdict import Gone as GoneState
from claimcheck.judge.verdict import Observed, SourceState, Unreachable
from claimcheck.models import Claim, MediaType, Snapshot, SourceRef
from claimcheck.net.fetch import Fetched, FetchFailed, FetchOutcome, Gone, NotModified
from claimcheck.observe.known import observed, track_alias
from claimcheck.observe.stats import RunStats
from claimcheck.store.state import RunState, suspect_count
from claimcheck.store.store import FETCHED, Store


def answer_of(outcome: Fetched) -> Answer:
    """A fetched outcome as the plausibility gate weighs it."""
    headers = {"content-type": outcome.content_type} if outcome.content_type else {}
    return Answer(
        outcome.status,
        headers,
        outcome.body,
        outcome.url,
        outcome.final_url,
        ending=outcome.ending,
    )


def answer_media(ref: SourceRef, outcome: Fetched, *, data: bool = False) -> MediaType:
    """How a fetched body is read: as its source says, else by its type and path. A
    PDF by its type, by a `.pdf` path whatever the answer (an HTML error page served
    for a PDF is then the gate's to catch), or by its bytes (`%PDF-`). A JSON answer is
    a JSON document only for a source read as data (a claim on one of its fields); for
    a page it is read as the text it is, and the gate refuses it as not the page, as an
    API's error object in place of a page is."""
    if ref.media is not None:
        return ref.media
    if pdf_expected(outcome.content_type, urlsplit(ref.url).path, outcome.body):
        return MediaType.PDF
    media = media_for(outcome.content_type, urlsplit(ref.url).path)
    return MediaType.TEXT if media is MediaType.JSON and not data else media


def read_as_data(claims: Sequence[Claim]) -> frozenset[str]:
    """The sources some claim reads a field of (`field:`): a JSON answer is their version."""
    return frozenset(c.source for c in claims if c.field is not None and c.source is not None)


def track_version(
    store: Store, ref: SourceRef, outcome: FetchOutcome, state: Observed, *, remember: bool
) -> Observed:
    """A docs URL on a moving alias (`/en/latest/`) observed with the version it
    redirected to (`forges.docs_versions`); see `known.track_alias`."""
    final = getattr(outcome, "final_url", None)
    if not isinstance(final, str):
        return state
    return track_alias(store, ref, final, state, remember=remember)


def store_answer(
    store: Store,
    url: str,
    ref: SourceRef,
    outcome: Fetched,
    now: dt.datetime,
    stats: RunStats,
    config: Config,
    remembered: RunState,
    *,
    data: bool = False,
) -> SourceState:
    """Store a fetched body as a new version, unless the plausibility gate says it is not
    the page: then the last good snapshot stays current and the claim is `unreachable`.

    The body is stored decoded (by HTTP charset, BOM, `<meta>`, detection) as UTF-8, so
    every later read of the store is a plain UTF-8 decode. (A source to render stores
    its DOM instead: `rendering.render_answer`.)
    """
    answer = answer_of(outcome)
    latest = store.latest(ref.key)
    media = answer_media(ref, outcome, data=data)
    previous = None
    if latest is not None:
        previous = Previous(body=store.read_body(latest), text=store.page(latest).text)
    expect = Expect.PAGE if forge_of(ref) is None else Expect.GITHUB_RAW
    gate = judge_answer(answer, expect, media, previous, read=store.visible_text)
    if isinstance(gate, Suspect):
        return suspected(url, ref, gate, latest, stats, config, remembered)
    return keep_version(store, ref, outcome, gate.text, media, now, stats, latest)


def keep_version(
    store: Store,
    ref: SourceRef,
    outcome: Fetched,
    text: str,
    media: MediaType,
    now: dt.datetime,
    stats: RunStats,
    latest: Snapshot | None,
    origin: str = FETCHED,
) -> Observed:
    """Store the text the gate let through as the source's version of this run (the
    store keeps one copy of an unchanged body) and observe it, live."""
    snapshot = store.save(
        key=ref.key,
        url=ref.url,
        final_url=outcome.final_url,
        status=outcome.status,
        body=stored_bytes(text, media),
        media=media,
        fetched_at=now,
        etag=outcome.etag,
        last_modified=outcome.last_modified,
        origin=origin,
    )
    new = latest is None or latest.sha256 != snapshot.sha256
    stats.new_snapshots += new
    # The gate's reading stays in memory for the source's judging, which frees it (and
    # keeps it on disk then): `observe.fetch` holds a bounded number of sources.
    return observed(snapshot, live=True, moved_to=outcome.moved_to, fresh=new)


def suspected(
    url: str,
    ref: SourceRef,
    gate: Suspect,
    latest: Snapshot | None,
    stats: RunStats,
    config: Config,
    remembered: RunState,
) -> Unreachable:
    """An answer that is not the page: `unreachable`, never stale, and after
    `[fetch] suspect_limit` runs in a row a reason that asks a person to look."""
    count = suspect_count(remembered, url)
    limit = config.fetch.suspect_limit
    stats.suspects[url] = count
    stats.failed.append(ref.url)
    # Said as it is: on a first fetch there is no good snapshot to keep.
    kept = "the last good snapshot is kept" if latest is not None else "nothing is stored"
    if count >= limit:
        return Unreachable(
            reason=f"{gate.reason}, {count} runs in a row: a person must look",
            hint=f"open {ref.url} in a browser; if the page really is like this now, "
            f"update the claim ({kept} until then)",
            last=latest,
        )
    return Unreachable(
        reason=gate.reason,
        hint=f"{kept}; run again later ({count} of {limit} "
        "such answers in a row before a person is asked to look)",
        last=latest,
    )


def state_of(
    store: Store, ref: SourceRef, outcome: FetchOutcome, now: dt.datetime, stats: RunStats
) -> SourceState:
    """Turn a fetch outcome other than a body into what the judge needs."""
    match outcome:
        case Fetched():  # bodies go through the plausibility gate in `store_answer`
            raise AssertionError("a fetched body is stored by store_answer")
        case NotModified():
            stats.not_modified += 1
            latest = store.latest(ref.key)
            if latest is None:  # a 304 without validators of ours: cannot happen; be safe
                return Unreachable(reason="304 without a stored snapshot", hint="run again")
            return observed(latest, live=True, moved_to=outcome.moved_to)
        case Gone():
            return GoneState(status=outcome.status, url=outcome.final_url)
        case FetchFailed():
            stats.failed.append(ref.url)
            return Unreachable(reason=outcome.reason, hint=outcome.hint, last=store.latest(ref.key))
    raise AssertionError(f"unknown fetch outcome {outcome!r}")  # pragma: no cover
