"""Which hosts and IP addresses a fetch may reach: internal ones only when the operator allows.

Claim files come from pull requests, so a source URL is untrusted input: pointed at
`http://169.254.169.254/` or a loopback admin page, an unguarded fetcher would copy a
cloud credential or an internal page into the report (and so into the CI job summary).
This module decides, from plain values, whether a host or an address is internal:
loopback, private (RFC 1918, fc00::/7), link-local, carrier-grade NAT, multicast,
unspecified, reserved, cloud-metadata — and IPv4 hidden inside IPv6 (`::ffff:a.b.c.d`,
6to4, NAT64) or spelt the way `inet_aton` and browsers still read it (`2130706433`,
`0x7f000001`, `0177.0.0.1`, `127.1`), since the resolver turns those into the same
address. An `AddressPolicy` (the operator's allow-list of networks and host names)
opens what the operator vouches for. `internal_host` says the same of a source's host for
another purpose, whatever is allowed: whether its URL may be named to a third party.

It is pure: the fetcher's connection guard (`guard.py`) resolves names and asks
`refuse_address` about every address it is about to connect to, and the fetcher asks
`refuse_host` about each URL before any look-up, so a refusal never needs DNS to be
explained.
"""

from __future__ import annotations

import functools
import ipaddress
from collections.abc import Iterable, Sequence
from dataclasses import dataclass

from claimcheck.config.allowances import (
    IPNetwork,
    Origin,
    normalize_host,
    parse_allowance,
    parse_ipv4_loose,
)

IPAddress = ipaddress.IPv4Address | ipaddress.IPv6Address

ALLOW_HINT = "allow it with [fetch] allow_addresses"
"""The end of every refusal: the one place an operator opens an internal address."""

LOOPBACK_NAMES = frozenset({"localhost", "localhost.localdomain", "ip6-localhost", "ip6-loopback"})
"""Names every resolver maps to loopback without asking DNS (RFC 6761 adds `*.localhost`)."""

METADATA_NAMES = frozenset(
    {
        "metadata",
        "metadata.google.internal",
        "metadata.goog",
        "instance-data",
        "instance-data.ec2.internal",
    }
)
"""Cloud instance-metadata names (Google Cloud, AWS): they serve credentials to anyone asking."""

METADATA_ADDRESSES = frozenset(
    ipaddress.ip_address(a)
    for a in ("169.254.169.254", "169.254.170.2", "fd00:ec2::254", "100.100.100.200")
)
"""Metadata endpoints of AWS (also its ECS and IPv6 forms), GCP, Azure, and Alibaba Cloud."""

_PRIVATE = tuple(
    ipaddress.ip_network(n) for n in ("10.0.0.0/8", "172.16.0.0/12", "192.168.0.0/16", "fc00::/7")
)
_CGNAT = ipaddress.ip_network("100.64.0.0/10")
_THIS_NETWORK = ipaddress.ip_network("0.0.0.0/8")
_SITE_LOCAL = ipaddress.ip_network("fec0::/10")
_NAT64 = ipaddress.ip_network("64:ff9b::/96")


@dataclass(frozen=True)
class AddressPolicy:
    """The operator's allow-list: networks whose addresses, and names that, may be fetched.

    A name is trusted whatever it resolves to (the operator vouches for the name); a
    network opens its addresses under any name; an origin (`host:port`) opens that one
    server only — how the operator's `GITHUB_API_URL` and `WAYBACK_URL` are trusted, so
    that trusting an API on 127.0.0.1:8765 does not open every other port of the host.
    """

    networks: tuple[IPNetwork, ...] = ()
    names: frozenset[str] = frozenset()
    origins: frozenset[Origin] = frozenset()

    @classmethod
    def parse(cls, entries: Iterable[str]) -> AddressPolicy:
        """Read allow-list entries (CIDRs, addresses or host names); ValueError names a bad one."""
        networks: list[IPNetwork] = []
        names: set[str] = set()
        origins: set[Origin] = set()
        for entry in entries:
            allowed = parse_allowance(entry)
            if isinstance(allowed, str):
                names.add(allowed)
            elif isinstance(allowed, tuple):
                origins.add(allowed)
            else:
                networks.append(allowed)
        return cls(tuple(networks), frozenset(names), frozenset(origins))

    def allows_name(self, host: str, port: int | None = None) -> bool:
        """Whether the operator named this host, or this host and port (an origin)."""
        name = normalize_host(host)
        ip = parse_ip_literal(name)
        return name in self.names or (
            port is not None and (name if ip is None else str(ip), port) in self.origins
        )

    def allows_ip(self, ip: IPAddress) -> bool:
        """Whether the address lies in an allowed network (IPv4-mapped forms count as IPv4)."""
        candidates = [ip]
        if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
            candidates.append(ip.ipv4_mapped)
        return any(c in network for c in candidates for network in self.networks)


@functools.lru_cache(maxsize=1024)
def parse_ip_literal(host: str) -> IPAddress | None:
    """The address a host spells, in any form a resolver accepts, or None for a name.

    Remembered for the hosts seen last: every request asks it about its host several
    times (the URL's check, the connection's, the allow-list's), and `ipaddress` parses
    anew each time; the answer (an immutable address) depends on the text alone.
    """
    name = normalize_host(host)
    try:
        return ipaddress.ip_address(name)
    except ValueError:
        return parse_ipv4_loose(name)


