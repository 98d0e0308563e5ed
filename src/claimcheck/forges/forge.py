"""What every forge's module implements (`Forge`), and the values history answers in.

A forge is a host whose files are read through an API rather than scraped: GitHub, the
Hugging Face Hub, GitLab, Codeberg (Forgejo, Gitea). Its module (`forges.github`,
`forges.huggingface`, `forges.gitlab`, `forges.forgejo`) recognises its URLs and
resolves them (`SourceRef`), builds the request for the current version (its own
server, its own token, sent to that host only, and what counts as "gone" there), turns
the answer into the file (a second request when the first one only names it), reads
its history (the file as of a date, the commit that changed a quote, the commit of a
snapshot) and names a permalink (the file at a commit, with a line range).

Everything else asks the registry (`forges.registry`) and never branches on the forge.
This module imports no forge, so every forge and the registry import it and nothing
imports back (the run's `History`, which each step is given, is named for the type
checker only). The history algorithms every forge shares (`version_from_commits`,
`bisect_commits`) are here too, over a forge's `FileCommits`.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from claimcheck.models import Blame, MediaType, SourceKind, SourceRef
from claimcheck.store.keys import snapshot_key

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.forges.history import History
    from claimcheck.net.fetch import Fetched, FetchOutcome, FetchRequest


MAX_PAGES = 20
"""Commit pages read at most for one question; beyond them the answer is partial."""
_RECENT = 30  # commits asked at once for a baseline: GitHub's default page


@dataclass(frozen=True)
class Server:
    """Where a forge is asked (`url`) and the token it alone is sent (never in repr)."""

    url: str
    token: str | None = field(default=None, repr=False, compare=False)

    @property
    def host(self) -> str:
        """The netloc the token is bound to: the fetcher sends it to no other host."""
        return urlsplit(self.url).netloc.lower()


@dataclass(frozen=True)
class Servers:
    """Every forge's server, by adapter name; a forge not named is asked at its default.

    Tokens compare and hash as nothing: resolution is memoized on the URLs alone.
    """

    urls: tuple[tuple[str, str], ...] = ()
    tokens: tuple[tuple[str, str], ...] = field(default=(), repr=False, compare=False)
    _made: dict[str, Server] = field(
        default_factory=dict, init=False, repr=False, compare=False, hash=False
    )

    def server(self, forge: Forge) -> Server:
        """The server (and token) the forge is asked at; made once per forge, since
        every URL resolved asks for every forge's."""
        made = self._made.get(forge.name)
        if made is None:
            url = dict(self.urls).get(forge.name, forge.default_url)
            made = Server(url.rstrip("/"), dict(self.tokens).get(forge.name))
            self._made[forge.name] = made
        return made


@dataclass(frozen=True)
class Unwrapped:
    """A forge's first answer turned into the file: `outcome` is it (or what replaces
    it, a `Gone` when the repository has no README), or `again` is the request that
    fetches it; `path` is the file's path in the repository when the answer named it."""

    outcome: FetchOutcome | None
    path: str | None = None
    again: FetchRequest | None = None


