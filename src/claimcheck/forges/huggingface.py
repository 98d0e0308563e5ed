"""Hugging Face Hub cards: model, dataset and Space READMEs, read as raw Markdown.

A card (`https://huggingface.co/ORG/NAME`, `/datasets/ORG/NAME`, `/spaces/ORG/NAME`)
is the repository's `README.md`. It is fetched raw from the Hub
(`{endpoint}/{repo}/raw/{revision}/README.md`: small, answered with an ETag, so a
second run is a 304), never through `resolve/`, which sends large files to a CDN. Its
history is the Hub's commits API (`{endpoint}/api/{models|datasets|spaces}/{repo}/
commits/{revision}`, newest first, paginated by `Link`), which lists every commit of
the repository, not only those that touched the card: a baseline is the card at the
commit in force on the check date, and blame bisects the commits since the baseline,
reading the card at a commit (`raw/{sha}/README.md`) only as the bisection needs.

The endpoint is `HF_ENDPOINT` when set, as `huggingface_hub` reads it (a mirror, a
test server), else `https://huggingface.co`; the snapshot key names the card on the
public Hub (`huggingface.co/ORG/NAME/README`) whatever endpoint served it. A token
(`HF_TOKEN`) is sent to the endpoint's host only, as GitHub's is to its API.

`HubForge` puts this behind the forge interface (`forge.Forge`): `hub_source`
(recognise a URL, or None: it is not the Hub's), `card_of` (the card behind a resolved
ref), `hub_request` (the conditional request, and `hub_gone`, how the Hub says "no
such repository"), and `HubHistory.version_at` / `HubHistory.blame` (a version as of
a date, the commit that changed a quote). A card's permalink is its README at a
commit on the Hub (`…/blob/SHA/README.md#L1-L2`). Nothing here imports the fetcher at
module level: resolving a URL stays offline and pure.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlsplit

from claimcheck.config import DEFAULT_HF_ENDPOINT
from claimcheck.forges.api import body_of, forge_request, is_gone, read_pages
from claimcheck.forges.forge import (
    ABSENT,
    MAX_PAGES,
    Absent,
    Fetches,
    Server,
    Unwrapped,
    Version,
)
from claimcheck.judge.permalink import hub_blob_url
from claimcheck.models import Blame, MediaType, SourceKind, SourceRef
from claimcheck.store.keys import snapshot_key

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.forges.history import History
    from claimcheck.net.fetch import Fetched, FetchOutcome, FetchRequest

PUBLIC_HOST = "huggingface.co"
CARD_FILE = "README.md"
DEFAULT_REVISION = "main"

_HOSTS = frozenset({"huggingface.co", "www.huggingface.co", "hf.co"})
_PREFIXES = {"datasets": "dataset", "spaces": "space"}
_URL_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}
_API_KIND = {"model": "models", "dataset": "datasets", "space": "spaces"}
_FILE_VIEWS = frozenset({"blob", "raw", "resolve"})
_NAME = re.compile(r"^[A-Za-z0-9_](?:[A-Za-z0-9_.-]*[A-Za-z0-9_])?$")
_MAX_NAME = 96
_RESERVED = frozenset(
    {
        "api",
        "blog",
        "changelog",
        "chat",
        "collections",
        "datasets",
        "docs",
        "enterprise",
        "join",
        "learn",
        "login",
        "models",
        "new",
        "new-dataset",
        "new-space",
        "organizations",
        "papers",
        "posts",
        "pricing",
        "settings",
        "spaces",
        "tasks",
    }
)
"""First path segments of Hub pages that are not a model: no user or organisation
may take these names, so `huggingface.co/docs/transformers` is a web page."""


@dataclass(frozen=True)
class HubCard:
    """Which card a Hub source is: a repository (`ORG/NAME` of a type) at a revision."""

    repo_type: str  # "model", "dataset" or "space"
    org: str
    name: str
    revision: str = DEFAULT_REVISION

    @property
    def path(self) -> str:
        """The repository's path on the Hub's site: `ORG/NAME`, `datasets/ORG/NAME`, …"""
        return f"{_URL_PREFIX[self.repo_type]}{_q(self.org)}/{_q(self.name)}"


def hub_card(url: str) -> HubCard | None:
    """The card a URL names, or None when it is not a Hub repository's card.

    Recognised: `/ORG/NAME`, `/datasets/ORG/NAME`, `/spaces/ORG/NAME`, each optionally
    followed by `/tree/REV` or `/blob/REV/README.md` (`raw/`, `resolve/` too). Any other
    Hub path (another file, a folder, `/docs/...`, a single-segment legacy model name)
    is read as a web page.
    """
    parts = urlsplit(url)
    if parts.scheme.lower() not in ("http", "https"):
        return None
    if (parts.hostname or "").lower() not in _HOSTS:
        return None
    segments = [unquote(s) for s in parts.path.split("/") if s]
    repo_type = "model"
    if segments[:1] and segments[0] in _PREFIXES:
        repo_type, segments = _PREFIXES[segments[0]], segments[1:]
    if len(segments) < 2:
        return None
    org, name, rest = segments[0], segments[1], segments[2:]
    if not (_is_name(org) and _is_name(name)):
        return None
    if repo_type == "model" and org.lower() in _RESERVED:
        return None
    folder = rest[:1] == ["tree"] and len(rest) == 2
    card_file = len(rest) == 3 and rest[0] in _FILE_VIEWS and rest[2] == CARD_FILE
    if rest and not (folder or card_file):
        return None
    revision = rest[1] if rest else DEFAULT_REVISION
    if not revision or revision in (".", "..") or any(ord(c) < 0x20 for c in revision):
        return None
    return HubCard(repo_type, org, name, revision)


def hub_source(url: str, endpoint: str = DEFAULT_HF_ENDPOINT) -> SourceRef | None:
    """The card's source: its canonical URL, its raw README on `endpoint`, its key."""
    card = hub_card(url)
    if card is None:
        return None
    return SourceRef(
        url=card_url(card),
        kind=SourceKind.HF_CARD,
        fetch_url=raw_url(endpoint, card, card.revision),
        key=card_key(card),
        media=MediaType.CARD,
    )


