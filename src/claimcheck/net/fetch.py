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

These are plain values, free of the HTTP client, so that what only names them (the
forges building requests and reading answers) imports them at its top and an offline
run still loads no HTTP client; turning an HTTP reply into an outcome is `reply.py`'s.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import TypeAlias

from claimcheck.models import Ending

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
    test on the status and headers, see `forges.registry`); None: those two only."""

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