def classify_address(ip: IPAddress) -> str | None:
    """What kind of internal address `ip` is, as "a loopback address", or None if public."""
    embedded = _embedded_ipv4(ip)
    if embedded is not None:
        kind = classify_address(embedded)
        if kind is not None or (isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped):
            return kind
    kind = _kind(ip)
    if kind is None:
        return None
    if ip in METADATA_ADDRESSES:
        kind += " (cloud metadata)"
    return f"{'an' if kind[0] in 'aeiou' else 'a'} {kind} address"


def _kind(ip: IPAddress) -> str | None:
    """The first kind that fits, most telling first ("loopback" before "reserved")."""
    if ip.is_unspecified or ip in _THIS_NETWORK:
        return "unspecified"
    if ip.is_loopback:
        return "loopback"
    if ip.is_link_local:
        return "link-local"
    if ip in _CGNAT:
        return "carrier-grade NAT (100.64.0.0/10)"
    if any(ip in network for network in _PRIVATE) or ip in _SITE_LOCAL:
        return "private"
    if ip.is_multicast:
        return "multicast"
    if not ip.is_global:
        return "reserved"
    return None


def _embedded_ipv4(ip: IPAddress) -> ipaddress.IPv4Address | None:
    """The IPv4 address an IPv6 one carries (mapped, 6to4 or NAT64), which it reaches."""
    if not isinstance(ip, ipaddress.IPv6Address):
        return None
    if ip.ipv4_mapped is not None:
        return ip.ipv4_mapped
    if ip.sixtofour is not None:
        return ip.sixtofour
    if ip in _NAT64:
        return ipaddress.IPv4Address(int(ip) & 0xFFFFFFFF)
    return None


_NAMED_ADDRESSES = {
    "a loopback name": (ipaddress.ip_address("127.0.0.1"), ipaddress.ip_address("::1")),
    "a cloud metadata name": tuple(sorted(METADATA_ADDRESSES, key=str)),
}
"""What the internal names stand for: allowing loopback allows `localhost` too."""


def classify_name(host: str) -> str | None:
    """What kind of internal name `host` is, without DNS, or None for an ordinary name."""
    name = normalize_host(host)
    if name in LOOPBACK_NAMES or name.endswith(".localhost"):
        return "a loopback name"
    if name in METADATA_NAMES:
        return "a cloud metadata name"
    return None


def refuse_host(host: str, policy: AddressPolicy, port: int | None = None) -> str | None:
    """Why a URL's host may not be fetched, judged before any look-up, or None.

    IP literals (in any spelling) and the well-known internal names are refused here
    with their reason; other names pass, to be checked again on every address they
    resolve to when the connection is made (`refuse_address`).
    """
    if policy.allows_name(host, port):
        return None
    name = normalize_host(host)
    ip = parse_ip_literal(name)
    if ip is not None:
        return refuse_address(host, ip, policy, port)
    kind = classify_name(name)
    if kind is None or any(policy.allows_ip(ip) for ip in _NAMED_ADDRESSES[kind]):
        return None  # an allowed network covers what the name stands for: check on connect
    return f"refused: {name} is {kind}; {ALLOW_HINT}"


def refuse_address(
    host: str, ip: IPAddress, policy: AddressPolicy, port: int | None = None
) -> str | None:
    """Why `host`, about to be reached at `ip` (on `port`), may not be, or None when it may."""
    if policy.allows_name(host, port) or policy.allows_ip(ip):
        return None
    kind = classify_address(ip)
    if kind is None:
        return None
    name, shown = normalize_host(host), show_address(ip)
    if name in (str(ip), shown):
        return f"refused: {shown} is {kind}; {ALLOW_HINT}"
    if parse_ip_literal(name) == ip:
        return f"refused: {name} ({shown}) is {kind}; {ALLOW_HINT}"
    return f"refused: {name} resolves to {shown}, {kind}; {ALLOW_HINT}"


def show_address(ip: IPAddress) -> str:
    """The address as a reader knows it: an IPv4-mapped one with its IPv4 dotted quad
    (`::ffff:169.254.169.254`, which Python before 3.13 prints in hex)."""
    if isinstance(ip, ipaddress.IPv6Address) and ip.ipv4_mapped is not None:
        return f"::ffff:{ip.ipv4_mapped}"
    return str(ip)


def internal_host(host: str, resolved: Sequence[IPAddress] | None = None) -> str | None:
    """What makes `host` an internal place, as "127.0.0.1 is a loopback address", or None
    when it is public: the one test of whether a source's URL may be named to a third
    party (the Wayback Machine), which the operator's allow-list does not change.

    The allow-list says what may be *fetched*; an internal address opened there is
    still internal, and its URL (a host name, a path) says things about the network it
    sits in. So an internal address or name (`classify_address`, `classify_name`) is
    internal whatever is allowed, and so is a name that resolves to one: `resolved` are
    the addresses the name has now (the connection guard refuses exactly such a name
    when it is not allowed, so a source refused for its address is internal here too).
    None for `resolved` (the default) says the name was not resolved: unknown, so kept
    in. An address needs no `resolved`.
    """
    name = normalize_host(host)
    ip = parse_ip_literal(name)
    if ip is not None:
        kind = classify_address(ip)
        return None if kind is None else f"{show_address(ip)} is {kind}"
    named = classify_name(name)
    if named is not None:
        return f"{name} is {named}"
    if resolved is None:
        return f"{name} could not be resolved, so whether it is internal is not known"
    for address in resolved:
        kind = classify_address(address)
        if kind is not None:
            return f"{name} resolves to {show_address(address)}, {kind}"
    return None
