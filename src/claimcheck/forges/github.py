"""GitHub: READMEs and repository files read through the REST API, history from its commits.

A README (`github.com/OWNER/REPO`, `/tree/REF`) is asked for as the README content
object, which carries the file and its path (history needs the path, so the README is
downloaded once); a file (`/blob/REF/PATH`, `raw.githubusercontent.com/…`) is asked for
raw. The token (`GITHUB_TOKEN`) goes to the API host only. History is the commits that
touched the file (`GitHubHistory`, on the run's `forges.history.History`), walked and
bisected by the algorithms every forge shares (`forge.version_from_commits`,
`forge.bisect_commits`); permalinks are `…/blob/SHA/PATH#L1-L2`.
"""

from __future__ import annotations

import base64
import binascii
import datetime as dt
import difflib
import functools
import re
from collections.abc import Callable
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any
from urllib.parse import quote, unquote, urlencode, urlsplit

from claimcheck.forges.api import body_of, dig, forge_request, iso, json_of, read_commits
from claimcheck.forges.forge import (
    ABSENT,
    MAX_PAGES,
    Absent,
    Fetches,
    Server,
    Unwrapped,
    Version,
    bisect_commits,
    file_key,
    media_of,
    version_from_commits,
)
from claimcheck.judge.permalink import github_blob_url
from claimcheck.models import DEFAULT_API_URL, Blame, MediaType, SourceKind, SourceRef
from claimcheck.store.keys import snapshot_key

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.forges.history import History
    from claimcheck.net.fetch import Fetched, FetchRequest

RAW_MEDIA_TYPE = "application/vnd.github.raw+json"
JSON_MEDIA_TYPE = "application/vnd.github+json"
GITHUB_API_VERSION = "2022-11-28"
README_PATH = "README.md"

_GITHUB_HOSTS = {"github.com", "www.github.com"}
_RAW_HOST = "raw.githubusercontent.com"
_OWNER = re.compile(r"^[A-Za-z0-9](?:[A-Za-z0-9-]*[A-Za-z0-9])?$")
_REPO = re.compile(r"^[A-Za-z0-9._-]+$")


@dataclass(frozen=True)
class GitHubFile:
    """Which repository file a GitHub source is: `path` None means "the README"."""

    owner: str
    repo: str
    path: str | None
    ref: str | None


@dataclass(frozen=True)
class ReadmeContent:
    """What GitHub's README content object says: the file's bytes (None when GitHub
    leaves them out, for files over 1 MB) and its path in the repository."""

    body: bytes | None
    path: str | None


def github_source(url: str, api_url: str = DEFAULT_API_URL) -> SourceRef | None:
    """The GitHub README or file a URL names, read through the API at `api_url`."""
    parts = urlsplit(url)
    host = (parts.hostname or "").lower()
    segments = [s for s in parts.path.split("/") if s]
    api = api_url.rstrip("/")
    if any(s in (".", "..") for s in segments):
        return None
    if host in _GITHUB_HOSTS and len(segments) >= 2 and _is_repo(segments[0], segments[1]):
        owner, repo = segments[0], _strip_git(segments[1])
        rest = segments[2:]
        if rest[:1] == ["blob"] and len(rest) >= 3:
            return _github_file(api, owner, repo, rest[1], rest[2:])
        if rest[:1] == ["tree"] and len(rest) >= 2:
            return _github_readme(api, owner, repo, "/".join(rest[1:]))
        if not rest:
            return _github_readme(api, owner, repo, None)
    if host == _RAW_HOST and len(segments) >= 4 and _is_repo(segments[0], segments[1]):
        return _github_file(api, segments[0], segments[1], segments[2], segments[3:])
    if host == "api.github.com" and segments[:1] == ["repos"] and len(segments) >= 3:
        owner, repo, rest = segments[1], segments[2], segments[3:]
        if _is_repo(owner, repo) and rest in ([], ["releases", "latest"]):
            return _github_repository(api, owner, repo, "/".join(["", *rest]) if rest else "")
    return None


REPOSITORY_FIELDS = {
    "license": ("", "/license/spdx_id"),
    "latest-release": ("/releases/latest", "/tag_name"),
    "default-branch": ("", "/default_branch"),
}
"""The fields of a repository a claim may name on its URL (`github.com/OWNER/REPO`):
each read from an answer of GitHub's REST API (the repository object, `GET
/repos/{owner}/{repo}`, or its latest release, `GET /repos/{owner}/{repo}/releases/latest`),
as the path of that answer under the API and the JSON Pointer into it."""
_PUBLIC_API = "https://api.github.com"


