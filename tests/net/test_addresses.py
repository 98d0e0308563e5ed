"""Tests of addresses.py: which hosts and addresses are internal, and what the allow-list opens.

Plain values only: no look-up, no socket. The end-to-end refusals (connect time, DNS
rebinding, redirects, Wayback) are in test_guard.py.
"""

from __future__ import annotations

import ipaddress

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimcheck.config.allowances import parse_allowance, parse_ipv4_loose
from claimcheck.net.addresses import (
    AddressPolicy,
    classify_address,
    internal_host,
    parse_ip_literal,
    refuse_address,
    refuse_host,
)

NOTHING = AddressPolicy()

# host as a URL carries it -> the words of its refusal (before any look-up)
INTERNAL_HOSTS = {
    "127.0.0.1": "127.0.0.1 is a loopback address",
    "127.8.9.10": "127.8.9.10 is a loopback address",
    "localhost": "localhost is a loopback name",
    "LocalHost.": "localhost is a loopback name",
    "app.localhost": "app.localhost is a loopback name",
    "0.0.0.0": "0.0.0.0 is an unspecified address",
    "::": ":: is an unspecified address",
    "[::1]": "::1 is a loopback address",
    "2130706433": "2130706433 (127.0.0.1) is a loopback address",
    "0x7f000001": "0x7f000001 (127.0.0.1) is a loopback address",
    "0177.0.0.1": "0177.0.0.1 (127.0.0.1) is a loopback address",
    "127.1": "127.1 (127.0.0.1) is a loopback address",
    "0x7f.1": "0x7f.1 (127.0.0.1) is a loopback address",
    "169.254.169.254": "169.254.169.254 is a link-local (cloud metadata) address",
    "[::ffff:169.254.169.254]": "::ffff:169.254.169.254 is a link-local (cloud metadata) address",
    "[::ffff:127.0.0.1]": "::ffff:127.0.0.1 is a loopback address",
    "[fd00:ec2::254]": "fd00:ec2::254 is a private (cloud metadata) address",
    "100.100.100.200": "100.100.100.200 is a carrier-grade NAT (100.64.0.0/10) (cloud metadata)",
    "metadata.google.internal": "metadata.google.internal is a cloud metadata name",
    "metadata": "metadata is a cloud metadata name",
    "10.0.0.1": "10.0.0.1 is a private address",
    "172.16.5.4": "172.16.5.4 is a private address",
    "192.168.0.1": "192.168.0.1 is a private address",
    "[fc00::1]": "fc00::1 is a private address",
    "169.254.1.1": "169.254.1.1 is a link-local address",
    "[fe80::1]": "fe80::1 is a link-local address",
    "[fe80::1%25eth0]": "fe80::1 is a link-local address",
    "100.64.0.1": "100.64.0.1 is a carrier-grade NAT (100.64.0.0/10) address",
    "224.0.0.1": "224.0.0.1 is a multicast address",
    "[ff02::1]": "ff02::1 is a multicast address",
    "240.0.0.1": "240.0.0.1 is a reserved address",
    "255.255.255.255": "255.255.255.255 is a reserved address",
    "192.0.2.1": "192.0.2.1 is a reserved address",
    "[2002:7f00:1::]": "2002:7f00:1:: is a loopback address",  # 6to4 carrying 127.0.0.1
    "[64:ff9b::a9fe:a9fe]": "64:ff9b::a9fe:a9fe is a link-local (cloud metadata) address",  # NAT64
}

PUBLIC_HOSTS = [
    "example.org",
    "docs.example.org",
    "github.com",
    "93.184.215.14",
    "8.8.8.8",
    "[2606:4700::1111]",
    "[::ffff:8.8.8.8]",
    "1.1",  # 1.0.0.1
    "internal.example.com",  # a name: judged on what it resolves to, at connect time
    "127.0.0.1.example.org",
    "0x7g.1",  # not a number: a name
    "08.0.0.1",  # 08 is no octal number: a name
]


@pytest.mark.parametrize(("host", "words"), INTERNAL_HOSTS.items(), ids=list(INTERNAL_HOSTS))
def test_internal_hosts_are_refused_before_any_look_up(host: str, words: str) -> None:
    reason = refuse_host(host, NOTHING)
    assert reason is not None
    assert reason.startswith("refused: ")
    assert words in reason
    assert reason.endswith("; allow it with [fetch] allow_addresses")


def test_at_least_thirteen_internal_forms_are_tested() -> None:
    assert len(INTERNAL_HOSTS) >= 13


