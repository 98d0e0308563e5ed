"""Codeberg (Forgejo, Gitea): a repository's README or file read through API v1.

`https://codeberg.org/OWNER/REPO` (`/src/branch/REF` for another branch, `/src/tag/…`
and `/src/commit/…` alike) is the repository's README: the root folder's listing
(`GET /api/v1/repos/{owner}/{repo}/contents?ref=…`) names it (README.md first, as the
forge shows it), and the README is then read raw (`/raw/{path}?ref=…`), conditional on
the stored snapshot's validators, so an unchanged README answers 304 where the server
sends an ETag. `/src/branch/REF/PATH` is that file, read raw at once. History is
`/commits?path=…&sha=…&since=…&until=…` (GitHub-shaped commits, newest first, `Link`
pagination); a permalink is `…/src/commit/SHA/PATH#L10-L12`.

The server is `FORGEJO_URL` when set (a self-hosted Forgejo or Gitea, a test
server), else codeberg.org; URLs on codeberg.org and on that server's host are the
forge's. `FORGEJO_TOKEN` is sent to that server only. An unknown repository or file
answers 404: gone.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Callable
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlencode, urlsplit

from claimcheck.models import Blame, MediaType, SourceKind, SourceRef
from claimcheck.sources.adapters import Server, Unwrapped, line_anchor
from claimcheck.sources.adapters.paging import (
    MAX_PAGES,
    forge_request,
    get,
    iso,
    json_of,
    parse_date,
    read_commits,
)
from claimcheck.sources.keys import snapshot_key

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.sources.fetch import Fetched, FetchRequest
    from claimcheck.sources.history import Absent, History, Version

DEFAULT_FORGEJO_URL = "https://codeberg.org"
"""Codeberg, unless FORGEJO_URL (or `forgejo_url` in claimcheck.toml) names another."""

_PUBLIC_HOSTS = frozenset({"codeberg.org", "www.codeberg.org"})
_NAME = re.compile(r"^[A-Za-z0-9_.-]+$")
_REF_KINDS = frozenset({"branch", "tag", "commit"})
_RESERVED = frozenset(
    {
        "-",
        "admin",
        "api",
        "assets",
        "explore",
        "issues",
        "login",
        "notifications",
        "org",
        "pulls",
        "repo",
        "user",
    }
)
"""First path segments of the forge's own pages, which no owner may take."""
_README_ORDER = ("readme.md", "readme.markdown", "readme.rst", "readme.txt", "readme")


@dataclass(frozen=True)
class ForgejoFile:
    """Which file a Forgejo source is: `path` None means "the README"; `ref` None the
    default branch."""

    host: str
    owner: str
    repo: str
    path: str | None
    ref: str | None
    ref_kind: str = "branch"


def forgejo_file(url: str, server: Server) -> ForgejoFile | None:
    """The repository file a URL names, or None when it is not one: on codeberg.org,
    or on the configured server's host."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    netloc = parts.netloc.rpartition("@")[2].lower()
    if parts.scheme.lower() not in ("http", "https"):
        return None
    if host not in _PUBLIC_HOSTS and netloc != server.host:
        return None
    return _parse(url)


def _parse(url: str) -> ForgejoFile | None:
    """The repository file of a URL on a Forgejo host (the host is not looked at)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    netloc = parts.netloc.rpartition("@")[2].lower()
    segments = [unquote(s) for s in parts.path.split("/") if s]
    if len(segments) < 2 or segments[0].lower() in _RESERVED:
        return None
    owner, repo, rest = segments[0], segments[1], segments[2:]
    if not (_NAME.match(owner) and _NAME.match(repo)) or {owner, repo} & {".", ".."}:
        return None
    if any(s in (".", "..") or any(ord(c) < 0x20 for c in s) for s in rest):
        return None
    home = "codeberg.org" if host in _PUBLIC_HOSTS else netloc
    repo = repo.removesuffix(".git")
    if not rest:
        return ForgejoFile(home, owner, repo, None, None)
    if rest[0] == "src" and len(rest) >= 3 and rest[1] in _REF_KINDS:
        path = "/".join(rest[3:]) or None
        return ForgejoFile(home, owner, repo, path, rest[2], rest[1])
    return None


def api_url(server: Server) -> str:
    """The server's API v1."""
    return f"{server.url.rstrip('/')}/api/v1"


