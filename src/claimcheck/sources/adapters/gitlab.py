"""GitLab: a project's README or file read through REST API v4, history from its commits.

`https://gitlab.com/GROUP/…/PROJECT` (subgroups included, `/-/tree/REF` for another
ref) is the project's README: the project (`GET /api/v4/projects/:id`, `:id` the
URL-encoded path) names its default branch and its README (`readme_url`), and the
README is then read raw (`/repository/files/:path/raw?ref=…`), conditional on the
stored snapshot's validators, so an unchanged README answers 304 where the server
sends an ETag. `/-/blob/REF/PATH` is that file, read raw at once. History is
`/repository/commits?path=…&ref_name=…&since=…&until=…` (newest first, `Link`
pagination); a permalink is `…/-/blob/SHA/PATH#L10-12`.

The server is `GITLAB_URL` when set (a self-hosted GitLab, a test server), else
gitlab.com; URLs on gitlab.com and on that server's host are GitLab's. `GITLAB_TOKEN`
is sent to that server only. A project GitLab does not know answers 404: gone.
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

DEFAULT_GITLAB_URL = "https://gitlab.com"
"""GitLab.com, unless GITLAB_URL (or `gitlab_url` in claimcheck.toml) names another."""
README_PATH = "README.md"

_PUBLIC_HOSTS = frozenset({"gitlab.com", "www.gitlab.com"})
_NAME = re.compile(r"^[A-Za-z0-9_.][A-Za-z0-9_.-]*$")
_RESERVED = frozenset(
    {
        "-",
        "admin",
        "api",
        "assets",
        "dashboard",
        "explore",
        "groups",
        "help",
        "oauth",
        "projects",
        "public",
        "search",
        "snippets",
        "uploads",
        "users",
    }
)
"""First path segments of GitLab pages that are no namespace (GitLab reserves them)."""


@dataclass(frozen=True)
class GitLabFile:
    """Which file a GitLab source is: `path` None means "the README"; `ref` None the
    default branch."""

    host: str
    project: str
    path: str | None
    ref: str | None


def gitlab_file(url: str, server: Server) -> GitLabFile | None:
    """The project file a URL names, or None when it is not a GitLab project's: on
    gitlab.com, or on the configured server's host."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    netloc = parts.netloc.rpartition("@")[2].lower()
    if parts.scheme.lower() not in ("http", "https"):
        return None
    if host not in _PUBLIC_HOSTS and netloc != server.host:
        return None
    return _parse(url)


def _parse(url: str) -> GitLabFile | None:
    """The project file of a URL on a GitLab host (the host is not looked at)."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    netloc = parts.netloc.rpartition("@")[2].lower()
    segments = [unquote(s) for s in parts.path.split("/") if s]
    cut = segments.index("-") if "-" in segments else len(segments)
    project, rest = segments[:cut], segments[cut + 1 :]
    if len(project) < 2 or project[0].lower() in _RESERVED:
        return None
    if not all(_NAME.match(s) and not s.endswith((".git", ".atom")) for s in project):
        return None
    if any(s in (".", "..") or any(ord(c) < 0x20 for c in s) for s in rest):
        return None
    home = "gitlab.com" if host in _PUBLIC_HOSTS else netloc
    name = "/".join(project)
    if cut == len(segments):
        return GitLabFile(home, name, None, None)
    if rest[:1] == ["tree"] and len(rest) >= 2:
        return GitLabFile(home, name, None, "/".join(rest[1:]))
    if rest[:1] == ["blob"] and len(rest) >= 3:
        return GitLabFile(home, name, "/".join(rest[2:]), rest[1])
    return None


def api_url(server: Server) -> str:
    """The server's REST API v4."""
    return f"{server.url.rstrip('/')}/api/v4"


def project_url(server: Server, file: GitLabFile) -> str:
    """The project's API address: its path URL-encoded as the `:id`."""
    return f"{api_url(server)}/projects/{quote(file.project, safe='')}"


def raw_url(server: Server, file: GitLabFile, path: str, ref: str | None) -> str:
    """A file of the project, raw, at a ref (a branch, a tag, a commit; None: HEAD)."""
    url = f"{project_url(server, file)}/repository/files/{quote(path, safe='')}/raw"
    return url + (f"?{urlencode({'ref': ref})}" if ref else "")


def gitlab_commit(item: Any) -> Blame | None:
    """One commit of the commits API (`id`, `title`, `author_name`, `committed_date`,
    `web_url`), or None when it lacks what history needs."""
    if not isinstance(item, dict) or not isinstance(item.get("id"), str):
        return None
    when = parse_date(item.get("committed_date") or item.get("created_at"))
    if when is None:
        return None
    title = item.get("title")
    if not isinstance(title, str) or not title:
        message = item.get("message")
        title = message.splitlines()[0] if isinstance(message, str) and message else ""
    author = item.get("author_name")
    web = item.get("web_url")
    return Blame(
        sha=item["id"],
        date=when,
        author=author if isinstance(author, str) else "",
        title=title,
        url=web if isinstance(web, str) else "",
    )


def readme_of(project: Any) -> tuple[str, str | None] | None:
    """The README path and default branch a project answer names; None when the
    answer is no project; ("", branch) when the project has no README."""
    if not isinstance(project, dict) or "readme_url" not in project:
        return None
    branch = project.get("default_branch")
    branch = branch if isinstance(branch, str) and branch else None
    readme = project.get("readme_url")
    if not isinstance(readme, str) or "/-/blob/" not in readme:
        return "", branch
    rest = urlsplit(readme).path.split("/-/blob/", 1)[1]
    prefix = f"{quote(branch, safe='/')}/" if branch else ""
    # The branch may hold slashes: cut it as written; else the first segment is it.
    path = rest[len(prefix) :] if branch and rest.startswith(prefix) else rest.partition("/")[2]
    rest = path
    return unquote(rest) or README_PATH, branch


