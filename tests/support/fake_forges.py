"""Real HTTP servers on 127.0.0.1 shaped like GitLab's REST API v4 and Forgejo's API v1.

Both hold repositories as linear lists of commits, each with the repository's files as
that commit left them (None: the commit removed the file), and answer the endpoints
claimcheck reads, as the two forges document them:

GitLab (`FakeGitLab`, docs.gitlab.com/api: projects, repository files, commits):
- `GET /api/v4/projects/:id`, `:id` the URL-encoded path (`group%2Fproject`): the
  project with `default_branch` and `readme_url` (`…/-/blob/main/README.md`, null
  without a README); 404 `{"message": "404 Project Not Found"}` for an unknown one.
- `GET /api/v4/projects/:id/repository/files/:file_path/raw?ref=…` (`ref` optional:
  HEAD): the raw file, with `ETag` (its blob id) and `X-Gitlab-Blob-Id`; a matching
  `If-None-Match` answers 304; 404 `{"message": "404 File Not Found"}`.
- `GET /api/v4/projects/:id/repository/commits?path=&ref_name=&since=&until=&per_page=
  &page=`: the commits that touched `path`, newest first (`id`, `short_id`, `title`,
  `message`, `author_name`, `authored_date`, `committed_date`, `created_at`,
  `web_url`), with `Link: <…>; rel="next"` and `X-Next-Page` while more remain.

Forgejo (`FakeForgejo`, the API v1 swagger of Forgejo and Gitea):
- `GET /api/v1/repos/{owner}/{repo}/contents?ref=…`: the root folder, entries
  `{"name", "path", "sha", "type": "file"|"dir", "size"}`; 404 for an unknown repository.
- `GET /api/v1/repos/{owner}/{repo}/raw/{filepath}?ref=…` (`ref` optional: the default
  branch): the raw file with `ETag: "<blob sha>"`; a matching `If-None-Match` is 304.
- `GET /api/v1/repos/{owner}/{repo}/commits?sha=&path=&since=&until=&limit=&page=`:
  GitHub-shaped commits (`sha`, `html_url`, `commit.{message, author, committer}`,
  `author.login`), newest first, `Link` and `X-Total-Count`.

Page sizes: `per_page` (GitLab: default 20, at most 100) and `limit` (Forgejo: default
30, at most 50, Codeberg's `MAX_RESPONSE_ITEMS`) are honoured up to `max_per_page`.
Refs: the branch `main` (the newest commit) or a commit id (full, or at least 7 of its
characters). `since` and `until` take ISO 8601 and keep commits on or after / on or
before them. Every request is kept in `requests` (lower-case header names).
"""

from __future__ import annotations

import datetime as dt
import hashlib
import json
import threading
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qsl, unquote, urlencode, urlsplit

from support.local_http import RecordingServer, send_answer

Answer = tuple[int, dict[str, str], bytes]


@dataclass(frozen=True)
class ForgeCommit:
    """One commit: its id, title, author and date, and every file as it left them."""

    sha: str
    title: str
    author: str
    date: dt.datetime
    files: dict[str, bytes | None]


@dataclass(frozen=True)
class ForgeRequest:
    """One request a server received (path unquoted once, as sent)."""

    path: str
    query: dict[str, str]
    headers: dict[str, str]
    status: int


@dataclass
class ForgeRepo:
    """A repository's commits, oldest first."""

    commits: list[ForgeCommit] = field(default_factory=list)

    def at(self, ref: str | None) -> list[ForgeCommit] | None:
        """The commits reachable from `ref` (None or main: all), oldest first."""
        if ref in (None, "", "main", "HEAD"):
            return list(self.commits)
        if ref and len(ref) >= 7:
            for index, commit in enumerate(self.commits):
                if commit.sha.startswith(ref):
                    return self.commits[: index + 1]
        return None


def blob_sha(body: bytes) -> str:
    """The git blob id of a file (what both forges give as its ETag)."""
    return hashlib.sha1(b"blob %d\0" % len(body) + body, usedforsecurity=False).hexdigest()


def file_at(commits: list[ForgeCommit], path: str) -> bytes | None:
    """The file as the last of `commits` left it."""
    for commit in reversed(commits):
        if path in commit.files:
            return commit.files[path]
    return None


def touching(commits: list[ForgeCommit], path: str) -> list[ForgeCommit]:
    """The commits that changed the file (created, edited or removed it), oldest first."""
    found, before = [], None
    for commit in commits:
        if path in commit.files and commit.files[path] != before:
            found.append(commit)
            before = commit.files[path]
    return found