def repository_field(url: str, name: str) -> tuple[str, str] | str | None:
    """For a claim on a field `name` of the repository at `url` (`github.com/OWNER/REPO`,
    nothing after it): the source its value is read from (the public API's URL of the
    answer, resolved to the run's API server as every GitHub source is) and the JSON
    Pointer into it; the problem, for a name that is no repository field; None when
    `url` is not a repository or `name` is a JSON Pointer (a README's front matter)."""
    if name.startswith("/"):
        return None
    parts = urlsplit(url)
    segments = [s for s in parts.path.split("/") if s]
    host = (parts.hostname or "").lower()
    if host not in _GITHUB_HOSTS or len(segments) != 2 or not _is_repo(*segments):
        return None
    known = REPOSITORY_FIELDS.get(name)
    if known is None:
        names = ", ".join(f"`{field}`" for field in REPOSITORY_FIELDS)
        close = difflib.get_close_matches(name, list(REPOSITORY_FIELDS), n=1)
        mean = f"; did you mean {close[0]!r}?" if close else ""
        return f"{name!r} is no field of a GitHub repository: give one of {names}{mean}"
    owner, repo = segments[0], _strip_git(segments[1])
    tail, pointer = known
    return f"{_PUBLIC_API}/repos/{owner}/{repo}{tail}", pointer


def repository_page(source: str) -> str | None:
    """The page a reader opens for a repository field's source (`repository_field`):
    `https://github.com/OWNER/REPO` for the repository object's API URL, `…/releases/latest`
    for the latest release's; None for any other source. What `archive` captures: the
    API's JSON is no page a reader of the article would follow."""
    prefix = f"{_PUBLIC_API}/repos/"
    if not source.startswith(prefix):
        return None
    rest = source.removeprefix(prefix)
    for tail, _ in REPOSITORY_FIELDS.values():
        owner_repo = rest.removesuffix(tail) if tail else rest
        if (not tail or rest.endswith(tail)) and owner_repo.count("/") == 1:
            owner, repo = owner_repo.split("/")
            if _is_repo(owner, repo):
                return f"https://github.com/{owner}/{repo}{tail}"
    return None


def github_file(ref: SourceRef) -> GitHubFile | None:
    """The repository file behind a GitHub source, for reading its history.

    Memoized on the source's kind and URL (which decide it): a run asks it for every
    claim's history, citation and permalink, and the parse of the URL was most of the
    cost; hashing the whole source for the memo cost nearly as much again."""
    return _github_file_of(ref.kind, ref.url)


@functools.lru_cache(maxsize=1 << 16)
def _github_file_of(kind: SourceKind, url: str) -> GitHubFile | None:
    if kind not in (SourceKind.GITHUB_README, SourceKind.GITHUB_FILE):
        return None
    segments = [unquote(s) for s in urlsplit(url).path.split("/") if s]
    owner, repo, rest = segments[0], segments[1], segments[2:]
    if kind is SourceKind.GITHUB_README:
        return GitHubFile(owner, repo, None, "/".join(rest[1:]) or None)
    return GitHubFile(owner, repo, "/".join(rest[2:]), rest[1])


def readme_content(body: bytes, content_type: str | None) -> ReadmeContent | None:
    """The README inside a content object answer; None when the answer is not one
    (a raw body, an error page, a rate-limit message: the plausibility gate judges it
    as it came)."""
    mime = (content_type or "").split(";", 1)[0].strip().lower()
    if not (mime == "application/json" or mime.startswith("application/vnd.github")):
        return None
    document = json_of(body)
    if not isinstance(document, dict) or document.get("type") != "file":
        return None
    path = document.get("path")
    path = path if isinstance(path, str) and path else None
    content, encoding = document.get("content"), document.get("encoding")
    if encoding != "base64" or not isinstance(content, str) or not content:
        return ReadmeContent(None, path)  # too large to be inlined: ask for it raw
    try:
        return ReadmeContent(base64.b64decode(content, validate=False), path)
    except (ValueError, binascii.Error):
        return None