class Forge(Protocol):
    """What a forge's adapter does; see the module docstring."""

    name: str
    """The adapter's name, which `Servers` and the config use."""
    default_url: str
    """Where the forge is asked unless the config names another server."""

    def server(self, config: Config) -> Server:
        """The server and token the config names for this forge."""
        ...

    def recognise(self, url: str, server: Server) -> SourceRef | None:
        """The source a URL names on this forge, or None when it is not one of its."""
        ...

    @property
    def kinds(self) -> frozenset[SourceKind]:
        """The kinds of resolved source that are this forge's (each kind is one forge's)."""
        ...

    def request(
        self,
        ref: SourceRef,
        server: Server,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> FetchRequest:
        """The first request for the source's current version."""
        ...

    def unwrap(
        self,
        ref: SourceRef,
        outcome: Fetched,
        server: Server,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> Unwrapped:
        """The first answer as the file, or the request that fetches it."""
        ...

    async def version_at(
        self, history: History, ref: SourceRef, until: dt.datetime, *, current: bool
    ) -> Version | Absent | None:
        """The file as it stood at `until` (body None: as fetched this run)."""
        ...

    async def blame(
        self,
        history: History,
        ref: SourceRef,
        since: dt.datetime,
        still_holds: Callable[[bytes], bool],
    ) -> Blame | None:
        """The first commit after `since` whose file no longer holds the quote."""
        ...

    def named_path(self, ref: SourceRef) -> str | None:
        """The file's path as the source URL names it; None: a README, found by asking."""
        ...

    async def file_path(self, history: History, ref: SourceRef) -> str | None:
        """The file's path in the repository (a README's is asked for once)."""
        ...

    async def commit_before(
        self, history: History, ref: SourceRef, when: dt.datetime
    ) -> Blame | Absent | None:
        """The last commit of the file at or before `when`; ABSENT: the forge answered
        that there is none; None: it did not answer, which says nothing of the file."""
        ...

    async def file_at(self, history: History, ref: SourceRef, sha: str) -> bytes | None:
        """The file's raw body at a commit."""
        ...

    def permalink(
        self, ref: SourceRef, commit: str, path: str, lines: tuple[int, int] | None
    ) -> str | None:
        """The file at a commit, the lines selected; None: the forge has no such link."""
        ...

    def remembered_path(self, history: History, ref: SourceRef, path: str) -> None:
        """Tell history a README path a former run learned (kept in the store's notes)."""
        ...

    def learned_path(self, history: History, ref: SourceRef) -> str | None:
        """The README path history learned in this run, to keep in the store's notes."""
        ...


def line_anchor(lines: tuple[int, int] | None, *, between: str = "-L") -> str:
    """`#L10`, `#L10-L12` (GitHub, Forgejo, the Hub) or, `between="-"`, `#L10-12`
    (GitLab): the fragment a forge's blob view selects lines by; "" for no lines."""
    if lines is None:
        return ""
    first, last = lines
    return f"#L{first}" if first == last else f"#L{first}{between}{last}"


_MARKDOWN_SUFFIXES = (".md", ".markdown", ".mdown", ".mkd")


def media_of(path: str | None) -> MediaType:
    """A README (`path` None) or a Markdown file is read as Markdown, any other file as
    text: the same on every forge."""
    if path is None or path.lower().endswith(_MARKDOWN_SUFFIXES):
        return MediaType.MARKDOWN
    return MediaType.TEXT


def file_key(host: str, repository: list[str], path: str | None, ref: str | None) -> str:
    """The snapshot key of a forge's file, one shape on every forge:
    `HOST/REPO…/README[/ref-REF]` for a README, `HOST/REPO…/blob/REF/PATH…` for a file."""
    if path is None:
        return snapshot_key([host, *repository, "README", *([f"ref-{ref}"] if ref else [])])
    return snapshot_key([host, *repository, "blob", ref or "", *path.split("/")])


@dataclass(frozen=True)
class Version:
    """A source's body as it was at `date`, and where that copy came from.

    `body` is None when the version is the one in force now: the file has not changed
    since, so the body fetched in this run is that version, with no second download.
    """

    date: dt.datetime
    body: bytes | None
    origin: str


@dataclass(frozen=True)
class Absent:
    """History answered, and had no version at that time (the file or page was not
    there yet): worth remembering, unlike a failure, which is asked again next run."""


ABSENT = Absent()


@dataclass(frozen=True)
class Withheld:
    """History was not asked, by rule: the source's URL may not leave this machine (its
    address is internal, `guard.withheld_url`), or the Wayback Machine is turned off
    (`[history] wayback = false`). Like a failure it is no answer about the source."""

    reason: str


class Fetches(Protocol):
    """What history reads through: a `Fetcher`, or the run's answers over one (`Asked`)."""

    async def fetch(self, request: FetchRequest) -> FetchOutcome:
        """The outcome of one request, as `Fetcher.fetch` gives it."""
        ...


class FileCommits(Protocol):
    """One repository file's history on a forge: the commits that touched it, newest
    first, and the file at a commit. GitHub, GitLab and Forgejo each give one; the
    baseline and blame algorithms below are the same over all of them."""

    async def commits(
        self,
        *,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        per_page: int = 100,
        max_pages: int = MAX_PAGES,
    ) -> list[Blame] | None:
        """Commits that touched the file, newest first; None: history did not answer."""
        ...

    async def file_at(self, sha: str) -> bytes | None:
        """The file's raw body at a commit; None: not read."""
        ...


async def version_from_commits(
    files: FileCommits, until: dt.datetime, *, current: bool = False
) -> Version | Absent | None:
    """The file as it stood at `until`, dated by the commit that made it so.

    One request lists the file's newest commits: when the newest is not after
    `until`, the file is as it is now, and with `current` (the caller fetched the
    file this run) it is not downloaded again (`body` None); otherwise the list
    usually holds the commit in force at `until` and only that version is
    downloaded. A file changed more than a page of times since asks for the commit
    at `until` directly. None: history did not answer.
    """
    recent = await files.commits(per_page=_RECENT, max_pages=1)
    if recent is None:
        return None
    before = [c for c in recent if c.date <= until]
    if before and before[0] is recent[0] and current:
        return Version(date=recent[0].date, body=None, origin=f"commit {recent[0].sha}")
    if before:
        commit: Blame | None = before[0]
    elif len(recent) < _RECENT:
        return ABSENT  # every commit of the file is later: it was not there yet
    else:
        found = await files.commits(until=until, per_page=1, max_pages=1)
        if found is None:
            return None
        commit = found[0] if found else None
    if commit is None:
        return ABSENT
    body = await files.file_at(commit.sha)
    if body is None:
        return None
    return Version(date=commit.date, body=body, origin=f"commit {commit.sha}")


async def bisect_commits(
    files: FileCommits, since: dt.datetime, still_holds: Callable[[bytes], bool]
) -> tuple[Blame | None, int]:
    """The first commit since `since` after which `still_holds` is false.

    Bisects the commits that touched the file (oldest to newest), so the number
    of file fetches is logarithmic in the number of commits. Returns the commit
    (None when not found) and how many file versions were fetched.
    """
    commits = await files.commits(since=since)
    if not commits:
        return None, 0
    ordered: Sequence[Blame] = list(reversed(commits))
    low, high, fetched = 0, len(ordered) - 1, 0
    culprit: Blame | None = None
    while low <= high:
        middle = (low + high) // 2
        body = await files.file_at(ordered[middle].sha)
        fetched += 1
        if body is None:
            return None, fetched
        if still_holds(body):
            low = middle + 1
        else:
            culprit = ordered[middle]
            high = middle - 1
    return culprit, fetched