def card_of(ref: SourceRef) -> HubCard | None:
    """The card behind a resolved Hub source; None for every other kind."""
    return hub_card(ref.url) if ref.kind is SourceKind.HF_CARD else None


def card_url(card: HubCard) -> str:
    """The canonical address of the card on the public Hub (the default revision unsaid)."""
    url = f"https://{PUBLIC_HOST}/{card.path}"
    return url if card.revision == DEFAULT_REVISION else f"{url}/tree/{_q(card.revision)}"


def card_key(card: HubCard) -> str:
    """The snapshot key: `huggingface.co/[datasets/|spaces/]ORG/NAME/README[/ref-REV]`."""
    prefix = _URL_PREFIX[card.repo_type].strip("/")
    revision = [] if card.revision == DEFAULT_REVISION else [f"ref-{card.revision}"]
    return snapshot_key([PUBLIC_HOST, prefix, card.org, card.name, "README", *revision])


def raw_url(endpoint: str, card: HubCard, revision: str) -> str:
    """The card's raw README at a revision (a branch, a tag or a commit sha)."""
    return f"{endpoint.rstrip('/')}/{card.path}/raw/{_q(revision)}/{CARD_FILE}"


def commits_url(endpoint: str, card: HubCard) -> str:
    """The first page of the repository's commits on the card's revision, newest first."""
    kind = _API_KIND[card.repo_type]
    repo = f"{_q(card.org)}/{_q(card.name)}"
    return f"{endpoint.rstrip('/')}/api/{kind}/{repo}/commits/{_q(card.revision)}"


def commit_link(endpoint: str, card: HubCard, sha: str) -> str:
    """Where a person reads one commit of the repository."""
    return f"{endpoint.rstrip('/')}/{card.path}/commit/{_q(sha)}"


def hub_request(
    url: str,
    *,
    endpoint: str,
    token: str | None,
    etag: str | None = None,
    last_modified: str | None = None,
) -> FetchRequest:
    """A request to the Hub, the token bound to the endpoint's host (never sent elsewhere,
    a redirect to another host included: see `fetch._headers`)."""
    return forge_request(
        url, Server(endpoint, token), etag=etag, last_modified=last_modified, gone=hub_gone
    )


def hub_gone(status: int, headers: Mapping[str, str]) -> bool:
    """The Hub's "no such repository": a 401 with `X-Error-Code: RepoNotFound`, which it
    gives for a deleted or private repository alike (it does not say which). For the
    readers of a public claim, both mean the source is gone; a gated repository
    (`GatedRepo`) or a bad token stays an authorization failure."""
    return status == 401 and headers.get("x-error-code") == "RepoNotFound"


def hub_commit(item: Any, endpoint: str, card: HubCard) -> Blame | None:
    """One commit of the commits API's answer (`id`, `title`, `message`, `authors`,
    `date`), or None when it lacks what history needs."""
    if not isinstance(item, dict):
        return None
    sha, date = item.get("id"), item.get("date")
    if not isinstance(sha, str) or not sha or not isinstance(date, str):
        return None
    try:
        when = dt.datetime.fromisoformat(date.replace("Z", "+00:00"))
    except ValueError:
        return None
    if when.tzinfo is None:
        when = when.replace(tzinfo=dt.UTC)
    authors = item.get("authors")
    users = [
        a["user"]
        for a in (authors if isinstance(authors, list) else [])
        if isinstance(a, dict) and isinstance(a.get("user"), str)
    ]
    title = item.get("title")
    if not isinstance(title, str) or not title:
        message = item.get("message")
        title = message.splitlines()[0] if isinstance(message, str) and message else ""
    return Blame(
        sha=sha,
        date=when.astimezone(dt.UTC),
        author=", ".join(users),
        title=title,
        url=commit_link(endpoint, card, sha),
    )