def repo_url(server: Server, file: ForgejoFile) -> str:
    """The repository's API address."""
    return f"{api_url(server)}/repos/{quote(file.owner, safe='')}/{quote(file.repo, safe='')}"


def raw_url(server: Server, file: ForgejoFile, path: str, ref: str | None) -> str:
    """A file of the repository, raw, at a ref (a branch, a tag, a commit; None: the
    default branch)."""
    url = f"{repo_url(server, file)}/raw/{quote(path)}"
    return url + (f"?{urlencode({'ref': ref})}" if ref else "")


def listing_url(server: Server, file: ForgejoFile) -> str:
    """The repository's root folder at the source's ref."""
    url = f"{repo_url(server, file)}/contents"
    return url + (f"?{urlencode({'ref': file.ref})}" if file.ref else "")


def readme_in(listing: Any) -> str | None:
    """The README of a root folder listing (`[{"name", "path", "type"}, …]`): README.md
    first, then the other spellings; "" for a listing without one, None for no listing."""
    if not isinstance(listing, list):
        return None
    files = {
        str(e["name"]).lower(): str(e.get("path") or e["name"])
        for e in listing
        if isinstance(e, dict) and e.get("type") == "file" and isinstance(e.get("name"), str)
    }
    for name in _README_ORDER:
        if name in files:
            return files[name]
    others = sorted(name for name in files if name.startswith("readme."))
    return files[others[0]] if others else ""


def forgejo_commit(item: Any) -> Blame | None:
    """One commit of the commits API (GitHub's shape: `sha`, `html_url`, `commit.
    {message, author, committer}`, `author.login`), or None when it lacks a field."""
    if not isinstance(item, dict) or not isinstance(item.get("sha"), str):
        return None
    details = item.get("commit")
    if not isinstance(details, dict):
        return None
    dates = [details.get(k) for k in ("committer", "author")]
    when = next(
        (parse_date(d.get("date")) for d in dates if isinstance(d, dict) and d.get("date")), None
    )
    if when is None:
        return None
    user = item.get("author")
    login = user.get("login") if isinstance(user, dict) else None
    written = details.get("author")
    name = written.get("name") if isinstance(written, dict) else None
    message = details.get("message")
    html = item.get("html_url")
    return Blame(
        sha=item["sha"],
        date=when,
        author=login if isinstance(login, str) and login else str(name or ""),
        title=message.splitlines()[0] if isinstance(message, str) and message else "",
        url=html if isinstance(html, str) else "",
    )


