"""A real HTTP server on 127.0.0.1 shaped like the Hugging Face Hub, for card tests.

`FakeHub` holds repositories (models, datasets, Spaces) as lists of commits, each with
the repository's `README.md` as of that commit (None: the commit removed it), and
answers the endpoints claimcheck reads, as `huggingface_hub` documents them:

- `GET /{repo_id}/raw/{revision}/README.md` (datasets: `/datasets/{repo_id}/raw/...`,
  Spaces: `/spaces/...`), `revision` a branch (`main`, the newest commit) or a commit
  sha (full or at least 7 characters). The raw bytes as `text/plain; charset=utf-8`,
  with `ETag: "<git blob sha>"` and `X-Repo-Commit`; a matching `If-None-Match` answers
  `304 Not Modified` without a body.
- `GET /api/{models|datasets|spaces}/{repo_id}/commits/{revision}`: the commits
  reachable from the revision, newest first, as `{"id", "title", "message",
  "authors": [{"user", "avatar"}], "date"}`, `per_page` at a time, page `?p=N` (from
  0), with `Link: <...?p=N+1>; rel="next"` while more remain.
- Errors as the Hub gives them: JSON `{"error": ...}` with `X-Error-Code`
  (`RepoNotFound` as 401 for a repository it does not know, the answer the Hub gives
  an anonymous client; `RevisionNotFound` and `EntryNotFound` as 404).

Simplifications: history is linear (no branches but `main`), names are matched as
written, and every request is answered at once. Requests are kept in `requests`
(lower-case header names) for tests to inspect.
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
from urllib.parse import parse_qsl, quote, unquote, urlsplit

from support.local_http import RecordingServer, send_answer

API_KINDS = {"models": "model", "datasets": "dataset", "spaces": "space"}
SITE_PREFIX = {"model": "", "dataset": "datasets/", "space": "spaces/"}


@dataclass(frozen=True)
class HubCommit:
    """One commit: its sha, message, author and date, and README.md as it left it."""

    sha: str
    title: str
    author: str
    date: dt.datetime
    readme: bytes | None
    message: str = ""


@dataclass(frozen=True)
class HubRequest:
    """One request the server received."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    status: int


@dataclass
class HubRepo:
    """A repository's commits, oldest first."""

    commits: list[HubCommit] = field(default_factory=list)


def blob_sha(body: bytes) -> str:
    """The git blob id of a file, which the Hub gives as a small file's ETag."""
    return hashlib.sha1(b"blob %d\0" % len(body) + body, usedforsecurity=False).hexdigest()


def commit_sha(repo_id: str, index: int) -> str:
    """A stable, made-up commit id for a repository's `index`-th commit."""
    return hashlib.sha1(f"{repo_id}#{index}".encode(), usedforsecurity=False).hexdigest()


