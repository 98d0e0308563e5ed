"""A fake GitHub issues API on 127.0.0.1, held to GitHub's own OpenAPI description.

`FakeGitHub` serves one repository's issues, comments and labels from memory, and
`GET /user`. Every request is checked against `issues-subset.json` (the official
description of these endpoints, in `tests/data/github-openapi/`): method and path
template, path and query parameters (declared, typed, enums), the JSON request body
(its schema, with `jsonschema`), plus GitHub's documented headers (`Accept`,
`X-GitHub-Api-Version`, `User-Agent`, `Authorization: Bearer`). Every JSON answer is
shaped from the document's own examples and validated against the response schema
of its status code. A request the description does not allow is answered as GitHub
would (422, 400 or 404) and kept in `errors`, which fails the test.

GitHub behaviours reproduced:

- list: `state` (default open), `labels` (all must match, case-insensitive),
  `creator`, `sort`, `direction`, `since`, `per_page` (default 30, at most 100) and
  `page`, with a `Link` header (next/last/first/prev); pull requests are listed too,
  with a `pull_request` key; list items leave out `closed_by`, as GitHub's do.
- create: 201 with `Location`; labels are created on the fly, or silently dropped
  without push access (`push_access = False`); 410 when issues are disabled.
- update: `state_reason` only counts when `state` changes; closing sets `closed_at`
  and `closed_by`, reopening sets `state_reason: reopened`; `duplicate_issue_id`
  must name an existing issue's id.
- rate limits: `X-RateLimit-*` on every answer, and injected answers (`inject`):
  429 with `Retry-After`, 403 with `X-RateLimit-Remaining: 0` and a reset time, a
  secondary-limit 403, or a failure after the write was done (`apply=True`).

`GET /user` is not in the subset; its answer is checked against `simple-user`.
"""

from __future__ import annotations

import datetime as dt
import json
import re
import threading
import time
import traceback
from collections.abc import Callable
from dataclasses import dataclass, field
from http.server import BaseHTTPRequestHandler
from pathlib import Path
from types import TracebackType
from typing import Any, Self
from urllib.parse import parse_qsl, urlencode, urlsplit

from support.local_http import RecordingServer
from support.openapi_document import SPEC, Operation, load_document, require_spec, typed_value

__all__ = ["BOT", "SPEC", "TOKEN", "Clock", "FakeGitHub", "FakeIssue", "require_spec"]

API_VERSION = "2022-11-28"
ACCEPT = "application/vnd.github+json"
DOCS = "https://docs.github.com/rest"
TOKEN = "ghp_fakeGitHubToken0123456789SECRETvalue"
BOT = "claimcheck-bot"
_EPOCH = dt.datetime(2026, 11, 1, 3, 0, tzinfo=dt.UTC)


class Clock:
    """Epoch seconds that only move when slept: every wait is recorded, none is real."""

    def __init__(self) -> None:
        self.now = 1_800_000_000.0
        self.sleeps: list[float] = []

    def time(self) -> float:
        return self.now

    def sleep(self, seconds: float) -> None:
        self.sleeps.append(round(seconds, 3))
        self.now += seconds


# -- the fake --------------------------------------------------------------------------


@dataclass
class FakeIssue:
    """One issue (or pull request) in memory."""

    number: int
    id: int
    title: str
    body: str | None
    author: str
    labels: list[str]
    state: str = "open"
    state_reason: str | None = None
    created_at: dt.datetime = _EPOCH
    updated_at: dt.datetime = _EPOCH
    closed_at: dt.datetime | None = None
    closed_by: str | None = None
    comments: list[str] = field(default_factory=list)
    pull_request: bool = False


@dataclass
class Injection:
    """An answer served instead of the real one, `times` times (None: for ever)."""

    status: int
    headers: dict[str, str]
    message: str
    operation: str | None
    times: int | None
    apply: bool


@dataclass(frozen=True)
class Recorded:
    """One request as received: lower-case header names, parsed JSON body, the status."""

    method: str
    path: str
    query: dict[str, str]
    headers: dict[str, str]
    body: Any
    status: int
    operation: str | None
    at: float