@pytest.mark.parametrize("host", PUBLIC_HOSTS)
def test_public_hosts_and_names_pass(host: str) -> None:
    assert refuse_host(host, NOTHING) is None


@pytest.mark.parametrize(
    ("text", "address"),
    [
        ("2130706433", "127.0.0.1"),
        ("0x7f000001", "127.0.0.1"),
        ("0X7F000001", "127.0.0.1"),
        ("0177.0.0.1", "127.0.0.1"),
        ("127.1", "127.0.0.1"),
        ("127.0.1", "127.0.0.1"),
        ("0xa9.0xfe.0xa9.0xfe", "169.254.169.254"),
        ("0251.0376.0251.0376", "169.254.169.254"),
        ("169.16689662", "169.254.169.254"),
        ("0", "0.0.0.0"),
        ("4294967295", "255.255.255.255"),
    ],
)
def test_odd_ipv4_spellings_read_as_the_resolver_reads_them(text: str, address: str) -> None:
    assert parse_ipv4_loose(text) == ipaddress.IPv4Address(address)


@pytest.mark.parametrize(
    "text", ["4294967296", "256.0.0.1", "1.2.3.4.5", "0x", "08", "1..2", "", "example", "1.2.3.0x"]
)
def test_what_is_no_ipv4_address_is_a_name(text: str) -> None:
    assert parse_ipv4_loose(text) is None


def test_a_resolved_address_names_the_host_and_what_it_resolved_to() -> None:
    ip = ipaddress.ip_address("127.0.0.1")
    assert refuse_address("rebind.example", ip, NOTHING) == (
        "refused: rebind.example resolves to 127.0.0.1, a loopback address;"
        " allow it with [fetch] allow_addresses"
    )
    assert refuse_address("public.example", ipaddress.ip_address("93.184.215.14"), NOTHING) is None


ALLOWED = AddressPolicy.parse(["127.0.0.0/8", "::1", "10.1.0.0/16", "docs.internal", "[fd00::7]"])


@pytest.mark.parametrize(
    "host",
    [
        "127.0.0.1",
        "127.200.0.1",
        "2130706433",
        "127.1",
        "[::1]",
        "[::ffff:127.0.0.1]",  # the mapped form of an allowed IPv4 address
        "10.1.2.3",
        "docs.internal",
        "DOCS.internal.",
        "[fd00::7]",
    ],
)
def test_the_allow_list_opens_its_networks_and_names(host: str) -> None:
    assert refuse_host(host, ALLOWED) is None


@pytest.mark.parametrize(
    "host", ["10.2.0.1", "169.254.169.254", "metadata.google.internal", "[fd00::8]"]
)
def test_the_allow_list_opens_nothing_else(host: str) -> None:
    assert refuse_host(host, ALLOWED) is not None


def test_an_allowed_name_is_trusted_whatever_it_resolves_to() -> None:
    assert refuse_address("docs.internal", ipaddress.ip_address("10.9.9.9"), ALLOWED) is None
    assert refuse_address("other.example", ipaddress.ip_address("10.9.9.9"), ALLOWED) is not None


@pytest.mark.parametrize(
    ("entry", "parsed"),
    [
        ("127.0.0.0/8", ipaddress.ip_network("127.0.0.0/8")),
        ("10.1.2.3/16", ipaddress.ip_network("10.1.0.0/16")),
        ("::1", ipaddress.ip_network("::1/128")),
        ("[::1]", ipaddress.ip_network("::1/128")),
        ("127.1", ipaddress.ip_network("127.0.0.1/32")),
        ("Docs.Internal.", "docs.internal"),
        ("localhost", "localhost"),
    ],
)
def test_allow_list_entries_parse(entry: str, parsed: object) -> None:
    assert parse_allowance(entry) == parsed


@pytest.mark.parametrize("entry", ["", " ", "10.0.0.0/33", "docs internal", "http://x/", "a..b"])
def test_a_bad_allow_list_entry_is_an_error(entry: str) -> None:
    with pytest.raises(ValueError, match=r"empty|neither"):
        parse_allowance(entry)


def test_classification_names_the_kind() -> None:
    assert classify_address(ipaddress.ip_address("8.8.8.8")) is None
    assert classify_address(ipaddress.ip_address("::1")) == "a loopback address"
    assert parse_ip_literal("[::1]") == ipaddress.ip_address("::1")
    assert parse_ip_literal("example.org") is None


