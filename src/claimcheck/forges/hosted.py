"""What GitLab and Forgejo share: one adapter class, each forge a subclass of it.

Both are forges anyone may host, so a source's server is the configured one (its token
sent there only) and its URLs are on the public site or on that server's host. Both
read a file raw through their API; both find a README by a first request whose
answer names it (GitLab's project, Forgejo's root listing), then read it raw,
conditional on the stored snapshot's validators; both read history from a paginated
commit list (`api.read_pages`) and remember a README's path by snapshot key in
`History.paths`. That plumbing is written once here; a subclass keeps only what truly
differs: its site and URL shapes, its API paths, how its first answer names the
README, how it lists and reads commits, and its permalink. GitHub and the Hub differ
in each of those steps (each in its own module, `forges.github` and
`forges.huggingface`) and stay apart.
"""

from __future__ import annotations

import datetime as dt
from abc import ABC, abstractmethod
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any, Generic, Protocol, TypeVar
from urllib.parse import SplitResult, urlencode, urlsplit

from claimcheck.forges.api import (
    body_of,
    forge_request,
    get,
    gone_as,
    iso,
    json_of,
    read_commits,
)
from claimcheck.forges.forge import (
    ABSENT,
    MAX_PAGES,
    Absent,
    Server,
    Unwrapped,
    Version,
    bisect_commits,
    file_key,
    media_of,
    version_from_commits,
)
from claimcheck.models import Blame, SourceKind, SourceRef

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.forges.history import History
    from claimcheck.net.fetch import Fetched, FetchRequest


def with_ref(url: str, ref: str | None) -> str:
    """An API address at a ref (`?ref=…`); as it is when `ref` is None (the default branch)."""
    return url + (f"?{urlencode({'ref': ref})}" if ref else "")


def dated(query: dict[str, str], since: dt.datetime | None, until: dt.datetime | None) -> str:
    """A commits query with its time window (`since`, `until`) last, URL-encoded."""
    window = {"since": iso(since)} if since else {}
    window |= {"until": iso(until)} if until else {}
    return urlencode(query | window)


@dataclass(frozen=True)
class Site:
    """A forge's public site: the host its sources are named under (`home`) and every
    host that serves it."""

    home: str
    hosts: frozenset[str]

    def serves(self, url: str, server: Server) -> bool:
        """Whether a URL is the forge's: http(s), on the public site or on the
        configured server's host."""
        parts = urlsplit(url)
        if parts.scheme.lower() not in ("http", "https"):
            return False
        return (parts.hostname or "").lower() in self.hosts or _netloc(parts) == server.host

    def home_of(self, url: str) -> str:
        """The host a URL's source is named under: the public site's, else its own."""
        parts = urlsplit(url)
        return self.home if (parts.hostname or "").lower() in self.hosts else _netloc(parts)


class HostedFile(Protocol):
    """A file on a hosted forge: `path` None means "the README", `ref` None the
    default branch."""

    @property
    def host(self) -> str: ...

    @property
    def path(self) -> str | None: ...

    @property
    def ref(self) -> str | None: ...


F = TypeVar("F", bound=HostedFile)