def _when(value: str | None) -> dt.datetime | None:
    return dt.datetime.fromisoformat(value.replace("Z", "+00:00")) if value else None


def _stamp(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.000+00:00")


class _FakeForge:
    """What both servers share: repositories, the request log, the lifecycle."""

    def __init__(self, *, per_page: int = 20, max_per_page: int = 50) -> None:
        self.per_page = per_page
        self.max_per_page = max_per_page
        self.repos: dict[str, ForgeRepo] = {}
        self.requests: list[ForgeRequest] = []
        self.errors: list[str] = []
        self.public_host = "forge.example"
        self._lock = threading.Lock()
        self._server: RecordingServer | None = None

    def commit(
        self,
        repo: str,
        files: dict[str, str | None],
        *,
        title: str,
        date: dt.datetime,
        author: str = "forge-user",
    ) -> ForgeCommit:
        """Add a commit to `repo` (`owner/name`, `group/…/name`), changing `files`."""
        history = self.repos.setdefault(repo, ForgeRepo())
        made = ForgeCommit(
            sha=hashlib.sha1(f"{repo}#{len(history.commits)}".encode()).hexdigest(),
            title=title,
            author=author,
            date=date,
            files={k: None if v is None else v.encode() for k, v in files.items()},
        )
        history.commits.append(made)
        return made

    def requests_to(self, fragment: str) -> list[ForgeRequest]:
        """The requests whose path holds `fragment`, in order."""
        return [r for r in self.requests if fragment in r.path]

    @property
    def base_url(self) -> str:
        assert self._server is not None, "start the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    def __enter__(self) -> Self:
        forge = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                parts = urlsplit(self.path)
                query = dict(parse_qsl(parts.query))
                status, headers, body = forge.answer(parts.path, query, self.headers)
                with forge._lock:
                    forge.requests.append(
                        ForgeRequest(
                            path=parts.path,
                            query=query,
                            headers={k.lower(): v for k, v in self.headers.items()},
                            status=status,
                        )
                    )
                send_answer(self, status, headers, body)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the test reads `requests` instead."""

        self._server = RecordingServer(("127.0.0.1", 0), Handler, self.errors)
        threading.Thread(target=self._server.serve_forever, daemon=True).start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        assert self._server is not None
        self._server.shutdown()
        self._server.server_close()

    def answer(self, path: str, query: dict[str, str], headers: Any) -> Answer:
        raise NotImplementedError

    def _raw(
        self, commits: list[ForgeCommit], path: str, headers: Any, extra: dict[str, str]
    ) -> Answer | None:
        body = file_at(commits, path)
        if body is None:
            return None
        etag = f'"{blob_sha(body)}"'
        common = {"ETag": etag, **extra}
        if headers.get("If-None-Match") == etag:
            return 304, common, b""
        return 200, {**common, "Content-Type": "text/plain; charset=utf-8"}, body

    def _page(
        self, found: list[ForgeCommit], query: dict[str, str], size_key: str, link_path: str
    ) -> tuple[list[ForgeCommit], dict[str, str]]:
        since, until = _when(query.get("since")), _when(query.get("until"))
        kept = [
            c
            for c in reversed(found)
            if (since is None or c.date >= since) and (until is None or c.date <= until)
        ]
        size = min(int(query.get(size_key, str(self.per_page))), self.max_per_page)
        page = int(query.get("page", "1"))
        chunk = kept[(page - 1) * size : page * size]
        headers = {"Content-Type": "application/json", "X-Total-Count": str(len(kept))}
        if page * size < len(kept):
            following = urlencode({**query, "page": str(page + 1)})
            headers["Link"] = f'<{self.base_url}{link_path}?{following}>; rel="next"'
            headers["X-Next-Page"] = str(page + 1)
        return chunk, headers


def _json(status: int, document: Any, headers: dict[str, str] | None = None) -> Answer:
    return (
        status,
        {"Content-Type": "application/json", **(headers or {})},
        json.dumps(document).encode(),
    )


class FakeGitLab(_FakeForge):
    """GitLab's REST API v4 on 127.0.0.1 (start with `with FakeGitLab() as gitlab:`)."""

    def __init__(self, *, per_page: int = 20, max_per_page: int = 100) -> None:
        super().__init__(per_page=per_page, max_per_page=max_per_page)
        self.public_host = "gitlab.com"

    def answer(self, path: str, query: dict[str, str], headers: Any) -> Answer:
        raw = path.split("/")  # split before unquoting: the project id is URL-encoded
        if raw[:4] != ["", "api", "v4", "projects"] or len(raw) < 5:
            return _json(404, {"error": "404 Not Found"})
        project = unquote(raw[4])
        repo = self.repos.get(project)
        if repo is None:
            return _json(404, {"message": "404 Project Not Found"})
        rest = raw[5:]
        if not rest:
            readme = file_at(repo.commits, "README.md")
            web = f"https://{self.public_host}/{project}"
            return _json(
                200,
                {
                    "id": 4242,
                    "path_with_namespace": project,
                    "default_branch": "main",
                    "web_url": web,
                    "readme_url": f"{web}/-/blob/main/README.md" if readme is not None else None,
                },
            )
        commits = repo.at(query.get("ref") or query.get("ref_name"))
        if commits is None:
            return _json(404, {"message": "404 Commit Not Found"})
        if rest[:2] == ["repository", "files"] and len(rest) == 4 and rest[3] == "raw":
            file_path = unquote(rest[2])
            found = self._raw(commits, file_path, headers, {"X-Gitlab-Blob-Id": "x"})
            return found or _json(404, {"message": "404 File Not Found"})
        if rest == ["repository", "commits"]:
            touched = touching(commits, query["path"]) if "path" in query else commits
            chunk, answer = self._page(touched, query, "per_page", path)
            items = [
                {
                    "id": c.sha,
                    "short_id": c.sha[:8],
                    "title": c.title,
                    "message": f"{c.title}\n",
                    "author_name": c.author,
                    "author_email": f"{c.author}@example.org",
                    "authored_date": _stamp(c.date),
                    "committed_date": _stamp(c.date),
                    "created_at": _stamp(c.date),
                    "web_url": f"https://{self.public_host}/{project}/-/commit/{c.sha}",
                }
                for c in chunk
            ]
            return _json(200, items, answer)
        return _json(404, {"error": "404 Not Found"})


class FakeForgejo(_FakeForge):
    """Forgejo's API v1 on 127.0.0.1 (start with `with FakeForgejo() as forgejo:`)."""

    def __init__(self, *, per_page: int = 30, max_per_page: int = 50) -> None:
        super().__init__(per_page=per_page, max_per_page=max_per_page)
        self.public_host = "codeberg.org"

    def answer(self, path: str, query: dict[str, str], headers: Any) -> Answer:
        segments = [unquote(s) for s in path.split("/") if s]
        if segments[:3] != ["api", "v1", "repos"] or len(segments) < 6:
            return _json(404, {"message": "not found"})
        name, what, rest = f"{segments[3]}/{segments[4]}", segments[5], segments[6:]
        repo = self.repos.get(name)
        if repo is None:
            return _json(404, {"errors": [], "message": "GetRepositoryByName", "url": ""})
        commits = repo.at(query.get("ref") or query.get("sha"))
        if commits is None:
            return _json(404, {"message": "object does not exist"})
        if what == "contents" and not rest:
            files = sorted(p for p in {k for c in commits for k in c.files} if file_at(commits, p))
            top = sorted({p.split("/")[0] for p in files})
            entries = [
                {
                    "name": entry,
                    "path": entry,
                    "sha": blob_sha(file_at(commits, entry) or b""),
                    "type": "file" if entry in files else "dir",
                    "size": len(file_at(commits, entry) or b""),
                }
                for entry in top
            ]
            return _json(200, entries)
        if what == "raw" and rest:
            found = self._raw(commits, "/".join(rest), headers, {})
            return found or _json(404, {"message": "object does not exist"})
        if what == "commits" and not rest:
            touched = touching(commits, query["path"]) if "path" in query else commits
            chunk, answer = self._page(touched, query, "limit", path)
            items = [
                {
                    "sha": c.sha,
                    "html_url": f"https://{self.public_host}/{name}/commit/{c.sha}",
                    "commit": {
                        "message": f"{c.title}\n",
                        "author": {"name": c.author, "date": _stamp(c.date)},
                        "committer": {"name": c.author, "date": _stamp(c.date)},
                    },
                    "author": {"login": c.author},
                }
                for c in chunk
            ]
            return _json(200, items, answer)
        return _json(404, {"message": "not found"})
