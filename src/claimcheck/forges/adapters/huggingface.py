"""The Hugging Face Hub behind the forge interface: model, dataset and Space cards.

The card logic lives in `forges.hub_cards` (URLs, the raw README, the commits API);
this file is the adapter that the registry asks. A card's permalink is its README at a
commit on the Hub (`…/blob/SHA/README.md#L1-L2`).
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from typing import TYPE_CHECKING

from claimcheck.config import DEFAULT_HF_ENDPOINT
from claimcheck.forges.adapters import Server, Unwrapped
from claimcheck.forges.hub_cards import (
    CARD_FILE,
    PUBLIC_HOST,
    HubCard,
    card_of,
    hub_request,
    hub_source,
)
from claimcheck.models import Blame, SourceKind, SourceRef

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.forges.history import Absent, History, Version
    from claimcheck.net.fetch import Fetched, FetchRequest


class HubForge:
    """The Hugging Face adapter (see the module docstring)."""

    name = "huggingface"
    default_url = DEFAULT_HF_ENDPOINT

    def server(self, config: Config) -> Server:
        return Server(config.hf_endpoint, config.hf_token)

    def recognise(self, url: str, server: Server) -> SourceRef | None:
        return hub_source(url, server.url)

    kinds = frozenset({SourceKind.HF_CARD})

    def request(
        self,
        ref: SourceRef,
        server: Server,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> FetchRequest:
        return hub_request(
            ref.fetch_url,
            endpoint=server.url,
            token=server.token,
            etag=etag,
            last_modified=last_modified,
        )

    def unwrap(
        self,
        ref: SourceRef,
        outcome: Fetched,
        server: Server,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> Unwrapped:
        return Unwrapped(outcome)  # the raw card, always README.md: no path to keep

    async def version_at(
        self, history: History, ref: SourceRef, until: dt.datetime, *, current: bool
    ) -> Version | Absent | None:
        return await history.hub.version_at(_card(ref), until, current=current)

    async def blame(
        self,
        history: History,
        ref: SourceRef,
        since: dt.datetime,
        still_holds: Callable[[bytes], bool],
    ) -> Blame | None:
        culprit, _ = await history.hub.blame(_card(ref), since, still_holds)
        return culprit

    def named_path(self, ref: SourceRef) -> str | None:
        return CARD_FILE

    async def file_path(self, history: History, ref: SourceRef) -> str | None:
        return CARD_FILE

    async def commit_before(
        self, history: History, ref: SourceRef, when: dt.datetime
    ) -> Blame | Absent | None:
        from claimcheck.forges.history import ABSENT

        listed = await history.hub.commits(_card(ref), back_to=when)
        if listed is None:
            return None
        commits, reached = listed
        found = next((c for c in commits if c.date <= when), None)
        if found is not None:
            return found
        return ABSENT if reached else None  # the pages ran out before `when`: not known

    async def file_at(self, history: History, ref: SourceRef, sha: str) -> bytes | None:
        body = await history.hub.card_at(_card(ref), sha)
        return body if isinstance(body, bytes) else None

    def permalink(
        self, ref: SourceRef, commit: str, path: str, lines: tuple[int, int] | None
    ) -> str | None:
        from claimcheck.judge.permalink import hub_blob_url

        return hub_blob_url(f"https://{PUBLIC_HOST}", _card(ref).path, commit, lines)

    def remembered_path(self, history: History, ref: SourceRef, path: str) -> None:
        """A card is always README.md: nothing to remember."""

    def learned_path(self, history: History, ref: SourceRef) -> str | None:
        return None


HUGGING_FACE = HubForge()


def _card(ref: SourceRef) -> HubCard:
    card = card_of(ref)
    assert card is not None, "a Hub adapter call for a source it does not own"
    return card