class HostedForge(ABC, Generic[F]):
    """The adapter of a forge anyone may host; a subclass names what differs."""

    name: str
    default_url: str
    kind: SourceKind
    """The kind of source this forge's are (`owns`)."""
    site: Site

    @abstractmethod
    def server(self, config: Config) -> Server:
        """The server and token the config names for this forge."""

    @abstractmethod
    def parse(self, url: str) -> F | None:
        """The file a URL on the forge names (the host is not looked at)."""

    @abstractmethod
    def canonical_url(self, file: F) -> str:
        """The file's web address, as a source is stored and shown."""

    @abstractmethod
    def repository(self, file: F) -> list[str]:
        """The segments naming the file's repository in its snapshot key."""

    @abstractmethod
    def readme_url(self, server: Server, file: F) -> str:
        """The first request for a README: its answer names the README."""

    @abstractmethod
    def readme_named(self, answer: Any) -> tuple[str, str | None] | None:
        """The README path and default branch (None: not said) the first answer names;
        ("", …) when the repository has none; None when the answer is not that one."""

    @abstractmethod
    def raw_url(self, server: Server, file: F, path: str, ref: str | None) -> str:
        """A file of the repository, raw, at a ref (None: the default branch)."""

    @abstractmethod
    def commits_url(
        self,
        server: Server,
        file: F,
        path: str,
        *,
        per_page: int,
        since: dt.datetime | None,
        until: dt.datetime | None,
    ) -> str:
        """The first page of the commits that touched `path`, newest first."""

    @abstractmethod
    def commit_of(self, item: Any) -> Blame | None:
        """One commit of the commits answer; None when it lacks what history needs."""

    @abstractmethod
    def permalink(
        self, ref: SourceRef, commit: str, path: str, lines: tuple[int, int] | None
    ) -> str | None:
        """The file at a commit, the lines selected."""

    def file_of(self, ref: SourceRef) -> F:
        """The file behind a source this forge owns."""
        file = self.parse(ref.url)
        assert file is not None, f"a {self.name} adapter call for a source it does not own"
        return file

    def recognise(self, url: str, server: Server) -> SourceRef | None:
        file = self.parse(url) if self.site.serves(url, server) else None
        if file is None:
            return None
        path = file.path
        if path is None:
            fetch = self.readme_url(server, file)
        else:
            fetch = self.raw_url(server, file, path, file.ref)
        return SourceRef(
            url=self.canonical_url(file),
            kind=self.kind,
            fetch_url=fetch,
            key=file_key(file.host, self.repository(file), path, file.ref),
            media=media_of(path),
        )

    @property
    def kinds(self) -> frozenset[SourceKind]:
        return frozenset({self.kind})

    def request(
        self,
        ref: SourceRef,
        server: Server,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> FetchRequest:
        """A file raw, conditional; a README's first request not (it names the README)."""
        if self.file_of(ref).path is None:
            return forge_request(ref.fetch_url, server)
        return forge_request(ref.fetch_url, server, etag=etag, last_modified=last_modified)

    def unwrap(
        self,
        ref: SourceRef,
        outcome: Fetched,
        server: Server,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> Unwrapped:
        """The first answer becomes the README's raw request; no README is gone."""
        file = self.file_of(ref)
        if file.path is not None:
            return Unwrapped(outcome)
        named = self.readme_named(json_of(outcome.body))
        if named is None:
            return Unwrapped(outcome)  # not the answer asked for: the gate judges it as it came
        path, branch = named
        if not path:
            return Unwrapped(gone_as(outcome, 404))
        again = self.raw_url(server, file, path, file.ref or branch)
        request = forge_request(again, server, etag=etag, last_modified=last_modified)
        return Unwrapped(None, path, again=request)

    async def version_at(
        self, history: History, ref: SourceRef, until: dt.datetime, *, current: bool
    ) -> Version | Absent | None:
        commits = await self._commits(history, ref)
        if commits is None:
            return None
        return await version_from_commits(commits, until, current=current)

    async def blame(
        self,
        history: History,
        ref: SourceRef,
        since: dt.datetime,
        still_holds: Callable[[bytes], bool],
    ) -> Blame | None:
        commits = await self._commits(history, ref)
        if commits is None:
            return None
        culprit, _ = await bisect_commits(commits, since, still_holds)
        return culprit

    def named_path(self, ref: SourceRef) -> str | None:
        return self.file_of(ref).path

    async def file_path(self, history: History, ref: SourceRef) -> str | None:
        file = self.file_of(ref)
        if file.path is not None:
            return file.path
        if ref.key not in history.paths:
            server = history.servers.server(self)
            body = body_of(await get(history.fetcher, self.readme_url(server, file), server))
            named = None if body is None else self.readme_named(json_of(body))
            if named is None or not named[0]:
                return None  # not known this time: asked again next run
            history.paths[ref.key] = named[0]
        return history.paths[ref.key]

    async def commit_before(
        self, history: History, ref: SourceRef, when: dt.datetime
    ) -> Blame | Absent | None:
        commits = await self._commits(history, ref)
        found = (
            None if commits is None else await commits.commits(until=when, per_page=1, max_pages=1)
        )
        if found is None:
            return None
        return found[0] if found else ABSENT

    async def file_at(self, history: History, ref: SourceRef, sha: str) -> bytes | None:
        commits = await self._commits(history, ref)
        return None if commits is None else await commits.file_at(sha)

    def remembered_path(self, history: History, ref: SourceRef, path: str) -> None:
        history.paths.setdefault(ref.key, path)

    def learned_path(self, history: History, ref: SourceRef) -> str | None:
        return history.paths.get(ref.key)

    async def _commits(self, history: History, ref: SourceRef) -> HostedCommits[F] | None:
        path = await self.file_path(history, ref)
        if path is None:
            return None
        return HostedCommits(self, history, history.servers.server(self), self.file_of(ref), path)


@dataclass(frozen=True)
class HostedCommits(Generic[F]):
    """A hosted forge's file history as `forge.FileCommits`."""

    forge: HostedForge[F]
    history: History
    server: Server
    file: F
    path: str

    async def commits(
        self,
        *,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        per_page: int = 100,
        max_pages: int = MAX_PAGES,
    ) -> list[Blame] | None:
        url = self.forge.commits_url(
            self.server, self.file, self.path, per_page=per_page, since=since, until=until
        )
        return await read_commits(
            self.history.fetcher,
            url,
            lambda page: forge_request(page, self.server),
            self.forge.commit_of,
            max_pages=max_pages,
        )

    async def file_at(self, sha: str) -> bytes | None:
        url = self.forge.raw_url(self.server, self.file, self.path, sha)
        return body_of(await get(self.history.fetcher, url, self.server))


def _netloc(parts: SplitResult) -> str:
    """The host and port, without any user info: what a server's token is bound to."""
    return parts.netloc.rpartition("@")[2].lower()