class HubHistory:
    """A card's history through the Hub's commits API, over the run's fetcher."""

    def __init__(self, fetcher: Fetches, *, endpoint: str, token: str | None) -> None:
        self._fetcher = fetcher
        self._endpoint = endpoint.rstrip("/")
        self._token = token

    async def commits(
        self, card: HubCard, *, back_to: dt.datetime | None = None, max_pages: int = MAX_PAGES
    ) -> tuple[list[Blame], bool] | None:
        """The repository's commits, newest first, and whether they reach far enough.

        Pages are read until one holds a commit at or before `back_to` (every page
        without it), or the pages run out; the flag is False when `max_pages` ended
        the walk first. None: the history could not be read (asked again next run).
        """
        return await read_pages(
            self._fetcher,
            commits_url(self._endpoint, card),
            self._request,
            lambda item: hub_commit(item, self._endpoint, card),
            max_pages=max_pages,
            enough=None if back_to is None else lambda found: _reaches(found, back_to),
            gone_is_empty=False,  # a repository the Hub does not know is no answer
        )

    async def card_at(self, card: HubCard, sha: str) -> bytes | Absent | None:
        """The card's raw README at a commit; ABSENT when the commit has none."""
        outcome = await self._get(raw_url(self._endpoint, card, sha))
        return ABSENT if is_gone(outcome) else body_of(outcome)

    async def version_at(
        self, card: HubCard, until: dt.datetime, *, current: bool = False
    ) -> Version | Absent | None:
        """The card as it stood at `until`: the README of the commit in force then.

        With `current` (the card was fetched this run) and no commit since `until`,
        the card is as it is now and is not downloaded again (`body` None). ABSENT:
        the repository or its card did not exist yet; None: history did not answer.
        """
        listed = await self.commits(card, back_to=until)
        if listed is None:
            return None
        commits, complete = listed
        in_force = next((c for c in commits if c.date <= until), None)
        if in_force is None:
            return ABSENT if complete else None
        origin = f"commit {in_force.sha}"
        if current and in_force is commits[0]:
            return Version(date=in_force.date, body=None, origin=origin)
        body = await self.card_at(card, in_force.sha)
        if body is None or isinstance(body, Absent):
            return body
        return Version(date=in_force.date, body=body, origin=origin)

    async def blame(
        self, card: HubCard, since: dt.datetime, still_holds: Callable[[bytes], bool]
    ) -> tuple[Blame | None, int]:
        """The first commit after `since` whose card no longer holds the quote.

        The commits API lists every commit of the repository, most of which leave the
        card alone; bisecting them (oldest to newest) reads the card at a logarithmic
        number of commits and lands on the one that changed it. A commit without a
        card holds nothing. Returns the commit (None when not found or history did not
        answer) and how many card versions were read.
        """
        listed = await self.commits(card, back_to=since)
        if listed is None or not listed[1]:
            return None, 0
        ordered: Sequence[Blame] = [c for c in reversed(listed[0]) if c.date > since]
        low, high, fetched = 0, len(ordered) - 1, 0
        culprit: Blame | None = None
        while low <= high:
            middle = (low + high) // 2
            body = await self.card_at(card, ordered[middle].sha)
            fetched += 1
            if body is None:
                return None, fetched
            if not isinstance(body, Absent) and still_holds(body):
                low = middle + 1
            else:
                culprit = ordered[middle]
                high = middle - 1
        return culprit, fetched

    def _request(self, url: str) -> FetchRequest:
        return hub_request(url, endpoint=self._endpoint, token=self._token)

    async def _get(self, url: str) -> FetchOutcome:
        return await self._fetcher.fetch(self._request(url))


def _reaches(found: list[Blame], back_to: dt.datetime) -> bool:
    """Whether the commits listed so far reach back to `back_to` (one is not after it)."""
    return any(c.date <= back_to for c in found)


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


def _is_name(segment: str) -> bool:
    """The Hub's repository naming rules (huggingface_hub's `validate_repo_id`)."""
    return (
        len(segment) <= _MAX_NAME
        and _NAME.match(segment) is not None
        and "--" not in segment
        and ".." not in segment
        and not segment.endswith(".git")
    )


def _q(segment: str) -> str:
    return quote(segment, safe="")