def renamed_repository(moved_to: str, api_url: str) -> str | None:
    """The API URL of a renamed repository, from where the API redirected a request.

    GitHub answers a renamed repository's old API paths with a permanent redirect to
    `/repositories/{id}/…`; that URL names no repository, so the repository itself is
    asked for its new `full_name`.
    """
    api = api_url.rstrip("/")
    match = re.match(re.escape(api) + r"/repositories/(\d+)(?:/|$|\?)", moved_to)
    return f"{api}/repositories/{match.group(1)}" if match else None


def rename_github_url(url: str, full_name: str) -> str:
    """The github.com URL of a source after its repository was renamed to `full_name`."""
    parts = urlsplit(url)
    rest = [s for s in parts.path.split("/") if s][2:]
    return "/".join([f"https://github.com/{full_name}", *rest])


class GitHubForge:
    """The GitHub adapter (see the module docstring)."""

    name = "github"
    default_url = DEFAULT_API_URL

    def server(self, config: Config) -> Server:
        return Server(config.github_api_url, config.github_token)

    def recognise(self, url: str, server: Server) -> SourceRef | None:
        return github_source(url, server.url)

    kinds = frozenset({SourceKind.GITHUB_README, SourceKind.GITHUB_FILE, SourceKind.GITHUB_REPO})

    def request(
        self,
        ref: SourceRef,
        server: Server,
        *,
        etag: str | None = None,
        last_modified: str | None = None,
    ) -> FetchRequest:
        return api_request(
            ref.fetch_url,
            ref.accept,
            api_url=server.url,
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
        """A README's content object as the README; one over 1 MB, which the object
        leaves out, is asked for again raw."""
        if ref.kind is not SourceKind.GITHUB_README:
            return Unwrapped(outcome)
        content = readme_content(outcome.body, outcome.content_type)
        if content is None:
            return Unwrapped(outcome)
        if content.body is None:
            raw = api_request(ref.fetch_url, RAW_MEDIA_TYPE, api_url=server.url, token=server.token)
            return Unwrapped(None, content.path, again=raw)
        unwrapped = replace(outcome, body=content.body, content_type=RAW_MEDIA_TYPE)
        return Unwrapped(unwrapped, content.path)

    async def version_at(
        self, history: History, ref: SourceRef, until: dt.datetime, *, current: bool
    ) -> Version | Absent | None:
        if ref.kind is SourceKind.GITHUB_REPO:  # its data has no history: remembered so
            return ABSENT
        return await history.github.version(_file(ref), until, current=current)

    async def blame(
        self,
        history: History,
        ref: SourceRef,
        since: dt.datetime,
        still_holds: Callable[[bytes], bool],
    ) -> Blame | None:
        if ref.kind is SourceKind.GITHUB_REPO:
            return None
        culprit, _ = await history.github.blame(_file(ref), since, still_holds)
        return culprit

    def named_path(self, ref: SourceRef) -> str | None:
        source = github_file(ref)
        return source.path if source is not None else None

    async def file_path(self, history: History, ref: SourceRef) -> str | None:
        source = github_file(ref)
        if source is None:
            return None  # a repository's data is no file
        return source.path or await history.github.readme_path(source)

    async def commit_before(
        self, history: History, ref: SourceRef, when: dt.datetime
    ) -> Blame | Absent | None:
        if ref.kind is SourceKind.GITHUB_REPO:
            return None
        return await history.github.commit_before(_file(ref), when)

    async def file_at(self, history: History, ref: SourceRef, sha: str) -> bytes | None:
        if ref.kind is SourceKind.GITHUB_REPO:
            return None
        return await history.github.file_at(_file(ref), sha)

    def permalink(
        self, ref: SourceRef, commit: str, path: str, lines: tuple[int, int] | None
    ) -> str | None:
        source = github_file(ref)
        if source is None:
            return None
        return github_blob_url(source.owner, source.repo, commit, path, lines)

    def remembered_path(self, history: History, ref: SourceRef, path: str) -> None:
        source = github_file(ref)
        if source is not None and source.path is None:
            history.github.readme_paths[readme_key(source)] = path

    def learned_path(self, history: History, ref: SourceRef) -> str | None:
        source = github_file(ref)
        paths = history.github.readme_paths
        return paths.get(readme_key(source)) if source and source.path is None else None


GITHUB = GitHubForge()


class GitHubHistory:
    """A GitHub file's history through the REST API: its commits, the file at a commit,
    its README's path; over the run's fetcher (`forges.history.History.github`)."""

    def __init__(
        self,
        fetcher: Fetches,
        server: Server,
        readme_paths: dict[tuple[str, str, str | None], str] | None = None,
    ) -> None:
        self._fetcher = fetcher
        self._api = server.url.rstrip("/")
        self._token = server.token
        self.readme_paths: dict[tuple[str, str, str | None], str] = dict(readme_paths or {})
        """README paths by (owner, repo, ref), lower-cased: known ones seed it, and what
        this run learns is read back from it, so each is asked once ever."""

    async def commits(
        self,
        source: GitHubFile,
        *,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        per_page: int = 100,
        max_pages: int = MAX_PAGES,
    ) -> list[Blame] | None:
        """Commits that touched the file, newest first, following `Link: rel="next"`.

        None when history could not be read (a failure, asked again next run); a 404 or
        410 for the first page is an answer, no commits, so a source whose history
        GitHub does not have is not asked about every night.
        """
        path = source.path or await self.readme_path(source)
        query: dict[str, str] = {"path": path, "per_page": str(per_page)}
        if source.ref:
            query["sha"] = source.ref
        if since:
            query["since"] = iso(since)
        if until:
            query["until"] = iso(until)
        url = f"{self._repo(source)}/commits?{urlencode(query)}"
        return await read_commits(
            self._fetcher,
            url,
            lambda page: self._api_request(page, JSON_MEDIA_TYPE),
            _commit,
            max_pages=max_pages,
        )

    async def readme_path(self, source: GitHubFile) -> str:
        """The path of the repository's README (README.md, readme.rst, docs/README…).

        The README endpoint's JSON answer names it; asked once per repository and ref.
        Falls back to README.md when the answer says nothing useful.
        """
        key = readme_key(source)
        if key not in self.readme_paths:
            url = f"{self._repo(source)}/readme"
            if source.ref:
                url += f"?ref={quote(source.ref, safe='')}"
            body = body_of(await self._fetcher.fetch(self._api_request(url, JSON_MEDIA_TYPE)))
            if body is None:
                return README_PATH  # unknown this time: not remembered, asked again
            path = dig(json_of(body), "path")
            self.readme_paths[key] = path if isinstance(path, str) and path else README_PATH
        return self.readme_paths[key]

    async def commit_before(self, source: GitHubFile, until: dt.datetime) -> Blame | Absent | None:
        """The last commit that touched the file at or before `until`; ABSENT: GitHub
        answered that there is none; None: it did not answer (asked again next time)."""
        commits = await self.commits(source, until=until, per_page=1, max_pages=1)
        if commits is None:
            return None
        return commits[0] if commits else ABSENT

    async def file_at(self, source: GitHubFile, sha: str) -> bytes | None:
        """The file's raw body at a commit."""
        repo = self._repo(source)
        if source.path is None:
            url = f"{repo}/readme?ref={quote(sha, safe='')}"
        else:
            url = f"{repo}/contents/{quote(source.path)}?ref={quote(sha, safe='')}"
        return body_of(await self._fetcher.fetch(self._api_request(url, RAW_MEDIA_TYPE)))

    async def version(
        self, source: GitHubFile, until: dt.datetime, *, current: bool = False
    ) -> Version | Absent | None:
        """The file as it stood at `until`, dated by the commit that made it so
        (`forge.version_from_commits` over GitHub's commits of the file)."""
        return await version_from_commits(_GitHubCommits(self, source), until, current=current)

    async def blame(
        self,
        source: GitHubFile,
        since: dt.datetime,
        still_holds: Callable[[bytes], bool],
    ) -> tuple[Blame | None, int]:
        """The first commit since `since` after which `still_holds` is false
        (`forge.bisect_commits` over GitHub's commits of the file)."""
        return await bisect_commits(_GitHubCommits(self, source), since, still_holds)

    def _repo(self, source: GitHubFile) -> str:
        return f"{self._api}/repos/{quote(source.owner, safe='')}/{quote(source.repo, safe='')}"

    def _api_request(self, url: str, accept: str) -> FetchRequest:
        return api_request(url, accept, api_url=self._api, token=self._token)


@dataclass(frozen=True)
class _GitHubCommits:
    """A GitHub file's history as `FileCommits`."""

    history: GitHubHistory
    source: GitHubFile

    async def commits(
        self,
        *,
        since: dt.datetime | None = None,
        until: dt.datetime | None = None,
        per_page: int = 100,
        max_pages: int = MAX_PAGES,
    ) -> list[Blame] | None:
        return await self.history.commits(
            self.source, since=since, until=until, per_page=per_page, max_pages=max_pages
        )

    async def file_at(self, sha: str) -> bytes | None:
        return await self.history.file_at(self.source, sha)


def readme_key(source: GitHubFile) -> tuple[str, str, str | None]:
    """How a README's path is remembered: repository names are case-insensitive."""
    return (source.owner.lower(), source.repo.lower(), source.ref)


def api_request(
    url: str,
    accept: str | None,
    *,
    api_url: str,
    token: str | None,
    etag: str | None = None,
    last_modified: str | None = None,
) -> FetchRequest:
    """A request to the GitHub API: its media type, version header, and the token
    bound to the API host (the fetcher never sends it anywhere else)."""
    return forge_request(
        url,
        Server(api_url, token),
        accept=accept,
        etag=etag,
        last_modified=last_modified,
        api_version=GITHUB_API_VERSION,
    )


def _commit(item: Any) -> Blame | None:
    """A commit of the list-commits answer, or None when it lacks what blame needs."""
    if not isinstance(item, dict):
        return None
    sha, details = item.get("sha"), item.get("commit")
    if not isinstance(sha, str) or not isinstance(details, dict):
        return None
    date = dig(details, "committer", "date") or dig(details, "author", "date")
    try:
        when = dt.datetime.fromisoformat(str(date).replace("Z", "+00:00")).astimezone(dt.UTC)
    except ValueError:
        return None
    login = dig(item, "author", "login")
    author = login if isinstance(login, str) else str(dig(details, "author", "name") or "")
    message = str(details.get("message") or "")
    return Blame(
        sha=sha,
        date=when,
        author=author,
        title=message.splitlines()[0] if message else "",
        url=str(item.get("html_url") or ""),
    )


def _file(ref: SourceRef) -> GitHubFile:
    source = github_file(ref)
    assert source is not None, "a GitHub adapter call for a source it does not own"
    return source


def _github_readme(api: str, owner: str, repo: str, ref: str | None) -> SourceRef:
    url = f"https://github.com/{owner}/{repo}" + (f"/tree/{ref}" if ref else "")
    fetch = f"{api}/repos/{_q(owner)}/{_q(repo)}/readme"
    if ref:
        fetch += f"?ref={quote(ref, safe='')}"
    return SourceRef(
        url=url,
        kind=SourceKind.GITHUB_README,
        fetch_url=fetch,
        key=file_key("github.com", [owner, repo], None, ref),
        # The content object, not the raw file: it names the README's path too, which
        # history needs, so the README is downloaded once (see `readme_content`).
        accept=JSON_MEDIA_TYPE,
        media=MediaType.MARKDOWN,
    )


def _github_repository(api: str, owner: str, repo: str, tail: str) -> SourceRef:
    """A repository's data (`REPOSITORY_FIELDS`): the REST answer at `tail` under the
    repository (`""`, the repository object; `/releases/latest`), read as JSON."""
    path = f"/repos/{_q(owner)}/{_q(repo)}{tail}"
    return SourceRef(
        url=f"{_PUBLIC_API}{path}",
        kind=SourceKind.GITHUB_REPO,
        fetch_url=f"{api}{path}",
        key=snapshot_key(["github.com", owner, repo, "api-" + (tail.strip("/") or "repository")]),
        accept=JSON_MEDIA_TYPE,
        media=MediaType.JSON,
    )


def _github_file(api: str, owner: str, repo: str, ref: str, path: list[str]) -> SourceRef:
    repo = _strip_git(repo)
    file_path = "/".join(path)
    fetch = (
        f"{api}/repos/{_q(owner)}/{_q(repo)}/contents/{quote(file_path)}?ref={quote(ref, safe='')}"
    )
    return SourceRef(
        url=f"https://github.com/{owner}/{repo}/blob/{ref}/{file_path}",
        kind=SourceKind.GITHUB_FILE,
        fetch_url=fetch,
        key=file_key("github.com", [owner, repo], file_path, ref),
        accept=RAW_MEDIA_TYPE,
        media=media_of(file_path),
    )


def _is_repo(owner: str, repo: str) -> bool:
    """GitHub's own naming rules; anything else is not read through the API."""
    return bool(_OWNER.match(owner) and _REPO.match(repo)) and repo.strip(".") != ""


def _strip_git(repo: str) -> str:
    return repo[:-4] if repo.endswith(".git") else repo


def _q(segment: str) -> str:
    return quote(segment, safe="")
