"""The GitHub REST client for issues: list, read, create, update, comment, and who we are.

GitHub's rules for automated writers (https://docs.github.com/rest/using-the-rest-api/
best-practices-for-using-the-rest-api): writes go one at a time with at least a second
between them, since content creation has secondary limits per minute and hour; a 403
or 429 is waited out by `Retry-After`, else by `X-RateLimit-Reset` when the quota is
spent, else by a backoff of at least a minute. A create is never retried here: a
create that failed may still have gone through, so the caller lists again first.
The token goes to the API host only, and never into a message.
"""

from __future__ import annotations

import datetime as dt
import random
import time
from collections.abc import Callable, Mapping
from enum import Enum
from types import TracebackType
from typing import Any
from urllib.parse import urlsplit

import httpx

from claimcheck.errors import ClaimcheckError
from claimcheck.forges.github import GITHUB_API_VERSION
from claimcheck.github.sync import Issue
from claimcheck.net.http_policy import (
    ForeignPageError,
    RetryPolicy,
    next_page_url,
    retry_delay,
)
from claimcheck.untrusted import clean_text, shorten

API_VERSION = GITHUB_API_VERSION
ACCEPT = "application/vnd.github+json"
PER_PAGE = 100
MAX_PAGES = 200


class GitHubRefusedError(ClaimcheckError):
    """GitHub answered a definite no (bad token, no access, no such repo): exit 2."""

    hint = "check GITHUB_TOKEN (it needs `issues: write`) and --repo"

    def __init__(self, message: str, hint: str = "", *, status: int | None = None) -> None:
        super().__init__(message, hint)
        self.status = status


class GitHubUnavailableError(Exception):
    """GitHub could not be asked now (network, 5xx, rate limits): try again later.

    `final` means waiting more in this run is pointless (the limit resets too late).
    """

    def __init__(self, message: str, hint: str, *, final: bool = False) -> None:
        super().__init__(message)
        self.hint = hint
        self.final = final


class Retry(Enum):
    """What may be sent again after a failure."""

    ALL = "all"  # reads and PATCH: sending twice does no harm
    REJECTED = "rejected"  # comments: only when GitHub said it did nothing (rate limit)
    NEVER = "never"  # creates: the caller lists again before any second try


