"""A real HTTP server on 127.0.0.1 shaped like GitHub's REST API, replaying README history.

`ReplayServer` answers the few GitHub endpoints claimcheck reads (README, contents,
commits, repository metadata) from the README-history corpus in
`tests/data/corpus/readme-history`, as of a chosen date, and serves plain web pages
that tests register. It also misbehaves on request: moved repositories, rate limits,
failures that recover or not, and connections dropped without an answer.

GitHub behaviours reproduced (see https://docs.github.com/rest):

- `GET /repos/{owner}/{repo}/readme` and `/contents/{path}`, with `?ref=` a branch,
  `HEAD` or a commit sha (full or at least 7 characters). The default answer is the
  content object (`type`, `encoding: base64`, `content` wrapped every 60 characters,
  `sha`, `size`, `path`, `name`, `url`, `html_url`, `download_url`, ...); with
  `Accept: application/vnd.github.raw[+json]` the raw bytes, with that media type
  echoed in `Content-Type` (plus `; charset=utf-8`).
- `ETag: "<blob sha>"` and `Last-Modified` (the commit date); a matching
  `If-None-Match` (or an `If-Modified-Since` not older than `Last-Modified`) answers
  `304 Not Modified` without a body. Both media types share the ETag.
- `X-RateLimit-*` headers on every API answer. Every API answer except a 304 spends one
  request of `rate_limit_remaining`; at 0 the API answers `403` "API rate limit
  exceeded". Plain pages have no budget.
- `GET /repos/{owner}/{repo}/commits` with `path`, `sha`, `since`, `until`, `per_page`
  (default 30, max 100) and `page`, newest first, paginated with a `Link` header.
- A renamed repository (`move_repo`) answers `301 Moved Permanently` with
  `Location: {base_url}/repositories/{id}/...` (path and query kept) and a JSON body
  `{"message": "Moved Permanently", "url": ..., "documentation_url": ...}`, as GitHub
  does; `/repositories/{id}/...` serves every endpoint of the repository, and
  `GET /repositories/{id}` / `GET /repos/{owner}/{repo}` give its `full_name`.
- Errors are JSON `{"message": ..., "documentation_url": ..., "status": "404"}`.
- Owner and repository names are matched case-insensitively; answers use the canonical
  spelling.

Simplifications: a repository's commits are only the distinct commits of its corpus
`index.json` (the month points and the head), not every commit that touched README.md;
commits newer than the repository's as-of date do not exist yet; files registered with
`set_file` have no history and are served for every ref.
"""

from __future__ import annotations

import base64
import datetime as dt
import email.utils
import hashlib
import json
import re
import threading
import traceback
from collections.abc import Mapping
from dataclasses import dataclass, field
from http import HTTPStatus
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qsl, quote, unquote, urlencode, urlsplit

from support import paths
from support.local_http import RecordingServer

CORPUS = paths.CORPUS
"""The README-history corpus carried in `tests/data/corpus/readme-history`."""

DOCS = "https://docs.github.com/rest"
README_PATH = "README.md"
DEFAULT_RATE_LIMIT = 5000
PER_PAGE_DEFAULT = 30
PER_PAGE_MAX = 100
RAW_MEDIA_TYPE = re.compile(r"^application/vnd\.github(?:\.v3)?\.raw(\+json)?$")
SHA_PREFIX = re.compile(r"^[0-9a-f]{7,40}$")
REPO_API_PATH = re.compile(r"^/repos/(?P<owner>[^/]+)/(?P<repo>[^/]+)(?P<rest>/.*)?$")
REPO_ID_PATH = re.compile(r"^/repositories/(?P<id>\d+)(?P<rest>/.*)?$")
API_PREFIXES = ("/repos/", "/repositories/", "/rate_limit")


def require_corpus() -> Path:
    """The corpus root; the calling test fails when tests/data lacks it."""
    import pytest

    if not (CORPUS / "SOURCES.md").is_file():
        pytest.fail(f"README-history corpus not found at {CORPUS}: tests/data is incomplete")
    return CORPUS


@dataclass(frozen=True)
class RecordedRequest:
    """One request the server received, as tests inspect it.

    `headers` has lower-case names (`request.headers.get("authorization")`); `query`
    keeps the last value of each parameter; `status` is what the server answered
    (0 when the connection was dropped without an answer).
    """

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: bytes = b""
    status: int = 0


@dataclass(frozen=True)
class CorpusEntry:
    """One `index.json` entry: the README as it was at a month start (or at the head)."""

    date: dt.date
    commit: str
    commit_date: dt.datetime
    blob_sha: str
    file: Path | None
    kind: str | None = None


@dataclass
class StoredFile:
    """A file registered with `set_file`: fixed bytes, no history."""

    data: bytes
    sha: str
    last_modified: dt.datetime