class GitLabForge:
    """The GitLab adapter (see the module docstring)."""

    name = "gitlab"
    default_url = DEFAULT_GITLAB_URL

    def server(self, config: Config) -> Server:
        return Server(config.gitlab_url, config.gitlab_token)

    def recognise(self, url: str, server: Server) -> SourceRef | None:
        file = gitlab_file(url, server)
        if file is None:
            return None
        base = f"https://{file.host}/{file.project}"
        if file.path is None:
            canonical = base + (f"/-/tree/{file.ref}" if file.ref else "")
            key = [file.host, *file.project.split("/"), "README"]
            key += [f"ref-{file.ref}"] if file.ref else []
            fetch = project_url(server, file)
        else:
            canonical = f"{base}/-/blob/{file.ref}/{file.path}"
            key = [
                file.host,
                *file.project.split("/"),
                "blob",
                file.ref or "",
                *file.path.split("/"),
            ]
            fetch = raw_url(server, file, file.path, file.ref)
        return SourceRef(
            url=canonical,
            kind=SourceKind.GITLAB,
            fetch_url=fetch,
            key=snapshot_key(key),
            media=_media(file.path),
        )

    def owns(self, ref: SourceRef) -> bool:
        return ref.kind is SourceKind.GITLAB

    def request(
        self,
        ref: SourceRef,
        server: Server,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> FetchRequest:
        """A file raw, conditional; a README's project first (it names the README)."""
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
        """The project answer becomes the README's raw request; no README is gone."""
        from claimcheck.sources.fetch import Gone

        file = _file(ref)
        if file.path is not None:
            return Unwrapped(outcome)
        named = readme_of(json_of(outcome.body))
        if named is None:
            return Unwrapped(outcome)  # no project answer: the gate judges it as it came
        path, branch = named
        if not path:
            return Unwrapped(Gone(outcome.url, outcome.final_url, 404))
        again = raw_url(server, file, path, file.ref or branch)
        request = forge_request(again, server, etag=etag, last_modified=last_modified)
        return Unwrapped(None, path, again=request)

    async def version_at(
        self, history: History, ref: SourceRef, until: dt.datetime, *, current: bool
    ) -> Version | Absent | None:
        from claimcheck.sources.history import version_from_commits

        commits = await self._commits(history, ref)
        return (
            None if commits is None else await version_from_commits(commits, until, current=current)
        )

    async def blame(
        self,
        history: History,
        ref: SourceRef,
        since: dt.datetime,
        still_holds: Callable[[bytes], bool],
    ) -> Blame | None:
        from claimcheck.sources.history import bisect_commits

        commits = await self._commits(history, ref)
        return None if commits is None else (await bisect_commits(commits, since, still_holds))[0]

    def named_path(self, ref: SourceRef) -> str | None:
        return _file(ref).path

    async def file_path(self, history: History, ref: SourceRef) -> str | None:
        server = history.servers.server(self)
        file = _file(ref)
        if file.path is not None:
            return file.path
        if ref.key not in history.paths:
            outcome = await get(history.fetcher, project_url(server, file), server)
            from claimcheck.sources.fetch import Fetched

            named = readme_of(json_of(outcome.body)) if isinstance(outcome, Fetched) else None
            if named is None or not named[0]:
                return None  # not known this time: asked again next run
            history.paths[ref.key] = named[0]
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
        blob = f"https://{file.host}/{file.project}/-/blob/{commit}/{quote(path)}"
        return blob + line_anchor(lines, between="-")

    def remembered_path(self, history: History, ref: SourceRef, path: str) -> None:
        history.paths.setdefault(ref.key, path)

    def learned_path(self, history: History, ref: SourceRef) -> str | None:
        return history.paths.get(ref.key)

    async def _commits(self, history: History, ref: SourceRef) -> GitLabCommits | None:
        server = history.servers.server(self)
        path = await self.file_path(history, ref)
        if path is None:
            return None
        return GitLabCommits(history, server, _file(ref), path)


@dataclass(frozen=True)
class GitLabCommits:
    """A GitLab file's history as `sources.history.FileCommits`."""

    history: History
    server: Server
    file: GitLabFile
    path: str

    async def commits(
        self,
        *,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        per_page: int = 100,
        max_pages: int = MAX_PAGES,
    ) -> list[Blame] | None:
        query = {"path": self.path, "per_page": str(per_page)}
        if self.file.ref:
            query["ref_name"] = self.file.ref
        if since:
            query["since"] = iso(since)
        if until:
            query["until"] = iso(until)
        url = f"{project_url(self.server, self.file)}/repository/commits?{urlencode(query)}"
        return await read_commits(
            self.history.fetcher, url, self.server, gitlab_commit, max_pages=max_pages
        )

    async def file_at(self, sha: str) -> bytes | None:
        from claimcheck.sources.fetch import Fetched

        url = raw_url(self.server, self.file, self.path, sha)
        outcome = await get(self.history.fetcher, url, self.server)
        return outcome.body if isinstance(outcome, Fetched) else None


GITLAB = GitLabForge()


def _file(ref: SourceRef) -> GitLabFile:
    file = _parse(ref.url)
    assert file is not None, "a GitLab adapter call for a source it does not own"
    return file


def _media(path: str | None) -> MediaType:
    if path is None or path.lower().endswith((".md", ".markdown", ".mdown", ".mkd")):
        return MediaType.MARKDOWN
    return MediaType.TEXT
