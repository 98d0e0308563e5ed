"""Public-looking host names for tests: DNS that answers a public address, so that a
source's URL counts as public (one the Wayback Machine may be asked about), while the
suite's network guard still keeps every connection on this machine.

`resolving_publicly` is a resolver to hand to `History` or `Fetcher`; `resolve_names`
makes the system resolver (`socket.getaddrinfo`, which the whole CLI reaches through
the connection guard) answer chosen addresses for chosen names (`resolve_publicly`: the
public one), and leaves every other name to the resolver the suite already installed.
"""

from __future__ import annotations

import socket
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import pytest

from claimcheck.net.guard import Resolver

PUBLIC_ADDRESS = "93.184.215.14"
"""A public address (global unicast, not a documentation range, which counts as
reserved): what a public name resolves to here. Nothing ever connects to it."""


def resolving_publicly(address: str = PUBLIC_ADDRESS) -> Resolver:
    """A resolver that answers `address` for any name."""

    async def resolve(host: str, port: int) -> Sequence[str]:
        return [address]

    return resolve


def resolve_names(
    monkeypatch: pytest.MonkeyPatch, names: Mapping[str, str | Callable[[], str]]
) -> None:
    """Make each name of `names` resolve to its address for the rest of the test, through
    the system resolver (an address given as a function is asked at each look-up, for a
    test that moves a name); every other name is left to the resolver already installed."""
    wanted = {name.lower(): address for name, address in names.items()}
    previous = socket.getaddrinfo

    def getaddrinfo(host: Any, port: Any, *args: Any, **kwargs: Any) -> Any:
        name = host.decode() if isinstance(host, bytes) else host
        found = wanted.get(name.lower().rstrip(".")) if isinstance(name, str) else None
        address = found() if callable(found) else found
        if address is not None:
            return [(socket.AF_INET, socket.SOCK_STREAM, 6, "", (address, int(port or 0)))]
        return previous(host, port, *args, **kwargs)

    monkeypatch.setattr(socket, "getaddrinfo", getaddrinfo)


def resolve_publicly(monkeypatch: pytest.MonkeyPatch, *names: str) -> None:
    """Make `names` resolve to `PUBLIC_ADDRESS` for the rest of the test."""
    resolve_names(monkeypatch, dict.fromkeys(names, PUBLIC_ADDRESS))