@dataclass
class Repo:
    """A repository the server knows: its corpus history and registered files."""

    id: int
    full_name: str
    default_branch: str = "main"
    history: list[CorpusEntry] = field(default_factory=list)
    files: dict[str, StoredFile] = field(default_factory=dict)
    as_of: dt.date | None = None


@dataclass
class Page:
    """A plain web page registered with `set_page`."""

    body: bytes
    content_type: str
    status: int
    headers: dict[str, str]


@dataclass
class Failure:
    """A path that fails (or drops the connection) for its next `remaining` requests."""

    status: int
    remaining: int | None
    headers: dict[str, str]
    drop: bool = False


@dataclass
class Reply:
    """What the handler writes back; `drop` closes the connection without an answer."""

    status: int
    headers: dict[str, str] = field(default_factory=dict)
    body: bytes = b""
    drop: bool = False


class ReplayServer:
    """A GitHub-shaped HTTP server on 127.0.0.1 with an ephemeral port.

    Use it as a context manager (or call `start()` / `stop()`)::

        with ReplayServer(CORPUS) as server:
            server.as_of = dt.date(2024, 2, 15)
            httpx.get(f"{server.base_url}/repos/ggml-org/llama.cpp/readme")

    Configure it between requests: `as_of`, `set_as_of`, `set_file`, `move_repo`,
    `set_page`, `redirect`, `fail`, `drop`, `rate_limit_remaining`. Every request is
    appended to `requests`; a handler crash answers 500 and is kept in `errors`.
    """

    def __init__(self, corpus: Path | None = CORPUS, *, as_of: dt.date | None = None) -> None:
        """Load the corpus indexes (not the texts) of `corpus`; `None` serves no corpus."""
        self.as_of: dt.date | None = as_of
        """The date every repository is served as of; None means its newest (head) entry."""
        self.rate_limit_limit = DEFAULT_RATE_LIMIT
        self.rate_limit_remaining = DEFAULT_RATE_LIMIT
        self.rate_limit_reset = int(dt.datetime.now(dt.UTC).timestamp()) + 3600
        self.requests: list[RecordedRequest] = []
        self.errors: list[str] = []
        self._lock = threading.RLock()
        self._repos: dict[str, Repo] = {}
        self._moved: dict[str, str] = {}
        self._pages: dict[str, Page] = {}
        self._redirects: dict[str, tuple[str, int]] = {}
        self._failures: dict[str, Failure] = {}
        self._texts: dict[Path, bytes] = {}
        self._next_id = 1000
        self._httpd: _HTTPServer | None = None
        self._thread: threading.Thread | None = None
        if corpus is not None:
            self._load_corpus(corpus)

    # -- lifecycle ---------------------------------------------------------------------

    def start(self, port: int = 0) -> Self:
        """Bind 127.0.0.1 on `port` (a free one by default) and serve from a daemon thread."""
        if self._httpd is not None:
            raise RuntimeError("ReplayServer already started")
        httpd = _HTTPServer(("127.0.0.1", port), _Handler, self.errors)
        httpd.replay = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever,
            kwargs={"poll_interval": 0.05},
            name=f"replay-server-{httpd.server_address[1]}",
            daemon=True,
        )
        self._thread.start()
        return self

    def stop(self) -> None:
        """Stop serving, close the listening socket and join the serving thread."""
        httpd, thread = self._httpd, self._thread
        self._httpd = self._thread = None
        if httpd is not None:
            httpd.shutdown()
            httpd.server_close()
        if thread is not None:
            thread.join(timeout=5)

    def __enter__(self) -> Self:
        """Start the server."""
        return self.start()

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        """Stop the server."""
        self.stop()

    @property
    def port(self) -> int:
        """The port the server listens on."""
        if self._httpd is None:
            raise RuntimeError("ReplayServer is not running")
        return int(self._httpd.server_address[1])

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT`, the API base and the host of every page."""
        return f"http://127.0.0.1:{self.port}"

    def url(self, path: str) -> str:
        """The absolute URL of `path` on this server."""
        return self.base_url + (path if path.startswith("/") else "/" + path)

    # -- configuration -----------------------------------------------------------------

    @property
    def repos(self) -> list[str]:
        """Full names of the repositories served (corpus and registered)."""
        with self._lock:
            return sorted(repo.full_name for repo in self._repos.values())

    def set_as_of(self, repo: str, date: dt.date | None) -> None:
        """Serve `repo` as of `date` (None: fall back to the global `as_of`)."""
        with self._lock:
            self._require_repo(repo).as_of = _as_date(date)

    def set_file(
        self,
        repo: str,
        path: str,
        content: str | bytes,
        *,
        last_modified: dt.datetime | None = None,
    ) -> None:
        """Register a file of `repo` (created if new); a `README.md` overrides the corpus."""
        data = content.encode() if isinstance(content, str) else content
        when = last_modified or dt.datetime.now(dt.UTC).replace(microsecond=0)
        with self._lock:
            target = self._repos.get(repo.lower()) or self._add_repo(repo)
            target.files[path.strip("/")] = StoredFile(data, _git_blob_sha(data), when)

    def remove_file(self, repo: str, path: str) -> None:
        """Forget a file registered with `set_file`."""
        with self._lock:
            self._require_repo(repo).files.pop(path.strip("/"), None)

    def move_repo(self, old: str, new: str) -> None:
        """Rename `old` to `new`: the API answers 301 to `/repositories/{id}` for `old`."""
        with self._lock:
            stale = self._repos.pop(old.lower(), None)
            target = self._repos.get(new.lower())
            if target is None and stale is not None:
                stale.full_name = new  # a rename keeps the repository and its id
                target = self._repos[new.lower()] = stale
            elif target is None:
                target = self._add_repo(new)
            self._moved[old.lower()] = target.full_name.lower()

    def set_page(
        self,
        path: str,
        body: str | bytes,
        content_type: str = "text/html; charset=utf-8",
        status: int = 200,
        headers: Mapping[str, str] | None = None,
    ) -> str:
        """Serve `body` at `path` (query ignored); returns the page's absolute URL.

        A 200 page gets a strong ETag from its bytes unless `headers` sets one, and
        answers 304 to a matching `If-None-Match`.
        """
        data = body.encode() if isinstance(body, str) else body
        with self._lock:
            self._pages[_path_only(path)] = Page(data, content_type, status, dict(headers or {}))
        return self.url(path) if self._httpd is not None else path

    def remove_page(self, path: str) -> None:
        """Forget a page: it answers 404 again."""
        with self._lock:
            self._pages.pop(_path_only(path), None)

    def redirect(self, path: str, to: str, status: int = 301) -> None:
        """Answer `path` with a redirect to `to` (an absolute URL or a path on this server)."""
        with self._lock:
            self._redirects[_path_only(path)] = (to, status)

    def fail(
        self,
        path: str,
        status: int = 503,
        times: int | None = 2,
        headers: Mapping[str, str] | None = None,
    ) -> None:
        """Answer the next `times` requests for `path` with `status` (None: forever)."""
        with self._lock:
            self._failures[_path_only(path)] = Failure(status, times, dict(headers or {}))

    def drop(self, path: str, times: int | None = None) -> None:
        """Close the connection without answering the next `times` requests (None: forever)."""
        with self._lock:
            self._failures[_path_only(path)] = Failure(0, times, {}, drop=True)

    def clear_requests(self) -> None:
        """Forget the recorded requests."""
        with self._lock:
            self.requests.clear()

    def requests_to(self, path_prefix: str) -> list[RecordedRequest]:
        """The recorded requests whose path starts with `path_prefix`."""
        with self._lock:
            return [r for r in self.requests if r.path.startswith(path_prefix)]

    # -- corpus look-ups (for test expectations) ---------------------------------------

    def entry_as_of(self, repo: str, date: dt.date | None = None) -> CorpusEntry | None:
        """The corpus entry served for `repo` as of `date` (default: its current as-of)."""
        with self._lock:
            target = self._require_repo(repo)
            return _entry_as_of(target.history, _as_date(date) or self._as_of_for(target))

    def readme_as_of(self, repo: str, date: dt.date | None = None) -> bytes | None:
        """The README bytes served for `repo` as of `date`, or None when it had none."""
        entry = self.entry_as_of(repo, date)
        return None if entry is None or entry.file is None else self._read(entry.file)

    def commits_of(self, repo: str) -> list[CorpusEntry]:
        """The distinct corpus commits of `repo` with a README, newest first, ignoring as-of."""
        with self._lock:
            return _distinct_commits(self._require_repo(repo).history, None)

    # -- request handling (called from the serving threads) ----------------------------

    def handle(
        self, method: str, target: str, headers: dict[str, str], body: bytes
    ) -> tuple[Reply, RecordedRequest]:
        """Answer one request and record it; never raises (a crash answers 500)."""
        parts = urlsplit(target)
        path = parts.path or "/"
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        try:
            reply = self._answer(method, path, query, headers)
        except Exception:  # a bug in the server must fail the test, not hang it
            self.errors.append(traceback.format_exc())
            reply = _json_reply(500, {"message": "replay server error"})
        if method == "HEAD":
            reply.headers.setdefault("Content-Length", str(len(reply.body)))
            reply.body = b""
        recorded = RecordedRequest(
            method, path, query, headers, body, 0 if reply.drop else reply.status
        )
        with self._lock:
            self.requests.append(recorded)
        return reply, recorded

    def _answer(
        self, method: str, path: str, query: dict[str, str], headers: dict[str, str]
    ) -> Reply:
        """Route a request: injected failures, redirects, pages, then the GitHub API."""
        with self._lock:
            failure = self._failures.get(path)
            if failure is not None and failure.remaining != 0:
                if failure.remaining is not None:
                    failure.remaining -= 1
                if failure.drop:
                    return Reply(0, drop=True)
                phrase = _phrase(failure.status)
                return Reply(
                    failure.status,
                    {"Content-Type": "text/plain; charset=utf-8", **failure.headers},
                    phrase.encode(),
                )
            redirect = self._redirects.get(path)
            page = self._pages.get(path)
        if redirect is not None:
            to, status = redirect
            location = self.url(to) if to.startswith("/") else to
            return Reply(status, {"Location": location, "Content-Type": "text/plain"}, b"")
        if page is not None:
            reply = Reply(
                page.status, {"Content-Type": page.content_type, **page.headers}, page.body
            )
            if page.status == 200 and _header(reply.headers, "ETag") is None:
                reply.headers["ETag"] = f'"{hashlib.sha1(page.body).hexdigest()}"'
            return _conditional(reply, headers) or reply
        if not path.startswith(API_PREFIXES):
            return Reply(404, {"Content-Type": "text/plain; charset=utf-8"}, b"Not Found")
        if method not in ("GET", "HEAD"):
            return self._spend(_not_found(), headers)
        return self._api(path, query, headers)

    def _api(self, path: str, query: dict[str, str], headers: dict[str, str]) -> Reply:
        """Answer a GitHub API request, spending rate-limit budget unless it is a 304."""
        if path == "/rate_limit":
            return self._rate_limit_reply()
        reply = self._api_reply(path, query, headers)
        not_modified = _conditional(reply, headers)
        if not_modified is not None:
            return self._with_rate_headers(not_modified)
        return self._spend(reply, headers)

    def _spend(self, reply: Reply, headers: dict[str, str]) -> Reply:
        """Take one request from the budget, or answer 403 when it is spent."""
        with self._lock:
            if self.rate_limit_remaining <= 0:
                self.rate_limit_remaining = 0
                who = "user" if "authorization" in headers else "127.0.0.1"
                message = f"API rate limit exceeded for {who}."
                if who != "user":
                    message += (
                        " (But here's the good news: Authenticated requests get a higher"
                        " rate limit. Check out the documentation for more details.)"
                    )
                doc = f"{DOCS}/overview/rate-limits-for-the-rest-api"
                reply = _json_reply(403, {"message": message, "documentation_url": doc})
            else:
                self.rate_limit_remaining -= 1
        return self._with_rate_headers(reply)

    def _with_rate_headers(self, reply: Reply) -> Reply:
        """Add GitHub's `X-RateLimit-*` headers."""
        with self._lock:
            remaining, limit = self.rate_limit_remaining, self.rate_limit_limit
            reply.headers.update(
                {
                    "X-RateLimit-Limit": str(limit),
                    "X-RateLimit-Remaining": str(remaining),
                    "X-RateLimit-Reset": str(self.rate_limit_reset),
                    "X-RateLimit-Used": str(max(limit - remaining, 0)),
                    "X-RateLimit-Resource": "core",
                }
            )
        return reply

    def _rate_limit_reply(self) -> Reply:
        """`GET /rate_limit`, which costs nothing."""
        with self._lock:
            core = {
                "limit": self.rate_limit_limit,
                "remaining": self.rate_limit_remaining,
                "reset": self.rate_limit_reset,
                "used": max(self.rate_limit_limit - self.rate_limit_remaining, 0),
            }
        return self._with_rate_headers(
            _json_reply(200, {"resources": {"core": core}, "rate": core})
        )

    def _api_reply(self, path: str, query: dict[str, str], headers: dict[str, str]) -> Reply:
        """Resolve the repository of an API path and dispatch on the rest of it."""
        with self._lock:
            repo, rest, moved = self._resolve(path)
        if moved is not None:
            return self._moved_reply(moved, rest, query)
        if repo is None:
            return _not_found()
        if rest in ("", "/"):
            return _json_reply(200, self._repo_json(repo))
        if rest == "/readme":
            return self._file_reply(repo, None, query.get("ref"), headers)
        if rest.startswith("/contents/"):
            file_path = unquote(rest.removeprefix("/contents/")).strip("/")
            return self._file_reply(repo, file_path, query.get("ref"), headers)
        if rest == "/commits":
            return self._commits_reply(repo, path, query)
        return _not_found()

    def _resolve(self, path: str) -> tuple[Repo | None, str, Repo | None]:
        """(repository, rest of the path, repository it moved to) for an API path."""
        match = REPO_API_PATH.match(path)
        if match is not None:
            name = f"{match['owner']}/{match['repo']}".lower()
            rest = match["rest"] or ""
            if name in self._moved:
                return None, rest, self._repos.get(self._moved[name])
            return self._repos.get(name), rest, None
        match = REPO_ID_PATH.match(path)
        if match is not None:
            wanted = int(match["id"])
            found = next((r for r in self._repos.values() if r.id == wanted), None)
            return found, match["rest"] or "", None
        return None, "", None

    def _moved_reply(self, repo: Repo, rest: str, query: dict[str, str]) -> Reply:
        """GitHub's answer for a renamed repository: 301 to `/repositories/{id}{rest}`."""
        location = f"{self.base_url}/repositories/{repo.id}{rest}"
        if query:
            location += "?" + urlencode(query)
        body = {
            "message": "Moved Permanently",
            "url": location,
            "documentation_url": (
                "https://docs.github.com/rest/guides/best-practices-for-using-the-rest-api"
                "#follow-redirects"
            ),
        }
        reply = _json_reply(301, body)
        reply.headers["Location"] = location
        return reply

    def _repo_json(self, repo: Repo) -> dict[str, Any]:
        """The repository object (`GET /repos/{owner}/{repo}`), reduced to what matters."""
        owner, name = repo.full_name.split("/", 1)
        return {
            "id": repo.id,
            "name": name,
            "full_name": repo.full_name,
            "owner": {"login": owner},
            "private": False,
            "html_url": f"https://github.com/{repo.full_name}",
            "url": f"{self.base_url}/repos/{repo.full_name}",
            "default_branch": repo.default_branch,
        }

    def _file_reply(
        self, repo: Repo, path: str | None, ref: str | None, headers: dict[str, str]
    ) -> Reply:
        """A README (`path` None) or a file at `ref`, as a content object or raw bytes."""
        with self._lock:
            found = self._find_file(repo, path, ref)
        if isinstance(found, Reply):
            return found
        file_path, data, sha, modified = found
        ref_name = ref or repo.default_branch
        raw = _raw_media_type(headers.get("accept", ""))
        if raw is not None:
            content_type = f"{raw}; charset=utf-8"
            media = "github.v3; param=raw; format=" + ("json" if raw.endswith("+json") else "raw")
            reply = Reply(200, {"Content-Type": content_type, "X-GitHub-Media-Type": media}, data)
        else:
            reply = _json_reply(200, self._content_json(repo, file_path, ref_name, data, sha))
            reply.headers["X-GitHub-Media-Type"] = "github.v3; format=json"
        reply.headers["ETag"] = f'"{sha}"'
        reply.headers["Last-Modified"] = email.utils.format_datetime(
            modified.astimezone(dt.UTC), usegmt=True
        )
        reply.headers["Cache-Control"] = "private, max-age=60, s-maxage=60"
        reply.headers["Vary"] = "Accept, Authorization, Cookie, X-GitHub-OTP"
        return reply

    def _find_file(
        self, repo: Repo, path: str | None, ref: str | None
    ) -> tuple[str, bytes, str, dt.datetime] | Reply:
        """(path, bytes, blob sha, commit date) of a file at `ref`, or the error reply."""
        doc = f"{DOCS}/repos/contents#get-a-repository-" + ("readme" if path is None else "content")
        wanted = path if path is not None else _readme_name(repo.files)
        if wanted is not None and wanted in repo.files:
            stored = repo.files[wanted]
            if ref is not None and not self._ref_exists(repo, ref):
                return _no_commit(ref, doc)
            return wanted, stored.data, stored.sha, stored.last_modified
        if path is not None and path != README_PATH:
            return _not_found(doc)
        if ref is None or ref in (repo.default_branch, "HEAD"):
            entry = _entry_as_of(repo.history, self._as_of_for(repo))
        else:
            entry = _entry_for_sha(repo.history, ref)
            if entry is None:
                return _no_commit(ref, doc)
        if entry is None or entry.file is None:
            return _not_found(doc)
        return README_PATH, self._read(entry.file), entry.blob_sha, entry.commit_date

    def _ref_exists(self, repo: Repo, ref: str) -> bool:
        """Whether `ref` names the default branch, HEAD or a corpus commit of `repo`."""
        return ref in (repo.default_branch, "HEAD") or (
            _entry_for_sha(repo.history, ref) is not None
        )

    def _content_json(
        self, repo: Repo, path: str, ref: str, data: bytes, sha: str
    ) -> dict[str, Any]:
        """GitHub's content object for a file, with base64 wrapped every 60 characters."""
        encoded = base64.b64encode(data).decode()
        content = "".join(encoded[i : i + 60] + "\n" for i in range(0, len(encoded), 60))
        quoted = quote(path)
        api_url = f"{self.base_url}/repos/{repo.full_name}/contents/{quoted}?ref={quote(ref)}"
        git_url = f"{self.base_url}/repos/{repo.full_name}/git/blobs/{sha}"
        html_url = f"https://github.com/{repo.full_name}/blob/{ref}/{quoted}"
        return {
            "type": "file",
            "encoding": "base64",
            "size": len(data),
            "name": path.rsplit("/", 1)[-1],
            "path": path,
            "content": content,
            "sha": sha,
            "url": api_url,
            "git_url": git_url,
            "html_url": html_url,
            "download_url": f"https://raw.githubusercontent.com/{repo.full_name}/{ref}/{quoted}",
            "_links": {"self": api_url, "git": git_url, "html": html_url},
        }

    def _commits_reply(self, repo: Repo, path: str, query: dict[str, str]) -> Reply:
        """`GET .../commits`: the repo's distinct corpus commits, newest first, paginated."""
        try:
            since = _parse_iso(query.get("since"))
            until = _parse_iso(query.get("until"))
            per_page = min(max(int(query.get("per_page", PER_PAGE_DEFAULT)), 1), PER_PAGE_MAX)
            page = max(int(query.get("page", "1")), 1)
        except ValueError as error:
            return _json_reply(
                422, {"message": f"Validation Failed: {error}", "documentation_url": DOCS}
            )
        with self._lock:
            commits = _distinct_commits(repo.history, self._as_of_for(repo))
        wanted_path = query.get("path", "").strip("/")
        if wanted_path and wanted_path != README_PATH:
            commits = []
        ref = query.get("sha")
        if ref and ref not in (repo.default_branch, "HEAD"):
            tip = _entry_for_sha(repo.history, ref)
            if tip is None:
                return _no_commit(ref, f"{DOCS}/commits/commits#list-commits")
            commits = [c for c in commits if c.commit_date <= tip.commit_date]
        if since is not None:
            commits = [c for c in commits if c.commit_date >= since]
        if until is not None:
            commits = [c for c in commits if c.commit_date <= until]
        last = max((len(commits) + per_page - 1) // per_page, 1)
        chunk = commits[(page - 1) * per_page : page * per_page]
        reply = _json_reply(200, [self._commit_json(repo, c) for c in chunk])
        reply.headers["ETag"] = f'W/"{hashlib.sha256(reply.body).hexdigest()[:40]}"'
        links = self._page_links(path, query, page, last)
        if links:
            reply.headers["Link"] = links
        return reply

    def _page_links(self, path: str, query: dict[str, str], page: int, last: int) -> str:
        """GitHub's `Link` header: next and last after, prev and first before."""

        def link(number: int, rel: str) -> str:
            params = {**query, "page": str(number)}
            return f'<{self.base_url}{path}?{urlencode(params)}>; rel="{rel}"'

        links = []
        if page > 1:
            links.append(link(min(page - 1, last), "prev"))
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            links.append(link(1, "first"))
        return ", ".join(links)

    def _commit_json(self, repo: Repo, entry: CorpusEntry) -> dict[str, Any]:
        """A commit of the list-commits answer (author identities are placeholders)."""
        when = entry.commit_date.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
        person = {"name": "Corpus Replay", "email": "replay@example.invalid", "date": when}
        return {
            "sha": entry.commit,
            "commit": {
                "author": person,
                "committer": person,
                "message": f"Update README.md (corpus entry {entry.date.isoformat()})",
                "url": f"{self.base_url}/repos/{repo.full_name}/git/commits/{entry.commit}",
            },
            "url": f"{self.base_url}/repos/{repo.full_name}/commits/{entry.commit}",
            "html_url": f"https://github.com/{repo.full_name}/commit/{entry.commit}",
            "author": {"login": "corpus-replay"},
            "committer": {"login": "corpus-replay"},
            "parents": [],
        }

    # -- internals ---------------------------------------------------------------------

    def _load_corpus(self, corpus: Path) -> None:
        """Register one repository per `owner__repo` folder holding an `index.json`."""
        if not corpus.is_dir():
            raise FileNotFoundError(f"corpus not found: {corpus}")
        branches = _default_branches(corpus / "SOURCES.md")
        for index in sorted(corpus.glob("*__*/index.json")):
            folder = index.parent
            full_name = folder.name.replace("__", "/", 1)
            repo = self._add_repo(full_name)
            repo.default_branch = branches.get(folder.name, "main")
            repo.history = [_parse_entry(raw, folder) for raw in json.loads(index.read_text())]
            repo.history.sort(key=lambda e: e.date)

    def _add_repo(self, full_name: str) -> Repo:
        """Create a repository with the next id (ids are stable for a given set-up)."""
        if full_name.count("/") != 1:
            raise ValueError(f"expected owner/repo, got {full_name!r}")
        self._next_id += 1
        repo = Repo(id=self._next_id, full_name=full_name)
        self._repos[full_name.lower()] = repo
        return repo

    def _require_repo(self, name: str) -> Repo:
        """A known repository (moved names resolve to their new name)."""
        key = self._moved.get(name.lower(), name.lower())
        try:
            return self._repos[key]
        except KeyError:
            raise KeyError(f"unknown repository {name!r}; known: {self.repos}") from None

    def _as_of_for(self, repo: Repo) -> dt.date | None:
        """The repository's own as-of date, else the global one."""
        return repo.as_of or _as_date(self.as_of)

    def _read(self, file: Path) -> bytes:
        """The bytes of a corpus file, cached."""
        with self._lock:
            if file not in self._texts:
                self._texts[file] = file.read_bytes()
            return self._texts[file]


class _HTTPServer(RecordingServer):
    """The recording server, pointing back at its `ReplayServer`."""

    replay: ReplayServer


class _Handler(BaseHTTPRequestHandler):
    """Turns HTTP/1.1 requests into `ReplayServer.handle` calls."""

    protocol_version = "HTTP/1.1"
    server_version = "ReplayServer"
    sys_version = ""
    server: _HTTPServer

    def log_message(self, format: str, *args: Any) -> None:
        """Silence the default per-request stderr logging."""

    def _serve(self) -> None:
        """Read the request, let the replay server answer, write the reply."""
        length = int(self.headers.get("Content-Length") or 0)
        body = self.rfile.read(length) if length else b""
        headers = {name.lower(): value for name, value in self.headers.items()}
        reply, _ = self.server.replay.handle(self.command, self.path, headers, body)
        if reply.drop:
            self.close_connection = True
            return
        self.send_response(reply.status)
        for name, value in reply.headers.items():
            self.send_header(name, value)
        if reply.status != 304 and _header(reply.headers, "Content-Length") is None:
            self.send_header("Content-Length", str(len(reply.body)))
        self.end_headers()
        if reply.body and reply.status != 304:
            self.wfile.write(reply.body)

    do_GET = do_HEAD = do_POST = do_PUT = do_PATCH = do_DELETE = _serve  # noqa: N815


# -- helpers ---------------------------------------------------------------------------


def _json_reply(status: int, payload: Any) -> Reply:
    """A JSON answer the way GitHub sends it."""
    body = json.dumps(payload, indent=2).encode()
    return Reply(status, {"Content-Type": "application/json; charset=utf-8"}, body)


def _not_found(documentation_url: str = DOCS) -> Reply:
    """GitHub's 404 body."""
    payload = {"message": "Not Found", "documentation_url": documentation_url, "status": "404"}
    return _json_reply(404, payload)


def _no_commit(ref: str, documentation_url: str) -> Reply:
    """GitHub's 404 for a ref that names no branch, tag or commit."""
    payload = {
        "message": f"No commit found for the ref {ref}",
        "documentation_url": documentation_url,
        "status": "404",
    }
    return _json_reply(404, payload)


def _conditional(reply: Reply, request_headers: Mapping[str, str]) -> Reply | None:
    """A 304 for a 200 reply the client already has (If-None-Match, else If-Modified-Since)."""
    if reply.status != 200:
        return None
    etag = _header(reply.headers, "ETag")
    last_modified = _header(reply.headers, "Last-Modified")
    if_none_match = request_headers.get("if-none-match")
    if if_none_match is not None:
        if etag is None or not _etag_matches(if_none_match, etag):
            return None
    else:
        since = _parse_http_date(request_headers.get("if-modified-since"))
        modified = _parse_http_date(last_modified)
        if since is None or modified is None or modified > since:
            return None
    keep = {"etag", "last-modified", "cache-control", "vary", "x-github-media-type"}
    headers = {name: value for name, value in reply.headers.items() if name.lower() in keep}
    return Reply(304, headers)


def _etag_matches(if_none_match: str, etag: str) -> bool:
    """Weak comparison of `etag` against an If-None-Match list (or `*`)."""
    if if_none_match.strip() == "*":
        return True
    wanted = etag.removeprefix("W/")
    return any(tag.strip().removeprefix("W/") == wanted for tag in if_none_match.split(","))


def _header(headers: Mapping[str, str], name: str) -> str | None:
    """A header value by case-insensitive name."""
    lowered = name.lower()
    return next((v for k, v in headers.items() if k.lower() == lowered), None)


def _raw_media_type(accept: str) -> str | None:
    """The raw media type asked for in an Accept header, if any."""
    for item in accept.split(","):
        media = item.split(";", 1)[0].strip().lower()
        if RAW_MEDIA_TYPE.match(media):
            return media
    return None


def _parse_entry(raw: dict[str, Any], folder: Path) -> CorpusEntry:
    """One `index.json` entry."""
    return CorpusEntry(
        date=dt.date.fromisoformat(raw["date"]),
        commit=raw["commit"],
        commit_date=dt.datetime.fromisoformat(raw["commit_date"]),
        blob_sha=raw["blob_sha"],
        file=folder / raw["file"] if raw.get("file") else None,
        kind=raw.get("kind"),
    )


def _default_branches(sources: Path) -> dict[str, str]:
    """Folder name → default branch, read from the SOURCES.md repository table."""
    branches: dict[str, str] = {}
    if not sources.is_file():
        return branches
    row = re.compile(r"^\|\s*`([^`]+__[^`]+)`\s*\|[^|]*\|\s*([^|\s]+)\s*\|")
    for line in sources.read_text().splitlines():
        match = row.match(line)
        if match is not None:
            branches.setdefault(match[1], match[2])
    return branches


def _entry_as_of(history: list[CorpusEntry], date: dt.date | None) -> CorpusEntry | None:
    """The newest entry whose date is on or before `date` (None: the newest entry)."""
    if date is None:
        return history[-1] if history else None
    eligible = [entry for entry in history if entry.date <= date]
    return eligible[-1] if eligible else None


def _entry_for_sha(history: list[CorpusEntry], ref: str) -> CorpusEntry | None:
    """The entry of a commit named by its full sha or a unique prefix of 7+ characters."""
    ref = ref.lower()
    if not SHA_PREFIX.match(ref):
        return None
    found = {entry.commit: entry for entry in history if entry.commit.startswith(ref)}
    return next(iter(found.values())) if len(found) == 1 else None


def _distinct_commits(history: list[CorpusEntry], as_of: dt.date | None) -> list[CorpusEntry]:
    """Distinct commits that have a README, up to `as_of`, newest first."""
    seen: dict[str, CorpusEntry] = {}
    for entry in history:
        if entry.file is None or (as_of is not None and entry.date > as_of):
            continue
        seen.setdefault(entry.commit, entry)
    return sorted(seen.values(), key=lambda e: e.commit_date, reverse=True)


def _readme_name(files: Mapping[str, StoredFile]) -> str | None:
    """The registered top-level README, if any (README.md first)."""
    if README_PATH in files:
        return README_PATH
    return next((p for p in sorted(files) if "/" not in p and p.lower().startswith("readme")), None)


def _git_blob_sha(data: bytes) -> str:
    """The git blob id of `data`, as GitHub reports a file's `sha`."""
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def _parse_iso(value: str | None) -> dt.datetime | None:
    """An ISO 8601 timestamp from a query (naive means UTC)."""
    if not value:
        return None
    parsed = dt.datetime.fromisoformat(value)
    return parsed if parsed.tzinfo else parsed.replace(tzinfo=dt.UTC)


def _parse_http_date(value: str | None) -> dt.datetime | None:
    """An HTTP-date, or None when absent or malformed."""
    if not value:
        return None
    try:
        return email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None


def _as_date(value: dt.date | None) -> dt.date | None:
    """A date from a date or datetime."""
    return value.date() if isinstance(value, dt.datetime) else value


def _path_only(path: str) -> str:
    """The path of a path-or-URL, without query or fragment, starting with `/`."""
    found = urlsplit(path).path or "/"
    return found if found.startswith("/") else "/" + found


def _phrase(status: int) -> str:
    """The reason phrase of a status code."""
    try:
        return HTTPStatus(status).phrase
    except ValueError:
        return "Error"


def main() -> None:
    """Serve the corpus by hand, to try claimcheck against real README history.

    PYTHONPATH=tests python -m support.replay_server --as-of 2024-03-15 --port 8765
    GITHUB_API_URL=http://127.0.0.1:8765 claimcheck verify
    """
    import argparse
    import time

    parser = argparse.ArgumentParser(
        description=main.__doc__.splitlines()[0] if main.__doc__ else ""
    )
    parser.add_argument(
        "--as-of",
        type=dt.date.fromisoformat,
        default=None,
        help="serve every README as it was on this date (default: newest)",
    )
    parser.add_argument("--port", type=int, default=8765)
    args = parser.parse_args()
    server = ReplayServer(as_of=args.as_of).start(args.port)
    print(
        f"serving the README history as of {args.as_of or 'the newest version'} "
        f"at {server.base_url} (Ctrl-C stops)",
        flush=True,
    )
    try:
        while True:
            time.sleep(3600)
    except KeyboardInterrupt:
        server.stop()


if __name__ == "__main__":
    main()