def test_an_origin_opens_one_port_of_one_host_only() -> None:
    policy = AddressPolicy.parse(["127.0.0.1:8765", "[::1]:9000", "docs.internal:8080"])
    assert refuse_host("127.0.0.1", policy, 8765) is None
    assert refuse_host("2130706433", policy, 8765) is None  # the same address, spelt oddly
    assert refuse_host("[::1]", policy, 9000) is None
    assert refuse_host("docs.internal", policy, 8080) is None
    assert refuse_host("127.0.0.1", policy, 8766) is not None
    assert refuse_host("127.0.0.1", policy) is not None
    assert refuse_address("docs.internal", ipaddress.ip_address("10.0.0.1"), policy, 22)


@pytest.mark.parametrize("entry", ["127.0.0.0/8:80", "docs.internal:0", "docs.internal:99999"])
def test_an_origin_is_one_host_and_a_valid_port(entry: str) -> None:
    with pytest.raises(ValueError, match=r"origin|neither"):
        parse_allowance(entry)


def test_an_allowed_network_lets_its_names_through_to_the_connect_time_check() -> None:
    loopback = AddressPolicy.parse(["127.0.0.0/8"])
    assert refuse_host("localhost", loopback) is None
    assert refuse_host("metadata.google.internal", loopback) is not None
    assert refuse_host("metadata", AddressPolicy.parse(["169.254.169.254"])) is None


# --- what may be named to a third party (the Wayback Machine) --------------------------


@pytest.mark.parametrize("host", list(INTERNAL_HOSTS), ids=list(INTERNAL_HOSTS))
def test_every_host_the_guard_refuses_is_internal_to_a_third_party(host: str) -> None:
    reason = internal_host(host, [ipaddress.ip_address("93.184.215.14")])
    assert reason is not None
    assert INTERNAL_HOSTS[host].split(" is ")[1].split(" (")[0] in reason  # its kind


@pytest.mark.parametrize("host", ["10.0.0.1", "localhost", "docs.internal"])
def test_an_allowed_internal_host_is_still_internal_to_a_third_party(host: str) -> None:
    """The allow-list opens the fetch; it never makes an internal URL public."""
    allowed = AddressPolicy.parse(["10.0.0.0/8", "127.0.0.0/8", "docs.internal"])
    resolved = [ipaddress.ip_address("10.4.5.6")]
    assert refuse_host(host, allowed) is None
    assert refuse_address(host, resolved[0], allowed) is None
    assert internal_host(host, resolved) is not None


@pytest.mark.parametrize(
    ("host", "resolved", "words"),
    [
        ("wiki.corp.example", ["10.1.2.3"], "wiki.corp.example resolves to 10.1.2.3, a private"),
        ("mixed.example", ["93.184.215.14", "::1"], "mixed.example resolves to ::1, a loopback"),
        ("gone.example", None, "gone.example could not be resolved"),
        ("docs.example.org", ["93.184.215.14", "2606:4700::1111"], None),
        ("93.184.215.14", None, None),  # an address needs no look-up
    ],
)
def test_a_name_is_internal_when_any_of_its_addresses_is_or_when_it_has_none(
    host: str, resolved: list[str] | None, words: str | None
) -> None:
    addresses = None if resolved is None else [ipaddress.ip_address(a) for a in resolved]
    reason = internal_host(host, addresses)
    assert reason is None if words is None else reason is not None and words in reason


ADDRESSES = st.one_of(st.ip_addresses(v=4), st.ip_addresses(v=6))


@given(ADDRESSES)
def test_an_address_is_internal_exactly_when_the_guard_refuses_it_by_default(
    ip: ipaddress.IPv4Address | ipaddress.IPv6Address,
) -> None:
    """One classification for both: what may not be fetched unasked may not be named."""
    host = str(ip) if ip.version == 4 else f"[{ip}]"
    refused = refuse_address(host, ip, NOTHING) is not None
    assert (internal_host(host) is not None) is refused
    assert (refuse_host(host, NOTHING) is not None) is refused


@given(st.lists(ADDRESSES, min_size=1, max_size=4))
def test_a_name_is_internal_exactly_when_the_guard_refuses_one_of_its_addresses(
    resolved: list[ipaddress.IPv4Address | ipaddress.IPv6Address],
) -> None:
    refused = any(refuse_address("name.example", ip, NOTHING) for ip in resolved)
    assert (internal_host("name.example", resolved) is not None) is refused
