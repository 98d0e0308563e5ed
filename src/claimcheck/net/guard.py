"""The connection guard: the addresses a connection may go to, decided where it is opened.

Checking a URL's host name before the request is not enough: the name may resolve to
127.0.0.1, or resolve to a public address when checked and to 169.254.169.254 a moment
later, when the client looks it up again to connect (DNS rebinding). So the check sits
where the socket is opened: `checked_addresses` resolves the host itself, asks
`addresses.refuse_address` about every address the name has (one internal address
refuses the name: an attacker controls which one a client picks), and answers the
addresses it checked. The transport (`transport.py`) connects to those addresses only,
never to the name; TLS still verifies the certificate against the name.

`withheld_url` resolves the same way to answer another question: whether a source's
URL may be shown to a third party (the Wayback Machine), which no allow-list opens.
"""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable, Sequence
from urllib.parse import urlsplit

from claimcheck.config.allowances import normalize_host
from claimcheck.net.addresses import (
    AddressPolicy,
    IPAddress,
    classify_name,
    internal_host,
    parse_ip_literal,
    refuse_address,
)

Resolver = Callable[[str, int], Awaitable[Sequence[str]]]
"""Host and port in, the IP addresses to try out (injected by tests to play DNS tricks)."""


class UnconnectedError(Exception):
    """No connection was opened: the host has no address to go to, or the policy refused
    one (`AddressRefusedError`).

    Not an `OSError`, so the client passes it on as it is rather than as a network
    failure of its own; the transport raises httpx's `ConnectError` from it.
    """


class AddressRefusedError(UnconnectedError):
    """A connection the policy refused; `reason` is the sentence the fetch outcome shows.

    The fetcher finds it among the causes of httpx's error to report it and not retry it.
    """

    def __init__(self, reason: str) -> None:
        super().__init__(reason)
        self.reason = reason


async def resolve_host(host: str, port: int) -> Sequence[str]:
    """The system resolver's addresses for a host, in its order of preference."""
    loop = asyncio.get_running_loop()
    infos = await loop.getaddrinfo(host, port, type=socket.SOCK_STREAM)
    found: list[str] = []
    for _family, _type, _proto, _name, sockaddr in infos:
        address = str(sockaddr[0])
        if address not in found:
            found.append(address)
    return found


async def checked_addresses(
    host: str, port: int, policy: AddressPolicy, resolver: Resolver = resolve_host
) -> list[str]:
    """The addresses a connection to `host` may go to, every one checked by the policy.

    An IP literal is its own one address; a name is resolved, and one internal address
    the policy does not allow refuses the whole name (`AddressRefusedError`), since an
    attacker controls which of them a client picks. The one decision every transport's
    connect takes: the caller connects to these addresses, never to the name again.
    """
    literal = parse_ip_literal(host)
    if literal is not None:
        addresses = [str(literal)]
    else:
        try:
            addresses = list(await resolver(normalize_host(host), port))
        except OSError as exc:
            raise UnconnectedError(f"cannot resolve {host}") from exc
        if not addresses:
            raise UnconnectedError(f"{host} has no addresses")
    for address in addresses:
        reason = refuse_address(host, parse_ip(address), policy, port)
        if reason is not None:
            raise AddressRefusedError(reason)
    return addresses


async def withheld_url(url: str, resolver: Resolver = resolve_host) -> str | None:
    """Why `url` may not be shown to a third party (asked about at another host than its
    own, as the Wayback Machine is), or None when it may: the one decision every such
    request takes.

    A URL whose host is internal (`addresses.internal_host`: an internal address or
    name, or a name that resolves to one, allowed to be fetched or not) stays on this
    machine; so does one whose host cannot be resolved now, or that is no http(s) URL
    with a host, since then nothing says it is public.
    """
    try:
        parts = urlsplit(url)
        port = parts.port or (443 if parts.scheme == "https" else 80)
    except ValueError:
        return "the URL cannot be read"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "the URL names no http(s) host"
    host = parts.hostname
    resolved: list[IPAddress] | None = None  # an address, or an internal name: no DNS
    if parse_ip_literal(host) is None and classify_name(host) is None:
        try:
            resolved = [parse_ip(a) for a in await resolver(normalize_host(host), port)]
        except (OSError, UnicodeError, ValueError, AddressRefusedError):
            resolved = None  # not resolved: `internal_host` keeps it in
    return internal_host(host, resolved or None)  # no address at all: not resolved


def parse_ip(address: str) -> IPAddress:
    """An address as the resolver returns it (IPv6 possibly with a zone id) as an IP value."""
    ip = parse_ip_literal(address)
    if ip is None:  # pragma: no cover - getaddrinfo returns numeric addresses only
        raise AddressRefusedError(f"refused: the resolver returned {address!r}, not an address")
    return ip
