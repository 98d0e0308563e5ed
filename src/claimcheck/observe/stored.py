"""Each source as the store knows it, without going online; and freeing a source's page.

An offline run judges each source as the last online run found it (`as_found`); a
person editing claims against the stored text (lint, accept) sees its latest stored
version as it is.
"""

from __future__ import annotations

from collections.abc import Sequence

from claimcheck.config import Config
from claimcheck.forges.resolve import source_ref
from claimcheck.judge.verdict import NoSnapshot, Observed, SourceState
from claimcheck.models import Claim, SourceRef
from claimcheck.observe.known import as_found, observed, with_page
from claimcheck.observe.stats import RunStats
from claimcheck.store.state import RunState
from claimcheck.store.store import Store


def observe_stored(
    claims: Sequence[Claim],
    config: Config,
    *,
    store: Store | None = None,
    record: RunState | None = None,
    pages: bool = False,
) -> tuple[dict[str, SourceState], RunStats]:
    """What the store knows of each claim's source, by URL.

    With `record` (the state an offline run read: every verdict), each source is as the
    last run that fetched found it (`as_found`): gone, moved, refused or not answering
    with the page stays so until an online run says otherwise. Without it (a person
    editing claims against the stored text: lint, accept), simply its latest stored
    version. `pages`: each page read (`with_pages`), for a command that reads them all.
    """
    store = store or Store.of(config)
    refs = resolve_sources(claims, config)
    states = stored_states(store, refs, record)
    return (with_pages(store, claims, states) if pages else states), RunStats(sources=len(refs))


def with_pages(
    store: Store, claims: Sequence[Claim], states: dict[str, SourceState]
) -> dict[str, SourceState]:
    """Each observed source with its page at hand, and its body where a claim on it
    reads a part of the page by its scope: for a command that reads every page it
    observes (lint, accept, add), where a run reads a page only to judge anew."""
    scoped = {view.source for claim in claims for view in claim.views() if view.scope}
    return {
        url: with_page(store, state, body=url in scoped) if isinstance(state, Observed) else state
        for url, state in states.items()
    }


def resolve_sources(claims: Sequence[Claim], config: Config) -> dict[str, SourceRef]:
    """One SourceRef per distinct source URL (every part's, for a claim on several)."""
    refs: dict[str, SourceRef] = {}
    for claim in claims:
        for source in claim.sources:
            if source not in refs:  # a desk has ten claims a source: each resolved once
                refs[source] = source_ref(source, config)
    return refs


def stored_states(
    store: Store, refs: dict[str, SourceRef], record: RunState | None
) -> dict[str, SourceState]:
    """Each source as `record` says the last run that fetched found it (`as_found`), or
    without one, its latest stored version as it is."""
    states: dict[str, SourceState] = {}
    for url, ref in refs.items():
        if record is not None:
            known = record.sources.get(url)
            states[url] = as_found(store, url, ref, known.found if known else None)
            continue
        latest = store.latest(ref.key)
        states[url] = NoSnapshot() if latest is None else observed(latest, live=False)
    return states


def free_page(store: Store, state: SourceState) -> None:
    """Free an observed source's page from memory (the cache on disk keeps it)."""
    if isinstance(state, Observed):
        store.pages.forget(state.snapshot.sha256, state.snapshot.media)
