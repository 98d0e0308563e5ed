"""A reply of the HTTP client, and the outcome of a request it ends in (`conclude`).

Apart from the outcome values (`fetch.py`), which import no HTTP client: this half is
the fetcher's (`fetcher.py`), and only what fetches imports it.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass

import httpx

from claimcheck.models import Ending
from claimcheck.net.failures import status_problem
from claimcheck.net.fetch import (
    GONE_STATUSES,
    PERMANENT_REDIRECT_STATUSES,
    Fetched,
    FetchFailed,
    FetchOutcome,
    FetchRequest,
    Gone,
    NotModified,
    Redirect,
)


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
