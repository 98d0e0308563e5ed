"""Source adapters: one small module per forge, each behind the `Forge` interface.

A forge is a host whose files are read through an API rather than scraped: GitHub, the
Hugging Face Hub, GitLab, Codeberg (Forgejo, Gitea). Its adapter recognises its URLs
and resolves them (`SourceRef`), builds the request for the current version (its own
server, its own token, sent to that host only, and what counts as "gone" there), turns
the answer into the file (a second request when the first one only names it), reads
its history (the file as of a date, the commit that changed a quote, the commit of a
snapshot) and names a permalink (the file at a commit, with a line range).

Everything else asks the registry (`ADAPTERS`, `forge_of`) and never branches on the
forge: adding one is adding a file here and its line in `ADAPTERS` (and, when it has a
server override, its two settings in `config`). GitLab and Forgejo, alike in every step
but their URLs and API paths, are subclasses of one `hosted.HostedForge`. A URL no
adapter recognises is a web page. Resolving stays offline and pure: no adapter imports
the fetcher at module level.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Callable
from dataclasses import dataclass, field
from typing import TYPE_CHECKING, Protocol
from urllib.parse import urlsplit

from claimcheck.models import Blame, MediaType, SourceKind, SourceRef
from claimcheck.store.keys import snapshot_key

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.forges.history import Absent, History, Version
    from claimcheck.net.fetch import Fetched, FetchOutcome, FetchRequest


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


def _registered() -> tuple[Forge, ...]:
    from claimcheck.forges.adapters.forgejo import FORGEJO
    from claimcheck.forges.adapters.github import GITHUB
    from claimcheck.forges.adapters.gitlab import GITLAB
    from claimcheck.forges.adapters.huggingface import HUGGING_FACE

    # Order matters only where two could claim a URL: none do today.
    return (HUGGING_FACE, GITHUB, GITLAB, FORGEJO)


ADAPTERS: tuple[Forge, ...] = _registered()
"""Every forge claimcheck reads, asked in this order; a URL none claims is a web page."""


_BY_KIND: dict[SourceKind, Forge] = {kind: forge for forge in ADAPTERS for kind in forge.kinds}


def forge_of(ref: SourceRef) -> Forge | None:
    """The adapter of a resolved source; None for a web page. A lookup by the source's
    kind: every claim asks it several times a run."""
    return _BY_KIND.get(ref.kind)


def recognise(url: str, servers: Servers) -> SourceRef | None:
    """The source a URL names on the first forge that claims it; None: a web page."""
    for forge in ADAPTERS:
        ref = forge.recognise(url, servers.server(forge))
        if ref is not None:
            return ref
    return None


def servers_of(config: Config) -> Servers:
    """Every forge's server and token, as the config names them.

    Made once per config: a run asks for every claim (its baseline, its citation),
    and a config is frozen, so what it names cannot change under the answer. The
    config is held beside its answer, so its `id` is not reused while it is kept.
    """
    held = _SERVERS_OF.get(id(config))
    if held is not None and held[0] is config:
        return held[1]
    named = [(forge.name, forge.server(config)) for forge in ADAPTERS]
    servers = Servers(
        urls=tuple((name, server.url) for name, server in named),
        tokens=tuple((name, server.token) for name, server in named if server.token),
    )
    if len(_SERVERS_OF) >= _SERVERS_KEPT:
        _SERVERS_OF.clear()
    _SERVERS_OF[id(config)] = (config, servers)
    return servers


_SERVERS_OF: dict[int, tuple[Config, Servers]] = {}
_SERVERS_KEPT = 16  # a run has one config; tests and commands make a few more


def default_servers(api_url: str, hf_endpoint: str | None) -> Servers:
    """The servers `resolve_source` is told of by its two legacy arguments."""
    urls = [("github", api_url)]
    if hf_endpoint:
        urls.append(("huggingface", hf_endpoint))
    return Servers(urls=tuple(urls))
