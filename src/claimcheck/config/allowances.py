"""The operator's allow-list as written: the spelling of its entries and where they come from.

An entry of `[fetch] allow_addresses`, of CLAIMCHECK_ALLOW_ADDRESSES, or an operator's own
server URL opens an internal network, host name or origin (`host:port`) to the fetcher.
The configuration checks each entry's spelling when it is read, so that a misspelt entry
is an error naming its line rather than an allowance of nothing; `net/addresses.py`
decides what an allowed entry opens. Host spellings are read as a resolver reads them
(`normalize_host`, `parse_ipv4_loose`), so that the check and the fetcher agree.
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Mapping
from urllib.parse import urlsplit

from claimcheck.config.servers import DEFAULT_WAYBACK_URL
from claimcheck.models import DEFAULT_API_URL

IPNetwork = ipaddress.IPv4Network | ipaddress.IPv6Network
Origin = tuple[str, int]
"""A host (normalized; an address as `str(ip)`) and a port: one server, not the whole host."""

ALLOW_ADDRESSES_ENV = "CLAIMCHECK_ALLOW_ADDRESSES"
"""Internal addresses to open for this process (comma-separated, like allow_addresses)."""

_LABEL = re.compile(r"[a-z0-9_]([a-z0-9_-]{0,61}[a-z0-9_])?")
_IPV4_PART = re.compile(r"0[xX][0-9a-fA-F]*|0[0-7]*|[1-9][0-9]*")


def parse_allowance(entry: str) -> IPNetwork | str | Origin:
    """One allow-list entry as a network (`127.0.0.0/8`, `::1`, `[::1]`), a host name, or
    an origin (`docs.internal:8080`, `127.0.0.1:8765`, `[::1]:8765`).

    An all-numeric entry in an odd IPv4 spelling (`127.1`) is the address it spells;
    anything else must be a valid DNS name, so a typo cannot silently allow nothing.
    """
    text = entry.strip()
    if not text:
        raise ValueError("an empty entry")
    origin = re.fullmatch(r"(\[[^\]]+\]|[^:\[\]]+):([0-9]{1,5})", text)
    if origin is not None and 0 < int(origin[2]) < 65536:
        host = parse_allowance(origin[1])
        if isinstance(host, tuple) or (not isinstance(host, str) and host.num_addresses != 1):
            raise ValueError(f"{entry!r}: an origin is one host and a port")
        return (host if isinstance(host, str) else str(host.network_address), int(origin[2]))
    bare = text[1:-1] if text.startswith("[") and text.endswith("]") else text
    try:
        return ipaddress.ip_network(bare, strict=False)
    except ValueError:
        pass
    loose = parse_ipv4_loose(bare)
    if loose is not None:
        return ipaddress.ip_network(loose)
    name = normalize_host(bare)
    if "/" in name or not all(_LABEL.fullmatch(label) for label in name.split(".")):
        raise ValueError(f"{entry!r} is neither a CIDR network, an IP address nor a host name")
    return name


def normalize_host(host: str) -> str:
    """The host as compared: lower case, no brackets, no zone id, no trailing dot."""
    name = host.strip().lower()
    if name.startswith("[") and name.endswith("]"):
        name = name[1:-1]
    return name.split("%", 1)[0].rstrip(".")


def parse_ipv4_loose(text: str) -> ipaddress.IPv4Address | None:
    """IPv4 as `inet_aton` and the WHATWG URL parser read it: 1–4 parts, each decimal,
    octal (leading 0) or hex (0x), the last part filling the remaining bytes.

    `2130706433`, `0x7f000001`, `0177.0.0.1` and `127.1` are all 127.0.0.1, and the
    system resolver connects to it for any of them, so a check on dotted quads alone
    would be walked around.
    """
    parts = text.split(".")
    if not 1 <= len(parts) <= 4 or not all(_IPV4_PART.fullmatch(p) for p in parts):
        return None
    values = [int(p, 16) if p[:2].lower() == "0x" and len(p) > 2 else _int_part(p) for p in parts]
    if any(v is None for v in values):
        return None
    numbers = [v for v in values if v is not None]
    *head, last = numbers
    if any(v > 255 for v in head) or last >= 256 ** (5 - len(numbers)):
        return None
    value = last
    for index, part in enumerate(head):
        value += part << (8 * (3 - index))
    return ipaddress.IPv4Address(value)


def _int_part(part: str) -> int | None:
    """A decimal or octal part; a bare "0x" has no digits and is not a number."""
    if part.lower() == "0x":
        return None
    return int(part, 8) if part.startswith("0") else int(part)


def split_allowances(text: str) -> list[str]:
    """The entries of CLAIMCHECK_ALLOW_ADDRESSES: separated by commas or white space."""
    return text.replace(",", " ").split()


def operator_hosts(*urls: str) -> list[str]:
    """The origins (`host:port`) of the operator's own server URLs, trusted like
    allow_addresses: that one server, not every port of its host."""
    origins: list[str] = []
    for url in urls:
        parts = urlsplit(url)
        try:
            port = parts.port or (443 if parts.scheme == "https" else 80)
        except ValueError:  # a bad port: the URL is refused where it is used
            continue
        if parts.hostname:
            host = f"[{parts.hostname}]" if ":" in parts.hostname else parts.hostname
            origins.append(f"{host}:{port}")
    return origins


def environment_allowances(env: Mapping[str, str] | None = None) -> tuple[str, ...]:
    """What the environment alone allows: CLAIMCHECK_ALLOW_ADDRESSES and the operator's
    GITHUB_API_URL and WAYBACK_URL hosts (the defaults' when unset). The file's server
    URLs count through `Config.allowed_addresses`, which a run passes to the fetcher."""
    env = os.environ if env is None else env
    return (
        *split_allowances(env.get(ALLOW_ADDRESSES_ENV, "")),
        *operator_hosts(
            env.get("GITHUB_API_URL") or DEFAULT_API_URL,
            env.get("WAYBACK_URL") or DEFAULT_WAYBACK_URL,
        ),
    )
