"""What went wrong with a fetch, in our own words: a reason and a hint for an HTTP status
or a transport failure, never the server's or the exception's text, and whether trying
again may help."""

from __future__ import annotations

import datetime as dt
import errno
import socket
import ssl
from collections.abc import Iterator
from typing import TypeVar

import httpx

from claimcheck.net.guard import AddressRefusedError

RAISE_QUOTA_HINT = "set GITHUB_TOKEN (5,000 GitHub API requests an hour instead of 60)"

REFUSED_HINT = (
    "if this internal source is meant to be fetched, add its network or host name to"
    " [fetch] allow_addresses in claimcheck.toml (or CLAIMCHECK_ALLOW_ADDRESSES);"
    " otherwise fix the claim's source"
)
THROTTLED_HINT = "the server is throttling us; lower the concurrency or run again later"


def status_problem(
    status: int, *, github: bool, forge: bool = False, throttled: bool = False
) -> tuple[str, str]:
    """Reason and hint for an HTTP status that is not an answer we can use.

    A hint names what the user can change for this source: GITHUB_TOKEN only for
    GitHub's API; a 403 that asked us to wait is a rate limit, not a refusal.
    """
    if throttled and status in (403, 429):
        hint = (
            "GitHub's secondary rate limit (too many requests at once): lower [fetch] "
            "concurrency or per_host, or run again later"
            if github
            else THROTTLED_HINT
        )
        return f"HTTP {status}, rate limited", hint
    if status in (401, 403) and github:
        hint = "access denied; set GITHUB_TOKEN, or check that it may read this repository"
    elif status in (401, 403) and forge:
        hint = (
            "access denied; set the forge's token (GITLAB_TOKEN, FORGEJO_TOKEN, HF_TOKEN), "
            "or check that it may read this"
        )
    elif status in (401, 403):
        hint = (
            "access denied: the site refuses claimcheck's request (a page behind a login "
            "cannot be checked); open the URL in a browser"
        )
    elif status == 429:
        hint = THROTTLED_HINT
    elif 500 <= status < 600:
        hint = "the server is failing; run again later"
    elif status == 304:
        hint = "the server answered 304 to a request that was not conditional; run again"
    else:
        hint = "the server rejected the request; check the URL in a browser"
    return f"HTTP {status}", hint


def describe_failure(exc: BaseException) -> tuple[str, str]:
    """Reason and hint for a transport failure, from our own words, never exc's text."""
    causes = list(_causes(exc))
    if any(_is_refused(cause) for cause in causes):
        return "connection refused", "nothing is listening there; check the URL or try later"
    if any(isinstance(cause, socket.gaierror) for cause in causes):
        return "host not found", "check the host name in the URL"
    refused_certificate = certificate_problem(exc)
    if refused_certificate is not None:
        return refused_certificate, (
            "a page is read only from a server that proves it is the URL's host; for a "
            "site with a private CA, point SSL_CERT_FILE at the CA's certificate"
        )
    if isinstance(exc, (TimeoutError, httpx.TimeoutException)):
        return "timed out", "the server is slow or unreachable; run again later"
    if isinstance(exc, httpx.ConnectError):
        return "could not connect", "check the URL and your network, then run again"
    if isinstance(exc, httpx.ProxyError):
        return "proxy error", "check the HTTP_PROXY / HTTPS_PROXY settings"
    if isinstance(exc, httpx.UnsupportedProtocol):
        return "unsupported URL scheme", "fix the source URL"
    if isinstance(exc, httpx.DecodingError):
        return "could not decode the response", "the server sent a broken body; run again later"
    if isinstance(exc, (httpx.NetworkError, httpx.ProtocolError)):
        return "connection broke off", "the server dropped the connection; run again later"
    return type(exc).__name__, "run again later"


_CERTIFICATE_PROBLEMS = {
    10: "its TLS certificate has expired",
    18: "its TLS certificate is self-signed",
    19: "its TLS certificate is signed by an untrusted authority",
    20: "its TLS certificate is signed by an untrusted authority",
    21: "its TLS certificate is signed by an untrusted authority",
    62: "its TLS certificate is for another host name",
    64: "its TLS certificate is for another address",
}
"""OpenSSL's verification codes (X509_V_ERR_*) in our own words: never the error's
text, which quotes what the server sent."""
_CERTIFICATE_UNVERIFIED = "its TLS certificate could not be verified"


def certificate_problem(exc: BaseException) -> str | None:
    """Why the server's TLS certificate did not verify, if that is what failed."""
    failed = _cause(exc, ssl.SSLCertVerificationError)
    if failed is None:
        return None
    return _CERTIFICATE_PROBLEMS.get(failed.verify_code, _CERTIFICATE_UNVERIFIED)


def guard_refusal(exc: BaseException) -> str | None:
    """The guard's reason when it refused the connection (the cause of httpx's error)."""
    refused = _cause(exc, AddressRefusedError)
    return refused.reason if refused is not None else None


_Cause = TypeVar("_Cause", bound=BaseException)


def _cause(exc: BaseException, kind: type[_Cause]) -> _Cause | None:
    """The first of the exception and its causes (`_causes`) that is a `kind`."""
    return next((cause for cause in _causes(exc) if isinstance(cause, kind)), None)


def is_retryable(exc: BaseException) -> bool:
    if certificate_problem(exc) is not None:
        return False  # the server would show the same certificate again
    return isinstance(
        exc,
        TimeoutError
        | httpx.TimeoutException
        | httpx.NetworkError
        | httpx.RemoteProtocolError
        | httpx.ProxyError,
    )


def _causes(exc: BaseException) -> Iterator[BaseException]:
    """The exception, its causes and any exception-group members, to find the OS error."""
    stack = [exc]
    seen: set[int] = set()
    while stack:
        current = stack.pop()
        if id(current) in seen:
            continue
        seen.add(id(current))
        yield current
        if isinstance(current, BaseExceptionGroup):
            stack.extend(current.exceptions)
        for linked in (current.__cause__, current.__context__):
            if linked is not None:
                stack.append(linked)


def _is_refused(exc: BaseException) -> bool:
    return isinstance(exc, ConnectionRefusedError) or (
        isinstance(exc, OSError) and exc.errno == errno.ECONNREFUSED
    )


def after(reason: str, attempts: int) -> str:
    return f"{reason} after {attempts} attempts" if attempts > 1 else reason


def utc(epoch: float) -> str:
    return dt.datetime.fromtimestamp(epoch, dt.UTC).strftime("%Y-%m-%d %H:%M:%S UTC")
