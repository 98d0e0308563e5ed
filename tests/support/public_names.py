"""Public-looking host names for tests: DNS that answers a public address, so that a
source's URL counts as public (one the Wayback Machine may be asked about), while the
suite's network guard still keeps every connection on this machine.

`resolving_publicly` is a resolver to hand to `History` or `Fetcher`; `resolve_publicly`
makes the system resolver (`socket.getaddrinfo`, which the whole CLI reaches through
the connection guard) answer the same for some names, and leaves every other name to
the resolver the suite already installed.
"""

from __future__ import annotations

import socket
from collections.abc import Sequence
from typing import Any

import pytest

from claimcheck.sources.guard import Resolver

PUBLIC_ADDRESS = "93.184.215.14"
"""A public address (global unicast, not a documentation range, which counts as
reserved): what a public name resolves to here. Nothing ever connects to it."""


def resolving_publicly(address: str = PUBLIC_ADDRESS) -> Resolver:
    """A resolver that answers `address` for any name."""

    async def resolve(host: str, port: int) -> Sequence[str]:
        return [address]

    return resolve


def resolve_publicly(
    monkeypatch: pytest.MonkeyPatch, *names: str, address: str = PUBLIC_ADDRESS
) -> None:
    """Make `names` resolve to `address` for the rest of the test (system resolver)."""
    wanted = {name.lower() for name in names}
    previous = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        if isinstance(name, str) and name.lower().rstrip(".") in wanted:
            number = int(port) if port else 0
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, number))]
        return previous(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)
