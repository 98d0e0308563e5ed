"""What a fetch is asked (`FetchRequest`) and what it ends in: one outcome value per request.

The fetcher (`fetcher.py`) never raises for anything one source does: each request ends
in exactly one outcome, so a dead site becomes a verdict, not a crashed run. The
outcomes, drawn the way httpx draws its exception tree (the right-hand side says which
HTTP results and httpx exceptions land where):

* FetchOutcome
  x Fetched ........ 2xx after following redirects; moved_to is set if a hop was 301/308
  x NotModified .... 304 to a conditional request: the stored snapshot is still current
  x Gone ........... 404, 410: the source was removed (never retried)
  x FetchFailed .... we could not tell; `reason` says what happened, `hint` what to do
    + retried ...... TimeoutException, NetworkError (ConnectError, ReadError, ...),
    |                RemoteProtocolError, ProxyError, 429, 5xx, 403 with Retry-After
    |                or X-RateLimit-Remaining: 0; waits over max_wait give up at once
    - not retried .. 401, other 403s and 4xx, body over max_bytes, redirect loop,
                     too many redirects, InvalidURL, UnsupportedProtocol, DecodingError,
                     an internal address refused (before any look-up for a literal
                     URL, at connect time for a name that resolves to one), a TLS
                     certificate that does not verify (the same one would not again)
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

import httpx

from claimcheck.models import Ending
from claimcheck.net.failures import status_problem

REDIRECT_STATUSES = frozenset({301, 302, 303, 307, 308})
PERMANENT_REDIRECT_STATUSES = frozenset({301, 308})
GONE_STATUSES = frozenset({404, 410})


@dataclass(frozen=True)
class FetchRequest:
    """One source to fetch, with the validators of its stored snapshot.

    `token` is left out of repr so that logging a request can never leak it; it is
    only ever sent to `token_host` (a netloc, "host" or "host:port").
    """

    url: str
    accept: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    token: str | None = field(default=None, repr=False)
    token_host: str | None = None
    api_version: str | None = None
    gone: Callable[[int, Mapping[str, str]], bool] | None = field(
        default=None, repr=False, compare=False
    )
    """How the source's forge says "no such file" besides 404 and 410 (its adapter's
    test on the status and headers, see `forges.adapters`); None: those two only."""

    @property
    def is_conditional(self) -> bool:
        """Whether a 304 answer is expected and means "unchanged"."""
        return self.etag is not None or self.last_modified is not None


@dataclass(frozen=True)
class Redirect:
    """One hop of a redirect chain, kept so a report can show where a source went."""

    status: int
    from_url: str
    to_url: str


@dataclass(frozen=True)
class Fetched:
    """A 2xx body. `moved_to` is the final URL when the chain held a permanent redirect."""

    url: str
    final_url: str
    status: int
    body: bytes = field(repr=False)
    content_type: str | None = None
    etag: str | None = None
    last_modified: str | None = None
    redirects: tuple[Redirect, ...] = ()
    moved_to: str | None = None
    link: str | None = None  # the Link header: where paginated API answers continue
    ending: Ending = Ending.TOLD
    """How the body's end is known (`models.Ending`): an HTTP/1 body ended by a closed
    connection may be a part of the page, and the plausibility gate weighs it so."""


@dataclass(frozen=True)
class NotModified:
    """A 304 to a conditional request: the stored snapshot is still what the source says."""

    url: str
    final_url: str
    redirects: tuple[Redirect, ...] = ()
    moved_to: str | None = None


@dataclass(frozen=True)
class Gone:
    """A 404 or 410: the source itself says it is no longer there."""

    url: str
    final_url: str
    status: int


@dataclass(frozen=True)
class FetchFailed:
    """We could not learn what the source says now; `attempts` counts tries of the last hop."""

    url: str
    reason: str
    hint: str
    attempts: int


FetchOutcome: TypeAlias = Fetched | NotModified | Gone | FetchFailed


@dataclass(frozen=True)
class Reply:
    """One response with its body read (2xx only; others drained) and its connection
    already released."""

    url: httpx.URL
    status: int
    headers: httpx.Headers
    body: bytes
    attempts: int = 1
    ending: Ending = Ending.TOLD  # see `Fetched.ending`


def is_github(request: FetchRequest, headers: Mapping[str, str]) -> bool:
    """Whether the answer is GitHub's API's: a GitHub hint (its token, its limits) fits."""
    return request.api_version is not None or "x-github-request-id" in headers


def conclude(request: FetchRequest, reply: Reply, redirects: tuple[Redirect, ...]) -> FetchOutcome:
    """Turn the last hop's reply into the request's outcome."""
    final_url = str(reply.url)
    permanent = any(r.status in PERMANENT_REDIRECT_STATUSES for r in redirects)
    moved_to = final_url if permanent else None
    if 200 <= reply.status < 300:
        return Fetched(
            url=request.url,
            final_url=final_url,
            status=reply.status,
            body=reply.body,
            content_type=reply.headers.get("content-type"),
            etag=reply.headers.get("etag"),
            last_modified=reply.headers.get("last-modified"),
            redirects=redirects,
            moved_to=moved_to,
            link=reply.headers.get("link"),
            ending=reply.ending,
        )
    if reply.status == 304 and request.is_conditional:
        return NotModified(request.url, final_url, redirects, moved_to)
    said_gone = request.gone is not None and request.gone(reply.status, reply.headers)
    if reply.status in GONE_STATUSES or said_gone:
        detour = temporary_detour(request.url, redirects)
        if detour is None:
            return Gone(request.url, final_url, reply.status)
        # A temporary redirect to another host (a login or consent page, a CDN) that
        # answers 404 says nothing about the source itself: never take it as gone.
        return FetchFailed(
            request.url,
            f"HTTP {reply.status} at {final_url}, reached by a temporary redirect to {detour}",
            "the source did not say it is gone; run again later, or check the redirect",
            reply.attempts,
        )
    reason, hint = status_problem(
        reply.status,
        github=is_github(request, reply.headers),
        forge=request.token_host is not None,  # a forge's API, which its token opens
    )
    return FetchFailed(request.url, reason, hint, reply.attempts)


def temporary_detour(url: str, redirects: tuple[Redirect, ...]) -> str | None:
    """The host a temporary redirect led to away from the source's own host, if any."""
    home = httpx.URL(url).host
    for hop in redirects:
        there = httpx.URL(hop.to_url).host
        if hop.status not in PERMANENT_REDIRECT_STATUSES and there != home:
            return there
    return None