class ForgejoForge:
    """The Codeberg / Forgejo / Gitea adapter (see the module docstring)."""

    name = "forgejo"
    default_url = DEFAULT_FORGEJO_URL

    def server(self, config: Config) -> Server:
        return Server(config.forgejo_url, config.forgejo_token)

    def recognise(self, url: str, server: Server) -> SourceRef | None:
        file = forgejo_file(url, server)
        if file is None:
            return None
        base = f"https://{file.host}/{file.owner}/{file.repo}"
        if file.path is None:
            canonical = base + (f"/src/{file.ref_kind}/{file.ref}" if file.ref else "")
            key = [file.host, file.owner, file.repo, "README"]
            key += [f"ref-{file.ref}"] if file.ref else []
            fetch = listing_url(server, file)
        else:
            canonical = f"{base}/src/{file.ref_kind}/{file.ref}/{file.path}"
            key = [file.host, file.owner, file.repo, "blob", file.ref or "", *file.path.split("/")]
            fetch = raw_url(server, file, file.path, file.ref)
        return SourceRef(
            url=canonical,
            kind=SourceKind.FORGEJO,
            fetch_url=fetch,
            key=snapshot_key(key),
            media=_media(file.path),
        )

    def owns(self, ref: SourceRef) -> bool:
        return ref.kind is SourceKind.FORGEJO

    def request(
        self,
        ref: SourceRef,
        server: Server,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> FetchRequest:
        """A file raw, conditional; a README's root folder first (it names the README)."""
        if _file(ref).path is None:
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
        """The root listing becomes the README's raw request; no README is gone."""
        from claimcheck.sources.fetch import Gone

        file = _file(ref)
        if file.path is not None:
            return Unwrapped(outcome)
        path = readme_in(json_of(outcome.body))
        if path is None:
            return Unwrapped(outcome)  # no listing: the gate judges the answer as it came
        if not path:
            return Unwrapped(Gone(outcome.url, outcome.final_url, 404))
        again = raw_url(server, file, path, file.ref)
        request = forge_request(again, server, etag=etag, last_modified=last_modified)
        return Unwrapped(None, path, again=request)

    async def version_at(
        self, history: History, ref: SourceRef, until: dt.datetime, *, current: bool
    ) -> Version | Absent | None:
        from claimcheck.sources.history import version_from_commits

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
        from claimcheck.sources.history import bisect_commits

        commits = await self._commits(history, ref)
        if commits is None:
            return None
        culprit, _ = await bisect_commits(commits, since, still_holds)
        return culprit

    def named_path(self, ref: SourceRef) -> str | None:
        return _file(ref).path

    async def file_path(self, history: History, ref: SourceRef) -> str | None:
        from claimcheck.sources.fetch import Fetched

        server = history.servers.server(self)
        file = _file(ref)
        if file.path is not None:
            return file.path
        if ref.key not in history.paths:
            outcome = await get(history.fetcher, listing_url(server, file), server)
            path = readme_in(json_of(outcome.body)) if isinstance(outcome, Fetched) else None
            if not path:
                return None  # not known this time: asked again next run
            history.paths[ref.key] = path
        return history.paths[ref.key]

    async def commit_before(
        self, history: History, ref: SourceRef, when: dt.datetime
    ) -> Blame | None:
        commits = await self._commits(history, ref)
        found = (
            None if commits is None else await commits.commits(until=when, per_page=1, max_pages=1)
        )
        return found[0] if found else None

    async def file_at(self, history: History, ref: SourceRef, sha: str) -> bytes | None:
        commits = await self._commits(history, ref)
        return None if commits is None else await commits.file_at(sha)

    def permalink(
        self, ref: SourceRef, commit: str, path: str, lines: tuple[int, int] | None
    ) -> str | None:
        file = _file(ref)
        blob = f"https://{file.host}/{file.owner}/{file.repo}/src/commit/{commit}/{quote(path)}"
        return blob + line_anchor(lines)

    def remembered_path(self, history: History, ref: SourceRef, path: str) -> None:
        history.paths.setdefault(ref.key, path)

    def learned_path(self, history: History, ref: SourceRef) -> str | None:
        return history.paths.get(ref.key)

    async def _commits(self, history: History, ref: SourceRef) -> ForgejoCommits | None:
        path = await self.file_path(history, ref)
        if path is None:
            return None
        return ForgejoCommits(history, history.servers.server(self), _file(ref), path)


@dataclass(frozen=True)
class ForgejoCommits:
    """A Forgejo file's history as `sources.history.FileCommits`."""

    history: History
    server: Server
    file: ForgejoFile
    path: str

    async def commits(
        self,
        *,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        per_page: int = 100,
        max_pages: int = MAX_PAGES,
    ) -> list[Blame] | None:
        # stat, verification and files off: each costs the server a diff per commit.
        query = {"path": self.path, "limit": str(per_page), "stat": "false"}
        query |= {"verification": "false", "files": "false"}
        if self.file.ref:
            query["sha"] = self.file.ref
        if since:
            query["since"] = iso(since)
        if until:
            query["until"] = iso(until)
        url = f"{repo_url(self.server, self.file)}/commits?{urlencode(query)}"
        return await read_commits(
            self.history.fetcher, url, self.server, forgejo_commit, max_pages=max_pages
        )

    async def file_at(self, sha: str) -> bytes | None:
        from claimcheck.sources.fetch import Fetched

        url = raw_url(self.server, self.file, self.path, sha)
        outcome = await get(self.history.fetcher, url, self.server)
        return outcome.body if isinstance(outcome, Fetched) else None


FORGEJO = ForgejoForge()


def _file(ref: SourceRef) -> ForgejoFile:
    file = _parse(ref.url)
    assert file is not None, "a Forgejo adapter call for a source it does not own"
    return file


def _media(path: str | None) -> MediaType:
    if path is None or path.lower().endswith((".md", ".markdown", ".mdown", ".mkd")):
        return MediaType.MARKDOWN
    return MediaType.TEXT