class FakeHub:
    """The Hub on 127.0.0.1 (start with `with FakeHub() as hub:`)."""

    def __init__(self, *, per_page: int = 50) -> None:
        self.per_page = per_page
        self.link_base: str | None = None
        """Where next-page links point (None: this server), to test a foreign link."""
        self.repos: dict[tuple[str, str], HubRepo] = {}
        self.requests: list[HubRequest] = []
        self.errors: list[str] = []
        self._lock = threading.Lock()
        self._server: RecordingServer | None = None
        self._thread: threading.Thread | None = None

    # -- the repositories ----------------------------------------------------------

    def commit(
        self,
        repo_id: str,
        readme: str | None,
        *,
        title: str,
        date: dt.datetime,
        author: str = "hub-user",
        repo_type: str = "model",
    ) -> HubCommit:
        """Add a commit to the repository (created on first use), README.md as given."""
        repo = self.repos.setdefault((repo_type, repo_id), HubRepo())
        made = HubCommit(
            sha=commit_sha(f"{repo_type}:{repo_id}", len(repo.commits)),
            title=title,
            author=author,
            date=date,
            readme=None if readme is None else readme.encode("utf-8"),
            message=f"{title}\n",
        )
        repo.commits.append(made)
        return made

    def requests_to(self, prefix: str) -> list[HubRequest]:
        """The requests whose path starts with `prefix`, in order."""
        return [r for r in self.requests if r.path.startswith(prefix)]

    def clear_requests(self) -> None:
        """Forget the requests received so far."""
        with self._lock:
            self.requests.clear()

    @property
    def base_url(self) -> str:
        """The endpoint, `http://127.0.0.1:PORT` (what HF_ENDPOINT is set to)."""
        assert self._server is not None, "start the server first"
        return f"http://127.0.0.1:{self._server.server_address[1]}"

    # -- lifecycle -------------------------------------------------------------------

    def __enter__(self) -> Self:
        hub = self

        class Handler(BaseHTTPRequestHandler):
            protocol_version = "HTTP/1.1"

            def do_GET(self) -> None:
                status, headers, body = hub._answer(self.path, self.headers)
                parts = urlsplit(self.path)
                with hub._lock:
                    hub.requests.append(
                        HubRequest(
                            method="GET",
                            path=unquote(parts.path),
                            query=dict(parse_qsl(parts.query)),
                            headers={k.lower(): v for k, v in self.headers.items()},
                            status=status,
                        )
                    )
                send_answer(self, status, headers, body)

            def log_message(self, format: str, *args: Any) -> None:
                """Quiet: the test reads `requests` instead."""

        self._server = RecordingServer(("127.0.0.1", 0), Handler, self.errors)
        self._thread = threading.Thread(target=self._server.serve_forever, daemon=True)
        self._thread.start()
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

    # -- answers -----------------------------------------------------------------------

    def _answer(self, target: str, headers: Any) -> tuple[int, dict[str, str], bytes]:
        parts = urlsplit(target)
        segments = [unquote(s) for s in parts.path.split("/") if s]
        if segments[:1] == ["api"] and len(segments) == 6 and segments[1] in API_KINDS:
            _, kind, org, name, what, revision = segments
            if what == "commits":
                return self._commits(API_KINDS[kind], f"{org}/{name}", revision, parts.query)
        repo_type = "model"
        if segments[:1] and segments[0] in ("datasets", "spaces"):
            repo_type, segments = API_KINDS[segments[0]], segments[1:]
        if len(segments) == 5 and segments[2] == "raw":
            org, name, _, revision, file = segments
            return self._raw(repo_type, f"{org}/{name}", revision, file, headers)
        return _error(404, "EntryNotFound", "Not Found")

    def _history(self, repo_type: str, repo_id: str, revision: str) -> list[HubCommit] | None:
        """The commits reachable from `revision`, oldest first; None: no such revision."""
        commits = self.repos[(repo_type, repo_id)].commits
        if revision == "main":
            return list(commits)
        if len(revision) >= 7:
            for index, commit in enumerate(commits):
                if commit.sha.startswith(revision):
                    return commits[: index + 1]
        return None

    def _raw(
        self, repo_type: str, repo_id: str, revision: str, file: str, headers: Any
    ) -> tuple[int, dict[str, str], bytes]:
        if (repo_type, repo_id) not in self.repos:
            return _error(401, "RepoNotFound", "Repository not found")
        history = self._history(repo_type, repo_id, revision)
        if not history:
            return _error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
        readme = history[-1].readme
        if file != "README.md" or readme is None:
            return _error(404, "EntryNotFound", f"{file} does not exist on {revision!r}")
        etag = f'"{blob_sha(readme)}"'
        common = {"ETag": etag, "X-Repo-Commit": history[-1].sha}
        if headers.get("If-None-Match") == etag:
            return 304, common, b""
        return 200, {**common, "Content-Type": "text/plain; charset=utf-8"}, readme

    def _commits(
        self, repo_type: str, repo_id: str, revision: str, query: str
    ) -> tuple[int, dict[str, str], bytes]:
        if (repo_type, repo_id) not in self.repos:
            return _error(401, "RepoNotFound", "Repository not found")
        history = self._history(repo_type, repo_id, revision)
        if history is None:
            return _error(404, "RevisionNotFound", f"Invalid rev id: {revision}")
        page = int(dict(parse_qsl(query)).get("p", "0"))
        newest_first = list(reversed(history))
        chunk = newest_first[page * self.per_page : (page + 1) * self.per_page]
        items = [
            {
                "id": c.sha,
                "title": c.title,
                "message": c.message,
                "authors": [{"user": c.author, "avatar": f"/avatars/{c.author}.svg"}],
                "date": c.date.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%S.000Z"),
            }
            for c in chunk
        ]
        answer = {"Content-Type": "application/json; charset=utf-8"}
        if (page + 1) * self.per_page < len(newest_first):
            kind = {"model": "models", "dataset": "datasets", "space": "spaces"}[repo_type]
            path = f"/api/{kind}/{quote(repo_id)}/commits/{quote(revision, safe='')}"
            base = self.link_base or self.base_url
            answer["Link"] = f'<{base}{path}?p={page + 1}>; rel="next"'
        return 200, answer, json.dumps(items).encode()


def _error(status: int, code: str, message: str) -> tuple[int, dict[str, str], bytes]:
    headers = {"Content-Type": "application/json; charset=utf-8", "X-Error-Code": code}
    return status, headers, json.dumps({"error": message}).encode()


def site_path(repo_id: str, repo_type: str = "model") -> str:
    """The repository's path on the Hub's site: `/ORG/NAME`, `/datasets/ORG/NAME`, …"""
    return f"/{SITE_PREFIX[repo_type]}{repo_id}"
