"""httpx's transport over another connection pool: the pool is a private attribute.

httpx's `AsyncHTTPTransport` builds its httpcore pool itself and takes no network
backend, so the connection guard (`net/guard.py`) swaps the pool after
construction for one over its own backend. The attribute it swaps, `_pool`, is private
to httpx; this is written for httpx 0.27 up to 1.0 (`pyproject.toml` allows that
range). With another httpx installed `replace_pool` raises `UnsupportedVersionError`
rather than fall back: the transport without the swap would connect unguarded.
"""

from __future__ import annotations

from collections.abc import Callable

import httpcore
import httpx

from claimcheck._compat.versions import Release, require

SUPPORTED_RANGE: tuple[Release, Release] = ((0, 27), (1,))
"""The httpx releases whose transport keeps its pool in `_pool`."""


def replace_pool(
    transport: httpx.AsyncHTTPTransport,
    replacement: Callable[[httpcore.AsyncConnectionPool], httpcore.AsyncConnectionPool],
) -> None:
    """Put `replacement(pool)` in place of the pool `transport` built (built with no proxy)."""
    require("httpx", *SUPPORTED_RANGE, "the connection guard")
    built = transport._pool
    assert isinstance(built, httpcore.AsyncConnectionPool)  # no proxy: see net/guard.py
    transport._pool = replacement(built)