@dataclass
class Reply:
    """An answer to send."""

    status: int
    payload: Any = None
    headers: dict[str, str] = field(default_factory=dict)


class FakeGitHub:
    """The fake; use as a context manager. Configure between requests; read `requests`."""

    def __init__(self, spec: Path = SPEC, repo: str = "desk/site") -> None:
        self.api = load_document(spec)
        self.repo = repo
        self.tokens: dict[str, str] = {TOKEN: BOT}
        self.issues: dict[int, FakeIssue] = {}
        self.labels: dict[str, dict[str, Any]] = {}
        self.push_access = True
        self.issues_enabled = True
        self.user_forbidden = False
        self.rate_limit_remaining = 5000
        self.requests: list[Recorded] = []
        self.errors: list[str] = []
        self.clock = _EPOCH
        self._injections: list[Injection] = []
        self._lock = threading.RLock()
        self._next_id = 5000
        examples = self.api.doc["components"]["examples"]
        self._issue_example = examples["issue"]["value"]
        self._comment_example = examples["issue-comment"]["value"]
        self._label_example = examples["label"]["value"]
        self._httpd: _Server | None = None
        self._thread: threading.Thread | None = None

    # -- lifecycle ---------------------------------------------------------------------

    def __enter__(self) -> Self:
        httpd = _Server(("127.0.0.1", 0), _Handler, self.errors)
        httpd.fake = self
        self._httpd = httpd
        self._thread = threading.Thread(
            target=httpd.serve_forever, kwargs={"poll_interval": 0.05}, daemon=True
        )
        self._thread.start()
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        if self._httpd is not None:
            self._httpd.shutdown()
            self._httpd.server_close()
        if self._thread is not None:
            self._thread.join(timeout=5)

    @property
    def base_url(self) -> str:
        """`http://127.0.0.1:PORT`: set it as GITHUB_API_URL."""
        assert self._httpd is not None
        return f"http://127.0.0.1:{self._httpd.server_address[1]}"

    # -- test helpers ------------------------------------------------------------------

    def add_issue(
        self,
        title: str,
        body: str | None,
        *,
        author: str = BOT,
        labels: tuple[str, ...] = ("claimcheck",),
        pull_request: bool = False,
    ) -> FakeIssue:
        """An issue written by someone (a person, or our bot on an earlier night)."""
        with self._lock:
            issue = self._new_issue(title, body, author, list(labels))
            issue.pull_request = pull_request
            return issue

    def close(self, number: int, reason: str, by: str) -> None:
        """A person (or anyone) closes an issue from the web page."""
        with self._lock:
            issue = self.issues[number]
            issue.state, issue.state_reason = "closed", reason
            issue.closed_at, issue.closed_by = self._tick(), by

    def inject(
        self,
        status: int,
        *,
        headers: dict[str, str] | None = None,
        message: str = "",
        operation: str | None = None,
        times: int | None = 1,
        apply: bool = False,
    ) -> None:
        """Answer the next matching request(s) with `status`; `apply` does the write first."""
        with self._lock:
            self._injections.append(
                Injection(status, headers or {}, message, operation, times, apply)
            )

    def open_issues(self) -> list[FakeIssue]:
        """Open issues (not pull requests), by number."""
        return [
            i for _, i in sorted(self.issues.items()) if i.state == "open" and not i.pull_request
        ]

    def writes(self) -> list[Recorded]:
        """Requests that change something."""
        return [r for r in self.requests if r.method != "GET"]

    # -- request handling --------------------------------------------------------------

    def handle(
        self, method: str, target: str, headers: dict[str, str], raw: bytes
    ) -> tuple[int, dict[str, str], bytes]:
        """Answer one request; a crash answers 500 and is kept in `errors`."""
        parts = urlsplit(target)
        query = dict(parse_qsl(parts.query, keep_blank_values=True))
        routed = self.api.route(method, parts.path)
        op = routed[0] if routed else None
        body: Any = None
        try:
            body = json.loads(raw) if raw else None
            reply = self._answer(method, parts.path, query, headers, body, routed)
        except json.JSONDecodeError:
            reply = self._refuse(400, "Problems parsing JSON", f"{method} {target}: bad JSON")
        except Exception:
            self.errors.append(traceback.format_exc())
            reply = Reply(500, {"message": "fake GitHub crashed"})
        schema = self.api.response_schema(op, reply.status)
        if schema is not None and reply.payload is not None:
            self.errors += self.api.problems(schema, reply.payload, f"answer to {method} {target}")
        with self._lock:
            self.rate_limit_remaining = max(0, self.rate_limit_remaining - 1)
            reply.headers.setdefault("X-RateLimit-Limit", "5000")
            reply.headers.setdefault("X-RateLimit-Remaining", str(self.rate_limit_remaining))
            reply.headers.setdefault("X-RateLimit-Reset", str(int(time.time()) + 3600))
            reply.headers.setdefault("X-RateLimit-Resource", "core")
            self.requests.append(
                Recorded(
                    method,
                    parts.path,
                    query,
                    headers,
                    body,
                    reply.status,
                    op.op_id if op else None,
                    time.monotonic(),
                )
            )
        data = json.dumps(reply.payload).encode() if reply.payload is not None else b""
        if data:
            reply.headers["Content-Type"] = "application/json; charset=utf-8"
        return reply.status, reply.headers, data

    def _answer(
        self,
        method: str,
        path: str,
        query: dict[str, str],
        headers: dict[str, str],
        body: Any,
        routed: tuple[Operation, dict[str, str]] | None,
    ) -> Reply:
        problem = self._check_headers(method, path, headers)
        if problem is not None:
            return problem
        login, auth_problem = self._login(headers)
        if auth_problem is not None:
            return auth_problem
        if method == "GET" and path == "/user":
            return self._user(login)
        if routed is None:
            return self._refuse(404, "Not Found", f"{method} {path}: not in the OpenAPI subset")
        op, params = routed
        problems = self._check_request(op, params, query, body)
        if problems:
            self.errors += problems
            return Reply(422, _validation_error("; ".join(problems)))
        owner_repo = f"{params.get('owner', '')}/{params.get('repo', '')}"
        if owner_repo.lower() != self.repo.lower():
            return Reply(404, {"message": "Not Found", "documentation_url": DOCS, "status": "404"})
        injection = self._injection(op)
        if injection is not None and not injection.apply:
            return _injected(injection)
        if method != "GET" and login is None:
            return Reply(401, {"message": "Requires authentication", "documentation_url": DOCS})
        handler: Callable[..., Reply] = getattr(
            self, "_op_" + op.op_id.replace("/", "_").replace("-", "_")
        )
        with self._lock:
            reply = handler(params, query, body, login)
        return _injected(injection) if injection is not None else reply

    def _check_headers(self, method: str, path: str, headers: dict[str, str]) -> Reply | None:
        where = f"{method} {path}"
        if headers.get("accept") != ACCEPT:
            self.errors.append(f"{where}: Accept is {headers.get('accept')!r}, not {ACCEPT!r}")
        if not headers.get("user-agent"):
            return self._refuse(403, "Request forbidden: no User-Agent", f"{where}: no User-Agent")
        if headers.get("x-github-api-version") != API_VERSION:
            version = headers.get("x-github-api-version")
            return self._refuse(400, f"Unsupported API version {version}", f"{where}: version")
        auth = headers.get("authorization")
        if auth is not None and not re.fullmatch(r"Bearer [A-Za-z0-9_]+", auth):
            self.errors.append(f"{where}: Authorization is not `Bearer TOKEN`")
        return None

    def _login(self, headers: dict[str, str]) -> tuple[str | None, Reply | None]:
        auth = headers.get("authorization")
        if auth is None:
            return None, None
        login = self.tokens.get(auth.removeprefix("Bearer "))
        if login is None:
            return None, Reply(401, {"message": "Bad credentials", "documentation_url": DOCS})
        return login, None

    def _check_request(
        self, op: Operation, params: dict[str, str], query: dict[str, str], body: Any
    ) -> list[str]:
        where = f"{op.method} {op.template} ({op.op_id})"
        problems = []
        for name, value in {**params, **query}.items():
            spec = op.parameters.get(name)
            if spec is None:
                problems.append(f"{where}: parameter {name!r} is not in the description")
                continue
            problems += self.api.problems(spec["schema"], typed_value(value, spec["schema"]), where)
        for name, spec in op.parameters.items():
            if spec.get("required") and name not in params and name not in query:
                problems.append(f"{where}: required parameter {name!r} is missing")
        if op.body is None:
            if body is not None:
                problems.append(f"{where}: a body, but the operation takes none")
        elif body is None:
            if op.body_required:
                problems.append(f"{where}: the request body is required")
        else:
            problems += self.api.problems(op.body, body, f"{where} body")
        return problems

    def _injection(self, op: Operation) -> Injection | None:
        with self._lock:
            for injection in self._injections:
                if injection.operation in (None, op.op_id) and injection.times != 0:
                    if injection.times is not None:
                        injection.times -= 1
                    return injection
        return None

    def _refuse(self, status: int, message: str, error: str) -> Reply:
        self.errors.append(error)
        return Reply(status, {"message": message, "documentation_url": DOCS})

    # -- operations --------------------------------------------------------------------

    def _user(self, login: str | None) -> Reply:
        if login is None:
            return Reply(401, {"message": "Requires authentication", "documentation_url": DOCS})
        if self.user_forbidden:
            message = "Resource not accessible by integration"
            return Reply(403, {"message": message, "documentation_url": DOCS})
        user = self._user_json(login)
        self.errors += self.api.problems(
            {"$ref": "#/components/schemas/simple-user"}, user, "answer to GET /user"
        )
        return Reply(200, user)

    def _op_issues_list_for_repo(
        self, params: dict[str, str], query: dict[str, str], body: Any, login: str | None
    ) -> Reply:
        state = query.get("state", "open")
        wanted = {n.strip().casefold() for n in query.get("labels", "").split(",") if n.strip()}
        items = [
            i
            for i in self.issues.values()
            if (state == "all" or i.state == state)
            and wanted <= {n.casefold() for n in i.labels}
            and query.get("creator", i.author).casefold() == i.author.casefold()
        ]
        if "since" in query:
            since = dt.datetime.fromisoformat(query["since"].replace("Z", "+00:00"))
            items = [i for i in items if i.updated_at >= since]
        sort = query.get("sort", "created")
        key: Callable[[FakeIssue], Any] = {
            "created": lambda i: (i.created_at, i.number),
            "updated": lambda i: (i.updated_at, i.number),
            "comments": lambda i: (len(i.comments), i.number),
        }[sort]
        items.sort(key=key, reverse=query.get("direction", "desc") == "desc")
        per_page = min(int(query.get("per_page", 30)), 100)
        page = max(int(query.get("page", 1)), 1)
        last = max(1, -(-len(items) // per_page))
        shown = items[(page - 1) * per_page : page * per_page]
        payload = [self._issue_json(i, single=False) for i in shown]
        path = f"/repos/{params['owner']}/{params['repo']}/issues"
        return Reply(200, payload, self._link(path, query, page, last))

    def _op_issues_get(
        self, params: dict[str, str], query: dict[str, str], body: Any, login: str | None
    ) -> Reply:
        issue = self.issues.get(int(params["issue_number"]))
        if issue is None:
            return Reply(404, {"message": "Not Found", "documentation_url": DOCS})
        return Reply(200, self._issue_json(issue, single=True))

    def _op_issues_create(
        self, params: dict[str, str], query: dict[str, str], body: Any, login: str | None
    ) -> Reply:
        assert login is not None
        if not self.issues_enabled:
            return Reply(410, {"message": "Issues are disabled for this repo"})
        names = [n if isinstance(n, str) else n["name"] for n in body.get("labels", [])]
        issue = self._new_issue(
            str(body["title"]), body.get("body"), login, names if self.push_access else []
        )
        for name in issue.labels:
            self._label(name)
        url = f"{self.base_url}/repos/{self.repo}/issues/{issue.number}"
        return Reply(201, self._issue_json(issue, single=True), {"Location": url})

    def _op_issues_update(
        self, params: dict[str, str], query: dict[str, str], body: Any, login: str | None
    ) -> Reply:
        issue = self.issues.get(int(params["issue_number"]))
        if issue is None:
            return Reply(404, {"message": "Not Found", "documentation_url": DOCS})
        body = body or {}
        now = self._tick()
        if body.get("title") is not None:
            issue.title = str(body["title"])
        if "body" in body:
            issue.body = body["body"]
        if "labels" in body and self.push_access:
            issue.labels = [n if isinstance(n, str) else n["name"] for n in body["labels"]]
        state = body.get("state")
        if state is not None and state != issue.state:
            reason = body.get("state_reason")
            if state == "closed":
                if reason == "duplicate" and not any(
                    i.id == body.get("duplicate_issue_id") for i in self.issues.values()
                ):
                    return Reply(422, _validation_error("duplicate_issue_id: no such issue"))
                issue.state_reason = reason or "completed"
                issue.closed_at, issue.closed_by = now, login
            else:
                issue.state_reason, issue.closed_at, issue.closed_by = "reopened", None, None
            issue.state = state
        issue.updated_at = now
        return Reply(200, self._issue_json(issue, single=True))

    def _op_issues_create_comment(
        self, params: dict[str, str], query: dict[str, str], body: Any, login: str | None
    ) -> Reply:
        issue = self.issues.get(int(params["issue_number"]))
        if issue is None:
            return Reply(404, {"message": "Not Found", "documentation_url": DOCS})
        assert login is not None
        now = self._tick()
        issue.comments.append(body["body"])
        issue.updated_at = now
        comment = dict(self._comment_example)
        comment_id = self._new_id()
        comment.update(
            id=comment_id,
            node_id=f"IC_{comment_id}",
            url=f"{self.base_url}/repos/{self.repo}/issues/comments/{comment_id}",
            html_url=f"{self.base_url}/{self.repo}/issues/{issue.number}#issuecomment-{comment_id}",
            issue_url=f"{self.base_url}/repos/{self.repo}/issues/{issue.number}",
            body=body["body"],
            user=self._user_json(login),
            created_at=_iso(now),
            updated_at=_iso(now),
        )
        return Reply(201, comment, {"Location": comment["url"]})

    def _op_issues_list_labels_for_repo(
        self, params: dict[str, str], query: dict[str, str], body: Any, login: str | None
    ) -> Reply:
        per_page = min(int(query.get("per_page", 30)), 100)
        page = max(int(query.get("page", 1)), 1)
        labels = list(self.labels.values())
        last = max(1, -(-len(labels) // per_page))
        path = f"/repos/{params['owner']}/{params['repo']}/labels"
        shown = labels[(page - 1) * per_page : page * per_page]
        return Reply(200, shown, self._link(path, query, page, last))

    def _op_issues_create_label(
        self, params: dict[str, str], query: dict[str, str], body: Any, login: str | None
    ) -> Reply:
        if body["name"].casefold() in (n.casefold() for n in self.labels):
            return Reply(422, _validation_error("Label already_exists"))
        label = self._label(body["name"], body.get("color"), body.get("description"))
        return Reply(201, label, {"Location": label["url"]})

    def _op_search_issues_and_pull_requests(
        self, params: dict[str, str], query: dict[str, str], body: Any, login: str | None
    ) -> Reply:
        self.errors.append("GET /search/issues: issues are found by listing, never by search")
        return Reply(503, {"message": "search is not served by the fake"})

    # -- shaping answers from the document's examples ----------------------------------

    def _new_issue(self, title: str, body: str | None, author: str, labels: list[str]) -> FakeIssue:
        number = max(self.issues, default=0) + 1
        now = self._tick()
        issue = FakeIssue(
            number, self._new_id(), title, body, author, labels, created_at=now, updated_at=now
        )
        self.issues[number] = issue
        return issue

    def _issue_json(self, issue: FakeIssue, *, single: bool) -> dict[str, Any]:
        data = dict(self._issue_example)
        api = f"{self.base_url}/repos/{self.repo}"
        data.update(
            id=issue.id,
            node_id=f"I_{issue.id}",
            url=f"{api}/issues/{issue.number}",
            repository_url=api,
            labels_url=f"{api}/issues/{issue.number}/labels{{/name}}",
            comments_url=f"{api}/issues/{issue.number}/comments",
            events_url=f"{api}/issues/{issue.number}/events",
            html_url=f"{self.base_url}/{self.repo}/issues/{issue.number}",
            number=issue.number,
            state=issue.state,
            state_reason=issue.state_reason,
            title=issue.title,
            body=issue.body,
            user=self._user_json(issue.author),
            labels=[self._label(n) for n in issue.labels],
            assignee=None,
            assignees=[],
            milestone=None,
            locked=False,
            active_lock_reason=None,
            comments=len(issue.comments),
            closed_at=_iso(issue.closed_at) if issue.closed_at else None,
            created_at=_iso(issue.created_at),
            updated_at=_iso(issue.updated_at),
            author_association="OWNER" if issue.author == BOT else "CONTRIBUTOR",
            closed_by=self._user_json(issue.closed_by) if issue.closed_by else None,
        )
        if not issue.pull_request:
            data.pop("pull_request", None)
        if not single:
            data.pop("closed_by", None)  # GitHub's list answers leave it out
        return data

    def _user_json(self, login: str) -> dict[str, Any]:
        user = dict(self._issue_example["user"])
        user_id = 1 + sum(map(ord, login))
        for key, value in user.items():
            if isinstance(value, str):
                user[key] = value.replace("octocat", login)
        user.update(id=user_id, node_id=f"U_{user_id}", type="Bot" if "bot" in login else "User")
        return user

    def _label(
        self, name: str, color: str | None = None, description: str | None = None
    ) -> dict[str, Any]:
        for existing, label in self.labels.items():
            if existing.casefold() == name.casefold():
                return label
        label = dict(self._label_example)
        label_id = self._new_id()
        label.update(
            id=label_id,
            node_id=f"LA_{label_id}",
            url=f"{self.base_url}/repos/{self.repo}/labels/{name}",
            name=name,
            color=color or "ededed",
            description=description,
            default=False,
        )
        self.labels[name] = label
        return label

    def _link(self, path: str, query: dict[str, str], page: int, last: int) -> dict[str, str]:
        """GitHub's `Link` header, absent when everything fits on one page."""

        def link(number: int, rel: str) -> str:
            return f'<{self.base_url}{path}?{urlencode({**query, "page": number})}>; rel="{rel}"'

        links = []
        if page < last:
            links += [link(page + 1, "next"), link(last, "last")]
        if page > 1:
            links += [link(1, "first"), link(page - 1, "prev")]
        return {"Link": ", ".join(links)} if links else {}

    def _tick(self) -> dt.datetime:
        self.clock += dt.timedelta(seconds=1)
        return self.clock

    def _new_id(self) -> int:
        self._next_id += 1
        return self._next_id


# -- HTTP plumbing ---------------------------------------------------------------------


class _Server(RecordingServer):
    """The recording server, pointing back at its `FakeGitHub`."""

    fake: FakeGitHub


class _Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server: _Server

    def log_message(self, format: str, *args: Any) -> None:
        """Quiet."""

    def _serve(self) -> None:
        length = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(length) if length else b""
        headers = {name.lower(): value for name, value in self.headers.items()}
        status, reply_headers, data = self.server.fake.handle(self.command, self.path, headers, raw)
        self.send_response(status)
        for name, value in reply_headers.items():
            self.send_header(name, value)
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    do_GET = do_POST = do_PATCH = do_PUT = do_DELETE = _serve  # noqa: N815


def _injected(injection: Injection) -> Reply:
    message = injection.message or {
        429: "You have exceeded a secondary rate limit.",
        403: "API rate limit exceeded for user ID 1.",
    }.get(injection.status, "injected failure")
    return Reply(
        injection.status,
        {"message": message, "documentation_url": f"{DOCS}/overview/rate-limits-for-the-rest-api"},
        dict(injection.headers),
    )


def _validation_error(message: str) -> dict[str, Any]:
    return {
        "message": "Validation Failed",
        "errors": [{"code": "invalid", "message": message}],
        "documentation_url": DOCS,
    }


def _iso(when: dt.datetime) -> str:
    return when.astimezone(dt.UTC).strftime("%Y-%m-%dT%H:%M:%SZ")