class GitHubIssues:
    """Issues of one repository over one httpx client; `sleep` and `clock` are injectable.

    `clock` is epoch seconds, as GitHub's `X-RateLimit-Reset` is.
    """

    def __init__(
        self,
        api_url: str,
        repo: str,
        token: str | None,
        *,
        api_version: str = API_VERSION,
        user_agent: str = "claimcheck",
        transport: httpx.BaseTransport | None = None,
        sleep: Callable[[float], None] = time.sleep,
        clock: Callable[[], float] = time.time,
        write_spacing: float = 1.0,
        retries: int = 3,
        max_wait: float = 900.0,
        timeout: float = 30.0,
    ) -> None:
        self.repo = repo
        self._api = httpx.URL(api_url.rstrip("/") + "/")
        headers = {
            "Accept": ACCEPT,
            "X-GitHub-Api-Version": api_version,
            "User-Agent": user_agent,
        }
        if token:
            headers["Authorization"] = f"Bearer {token}"
        self._client = httpx.Client(
            base_url=self._api,
            headers=headers,
            transport=transport,
            timeout=timeout,
            follow_redirects=False,
        )
        self._sleep = sleep
        self._clock = clock
        self._write_spacing = write_spacing
        self._retries = retries
        self._max_wait = max_wait
        self._policy = RetryPolicy(
            retries=retries, backoff=2.0, max_backoff=30.0, max_wait=max_wait, reset_margin=1.0
        )
        self._jitter = random.Random()  # noqa: S311 - backoff jitter, not cryptography
        self._last_write: float | None = None
        self.has_token = bool(token)

    def __enter__(self) -> GitHubIssues:
        return self

    def __exit__(
        self,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        traceback: TracebackType | None,
    ) -> None:
        self.close()

    def close(self) -> None:
        """Close the connection pool."""
        self._client.close()

    def authenticated_login(self) -> str:
        """The login of the token's account: only its issues' markers are trusted."""
        data = self._json(self._send("GET", "user"))
        login = data.get("login") if isinstance(data, Mapping) else None
        if not isinstance(login, str) or not login:
            raise GitHubRefusedError("GET /user answered without a login")
        return login

    def list_issues(self, label: str) -> list[Issue]:
        """Every issue (open and closed) with the label, following `Link: rel="next"`.

        Listing, never the search API: search lags behind writes by minutes, and a
        lagging search is how other tools file the same issue twice.
        """
        url: str | None = self._path("issues")
        params: dict[str, str | int] | None = {
            "labels": label,
            "state": "all",
            "per_page": PER_PAGE,
            "sort": "created",
            "direction": "asc",
        }
        issues: list[Issue] = []
        seen: set[str] = set()
        while url is not None:
            if url in seen or len(seen) >= MAX_PAGES:
                raise GitHubUnavailableError(
                    "issue listing did not end", "run again later", final=True
                )
            seen.add(url)
            response = self._send("GET", url, params=params)
            items = self._json(response)
            if not isinstance(items, list):
                raise GitHubUnavailableError("issue listing is not a list", "run again later")
            issues += [parse_issue(item) for item in items if isinstance(item, Mapping)]
            url, params = self._next_page(response), None
        return issues

    def get_issue(self, number: int) -> Issue:
        """One issue, with `closed_by`, which list answers leave out."""
        return parse_issue(self._json(self._send("GET", self._path(f"issues/{number}"))))

    def create_issue(self, title: str, body: str, labels: list[str]) -> Issue:
        """Open an issue; never retried (see the module docstring)."""
        payload = {"title": title, "body": body, "labels": labels}
        response = self._send("POST", self._path("issues"), json=payload, retry=Retry.NEVER)
        return parse_issue(self._json(response))

    def update_issue(self, number: int, **fields: object) -> Issue:
        """PATCH an issue: title, body, state, state_reason, duplicate_issue_id."""
        response = self._send("PATCH", self._path(f"issues/{number}"), json=dict(fields))
        return parse_issue(self._json(response))

    def comment(self, number: int, body: str) -> None:
        """Add a comment; resent only when GitHub rejected it for a rate limit."""
        self._send(
            "POST",
            self._path(f"issues/{number}/comments"),
            json={"body": body},
            retry=Retry.REJECTED,
        )

    def ensure_label(self, name: str, color: str, description: str) -> bool:
        """Create the label unless the repository has it; True when it was created."""
        url: str | None = self._path("labels")
        params: dict[str, str | int] | None = {"per_page": PER_PAGE}
        for _ in range(MAX_PAGES):
            if url is None:
                break
            response = self._send("GET", url, params=params)
            items = self._json(response)
            names = (
                [i.get("name", "") for i in items if isinstance(i, Mapping)]
                if isinstance(items, list)
                else []
            )
            if any(str(n).casefold() == name.casefold() for n in names):
                return False
            url, params = self._next_page(response), None
        payload = {"name": name, "color": color, "description": description[:100]}
        self._send("POST", self._path("labels"), json=payload, retry=Retry.NEVER)
        return True

    # -- sending -----------------------------------------------------------------------

    def _path(self, rest: str) -> str:
        return f"repos/{self.repo}/{rest}"

    def _send(
        self,
        method: str,
        url: str,
        *,
        params: Mapping[str, str | int] | None = None,
        json: object = None,
        retry: Retry = Retry.ALL,
    ) -> httpx.Response:
        """Send one request, waiting out rate limits and retrying what `retry` allows."""
        write = method != "GET"
        attempt = 0
        while True:
            attempt += 1
            if write:
                self._space_write()
            try:
                response = self._client.request(method, url, params=params, json=json)
            except httpx.TransportError as exc:
                if retry is Retry.ALL and self._policy.may_retry(attempt):
                    self._sleep(self._policy.backoff_delay(attempt, self._jitter))
                    continue
                raise GitHubUnavailableError(
                    f"{method} {_where(url)}: {_transport_problem(exc)}",
                    "check the network and GITHUB_API_URL, then run again",
                ) from None
            finally:
                if write:
                    self._last_write = self._clock()
            if response.is_success:
                return response
            wait = retry_delay(
                self._policy,
                response.status_code,
                response.headers,
                attempt,
                now=self._clock(),
                rng=self._jitter,
                message=_message(response) if response.status_code == 403 else "",
            )
            if wait is not None and response.status_code in (403, 429):
                self._wait_out(method, url, response, wait, attempt)
                if retry is Retry.NEVER:
                    raise GitHubUnavailableError(
                        f"{method} {_where(url)}: rate limited", "run again later"
                    )
                continue
            if (
                wait is not None
                and wait <= self._max_wait
                and retry is Retry.ALL
                and self._policy.may_retry(attempt)
            ):
                self._sleep(wait)
                continue
            raise _problem(method, url, response)

    def _space_write(self) -> None:
        """At least `write_spacing` seconds between the end of a write and the next one."""
        if self._last_write is not None:
            wait = self._last_write + self._write_spacing - self._clock()
            if wait > 0:
                self._sleep(wait)

    def _wait_out(
        self, method: str, url: str, response: httpx.Response, wait: float, attempt: int
    ) -> None:
        until = dt.datetime.fromtimestamp(self._clock() + wait, dt.UTC)
        when = until.strftime("%Y-%m-%d %H:%M:%S UTC")
        if wait > self._max_wait or attempt > self._retries:
            raise GitHubUnavailableError(
                f"{method} {_where(url)}: HTTP {response.status_code}, rate limited until {when}",
                f"GitHub's rate limit is used up; run again after {when}",
                final=True,
            )
        self._sleep(wait)

    def _next_page(self, response: httpx.Response) -> str | None:
        """The `rel="next"` link, only if it stays on the API host (the token goes there)."""
        try:
            return next_page_url(response.headers.get("link"), str(response.url))
        except ForeignPageError:
            raise GitHubUnavailableError(
                "GitHub's next-page link points to another host", "check GITHUB_API_URL"
            ) from None

    def _json(self, response: httpx.Response) -> Any:
        try:
            return response.json()
        except ValueError:
            raise GitHubUnavailableError(
                f"{response.request.method} {_where(str(response.url))}: answer is not JSON",
                "check GITHUB_API_URL",
            ) from None


