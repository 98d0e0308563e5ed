"""Sources read as headless Chromium renders them: which, rendering them, keeping them.

A source to render is fetched like any other; its answer is kept past the fetch, judged
as served by the gate, rendered, and its DOM stored as the source's version
(`render.render`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Mapping, Sequence
from concurrent.futures import ThreadPoolExecutor

from claimcheck.cache.read_ahead import workers_to_use
from claimcheck.config import Config
from claimcheck.judge.answer import Expect, Previous, Suspect, Suspicion
from claimcheck.judge.plausible import judge_answer
from claimcheck.judge.verdict import SourceState, Unreachable
from claimcheck.models import Claim, MediaType, SourceRef
from claimcheck.net.fetch import Fetched
from claimcheck.net.settings import fetch_settings
from claimcheck.observe.keep import answer_of, keep_version, suspected
from claimcheck.observe.stats import RunStats
from claimcheck.observe.stored import free_page
from claimcheck.render.render import (
    RENDERED_ORIGIN,
    Renderer,
    RenderFailed,
    RenderOutcome,
    browsers_to_use,
    judge_rendered,
    rendered_sources,
)
from claimcheck.store.state import RunState
from claimcheck.store.store import Store


def rendered(claims: Sequence[Claim], refs: dict[str, SourceRef], config: Config) -> frozenset[str]:
    """The source URLs read as headless Chromium renders them (`render/render.py`)."""
    return rendered_sources(claims, refs, config.fetch.render)


def prepare_renders(
    answers: Mapping[str, Fetched], config: Config
) -> dict[str, Suspect | RenderOutcome]:
    """Each answer of a source to render, prepared for `render_answer`: the gate's
    refusal of the HTML as served, or the page as headless Chromium renders it.

    The served HTML is judged first as a first fetch would be (the stored version is a
    rendered one, whose text a script shell lacks) and may have no visible text of its
    own, since a script writes it. The pages that pass are rendered side by side, as
    many browsers at once as `render.browsers_to_use` says for the workers the run may
    start (`jobs`). Each rendering thread keeps its browser from page to page, and loads
    each page in a context and behind a guarded proxy of its own (`render.Renderer`),
    so no page sees another's state.
    """
    prepared: dict[str, Suspect | RenderOutcome] = {}
    wanted: list[tuple[str, str]] = []  # (source URL, the URL its answer came from)
    for url, outcome in answers.items():
        gate = judge_answer(answer_of(outcome), Expect.PAGE, MediaType.HTML)
        if isinstance(gate, Suspect) and gate.kind is not Suspicion.NO_TEXT:
            prepared[url] = gate
        else:
            wanted.append((url, outcome.final_url))
    if not wanted:
        return prepared
    settings = fetch_settings(config)
    at_once = min(len(wanted), browsers_to_use(workers_to_use(config.jobs)))
    pool = ThreadPoolExecutor(max_workers=at_once, thread_name_prefix="claimcheck-render")
    with Renderer(
        policy=settings.address_policy, timeout=settings.timeout, max_bytes=settings.max_bytes
    ) as renderer:
        try:
            pages = list(pool.map(renderer.render, [final_url for _, final_url in wanted]))
        finally:
            # On a stop (Ctrl-C), no page starts after it; those loading end within
            # `timeout`, and every browser is killed with its process group.
            pool.shutdown(wait=True, cancel_futures=True)
    prepared.update(zip([url for url, _ in wanted], pages, strict=True))
    return prepared


def render_answer(
    store: Store,
    url: str,
    ref: SourceRef,
    outcome: Fetched,
    prepared: Suspect | RenderOutcome,
    now: dt.datetime,
    stats: RunStats,
    config: Config,
    remembered: RunState,
) -> SourceState:
    """Store the DOM of a rendered page (`prepare_renders`) as the source's new version.

    What the browser got decides (`render.judge_rendered`): the status of the document
    it loaded, the proxy's refusal of it, and the whole gate on the DOM against the
    stored rendered version. A refused answer is `unreachable` (never stale) and stores
    nothing, and so is a failed render: a failed fetch.
    """
    latest = store.latest(ref.key)
    if isinstance(prepared, Suspect):
        return suspected(url, ref, prepared, latest, stats, config, remembered)
    if isinstance(prepared, RenderFailed):
        stats.failed.append(ref.url)
        return Unreachable(reason=prepared.reason, hint=prepared.hint, last=latest)
    previous = None
    if latest is not None and latest.origin == RENDERED_ORIGIN:
        previous = Previous(body=store.read_body(latest), text=store.page(latest).text)
    judged = judge_rendered(prepared, outcome.url, outcome.final_url, previous)
    if isinstance(judged, Suspect):
        return suspected(url, ref, judged, latest, stats, config, remembered)
    state = keep_version(
        store, ref, outcome, judged.text, MediaType.HTML, now, stats, latest, RENDERED_ORIGIN
    )
    free_page(store, state)  # the renders are all stored before any is judged
    return state