def parse_issue(data: Any) -> Issue:
    """The plan's view of one issue object of GitHub's REST API."""
    if not isinstance(data, Mapping):
        raise GitHubUnavailableError("an issue answer is not an object", "run again later")
    labels = tuple(
        str(label.get("name", "")) if isinstance(label, Mapping) else str(label)
        for label in data.get("labels") or []
    )
    try:
        number, issue_id = int(data["number"]), int(data["id"])
    except (KeyError, TypeError, ValueError):
        raise GitHubUnavailableError(
            "an issue answer has no number or id", "run again later"
        ) from None
    return Issue(
        number=number,
        id=issue_id,
        title=str(data.get("title") or ""),
        body=str(data.get("body") or ""),
        state=str(data.get("state") or ""),
        state_reason=data.get("state_reason"),
        labels=labels,
        author=_login(data.get("user")),
        created_at=_time(data.get("created_at")) or dt.datetime.min.replace(tzinfo=dt.UTC),
        closed_at=_time(data.get("closed_at")),
        closed_by=_login(data.get("closed_by")),
        is_pull_request="pull_request" in data,
    )


def _problem(method: str, url: str, response: httpx.Response) -> Exception:
    status, message = response.status_code, _message(response)
    what = f"{method} {_where(url)}: HTTP {status}" + (f" ({message})" if message else "")
    if status >= 500:
        return GitHubUnavailableError(what, "GitHub is failing; run again later")
    hints = {
        401: "GITHUB_TOKEN is missing, expired or wrong",
        403: "the token may not write issues here: give it `issues: write`",
        404: "no such repository, or the token cannot see it: check --repo",
        410: "issues are disabled in this repository",
        422: "GitHub refused the content (or the endpoint was spammed); run again later",
    }
    return GitHubRefusedError(what, hints.get(status, GitHubRefusedError.hint), status=status)


def _message(response: httpx.Response) -> str:
    try:
        data = response.json()
    except ValueError:
        return ""
    message = data.get("message") if isinstance(data, Mapping) else None
    return shorten(clean_text(message), 200) if isinstance(message, str) else ""


def _where(url: str) -> str:
    """The path of a request URL (no query, no host), enough to say what failed."""
    return "/" + urlsplit(url).path.lstrip("/")


def _transport_problem(exc: httpx.TransportError) -> str:
    if isinstance(exc, httpx.TimeoutException):
        return "timed out"
    if isinstance(exc, httpx.ConnectError):
        return "could not connect"
    return "connection broke off"


def _login(user: object) -> str | None:
    login = user.get("login") if isinstance(user, Mapping) else None
    return login if isinstance(login, str) else None


def _time(value: object) -> dt.datetime | None:
    if not isinstance(value, str):
        return None
    try:
        return dt.datetime.fromisoformat(value.replace("Z", "+00:00"))
    except ValueError:
        return None
