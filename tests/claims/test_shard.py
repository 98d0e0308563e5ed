"""`--shard K/N`: a deterministic, host-balanced partition of the sources.

Every claim lands in exactly one shard, every claim of one source in the same one,
unsourced claims in shard 1, and every shard gets an even share of every host.
"""

from __future__ import annotations

import datetime as dt
import subprocess
import sys
from collections import Counter
from collections.abc import Sequence

import pytest
from hypothesis import given
from hypothesis import strategies as st

from claimcheck.claims.shard import assign_shards, parse_shard, shard_of, source_of
from claimcheck.config import Config
from claimcheck.errors import UsageError
from claimcheck.forges.registry import servers_of
from claimcheck.models import Anchor, Claim
from support import paths


def make_claim(number: int, source: str | None) -> Claim:
    return Claim(
        id=f"claim-{number}",
        page="page",
        claim=f"claim {number}",
        source=source,
        anchor=Anchor(quote="a quote") if source else None,
        checked=dt.date(2026, 1, 1),
        cited=None if source else "a book",
        file="claims/page.yaml",
        line=number + 1,
    )


def github(number: int) -> str:
    return f"https://github.com/owner{number}/repo{number}"


def web(host: str, number: int) -> str:
    return f"https://{host}/page/{number}"


def claims_of(sources: Sequence[str | None], repeat: int = 2) -> list[Claim]:
    """`repeat` claims per source, interleaved as claim files mix them."""
    return [
        make_claim(number * len(sources) + index, source)
        for number in range(repeat)
        for index, source in enumerate(sources)
    ]


MIXED: list[str | None] = [
    *(github(i) for i in range(23)),
    *(f"https://raw.githubusercontent.com/raw{i}/r/main/README.md" for i in range(4)),
    *(web("docs.example.org", i) for i in range(7)),
    *(web("blog.example.net", i) for i in range(2)),
    web("one.example.com", 1),
    None,
    None,
]


def shards(claims: list[Claim], n: int) -> list[list[Claim]]:
    return [shard_of(claims, k, n) for k in range(1, n + 1)]


# -- K/N ---------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("value", "expected"), [("1/1", (1, 1)), ("2/4", (2, 4)), (" 3/3 ", (3, 3)), ("07/10", (7, 10))]
)
def test_k_of_n_parses(value: str, expected: tuple[int, int]) -> None:
    assert parse_shard(value) == expected


@pytest.mark.parametrize(
    ("value", "message"),
    [
        ("", "expected K/N"),
        ("2", "expected K/N"),
        ("2/", "expected K/N"),
        ("a/b", "expected K/N"),
        ("-1/4", "expected K/N"),
        ("1.5/4", "expected K/N"),
        ("1/4/5", "expected K/N"),
        ("1 / 4", "expected K/N"),
        ("1/" + "9" * 5000, "expected K/N"),  # never handed to int()
        ("0/4", "K must be between 1 and N"),
        ("5/4", "K must be between 1 and N"),
        ("1/0", "N (the number of shards) must be at least 1"),
        ("0/0", "N (the number of shards) must be at least 1"),
    ],
)
def test_bad_k_of_n_is_a_usage_error_that_names_the_value(value: str, message: str) -> None:
    with pytest.raises(UsageError, match="--shard") as raised:
        parse_shard(value)
    assert message in str(raised.value)
    assert repr(value)[:40] in str(raised.value)


def test_shard_of_refuses_k_outside_1_to_n() -> None:
    with pytest.raises(ValueError, match="between 1 and n"):
        shard_of(claims_of(MIXED), 0, 3)
    with pytest.raises(ValueError, match="at least 1"):
        assign_shards([github(1)], 0)


# -- partition ---------------------------------------------------------------------------


@pytest.mark.parametrize("n", [1, 2, 3, 4, 7, 50])
def test_the_shards_partition_the_claims_in_their_order(n: int) -> None:
    claims = claims_of(MIXED)
    parts = shards(claims, n)

    ids = [c.id for part in parts for c in part]
    assert sorted(ids) == sorted(c.id for c in claims)  # union is everything ...
    assert len(ids) == len(set(ids))  # ... and no claim is in two shards
    for part in parts:  # each shard keeps the claim files' order
        assert part == [c for c in claims if c in part]


def test_one_shard_is_the_whole_run() -> None:
    claims = claims_of(MIXED)
    assert shard_of(claims, 1, 1) == claims


@pytest.mark.parametrize("n", [2, 3, 5])
def test_every_claim_of_a_source_is_in_one_shard(n: int) -> None:
    claims = claims_of(MIXED, repeat=3)
    where: dict[str, set[int]] = {}
    for k, part in enumerate(shards(claims, n), 1):
        for claim in part:
            if claim.source:
                where.setdefault(claim.source, set()).add(k)
    assert all(len(found) == 1 for found in where.values())
    assert len(where) == len({s for s in MIXED if s})


def test_spellings_of_one_source_share_its_shard() -> None:
    """github.com/o/r and github.com/o/r/ are one snapshot folder: one job writes it."""
    spellings = [f"https://github.com/o/r{tail}" for tail in ("", "/", ".git")]
    claims = claims_of([*spellings, *(github(i) for i in range(9))])
    assert len({source_of(s)[1] for s in spellings}) == 1
    for n in (2, 3, 4):
        owners = {
            k for k in range(1, n + 1) for c in shard_of(claims, k, n) if c.source in spellings
        }
        assert len(owners) == 1


def test_spellings_of_one_self_hosted_forge_source_share_its_shard() -> None:
    """On a self-hosted GitLab's own host, the spellings of one project are one folder
    only with the config's servers: without them each is a web page of its own, and
    two jobs could write the project's folder."""
    servers = servers_of(Config(gitlab_url="https://git.example.org"))
    projects = [f"https://git.example.org/team/kit{i}" for i in range(12)]
    spellings = {p: [p, f"{p}/"] for p in projects}
    every = [url for urls in spellings.values() for url in urls]
    claims = claims_of(every)
    for urls in spellings.values():
        assert len({source_of(url, servers)[1] for url in urls}) == 1
        assert len({source_of(url)[1] for url in urls}) == 2  # resolved as web pages
    for n in (2, 3, 4):
        where = {k: shard_of(claims, k, n, servers) for k in range(1, n + 1)}
        for urls in spellings.values():
            owners = {k for k, shard in where.items() for c in shard if c.source in urls}
            assert len(owners) == 1, urls


@pytest.mark.parametrize("n", [1, 2, 3])
def test_unsourced_claims_are_in_shard_one_only(n: int) -> None:
    claims = claims_of(MIXED)
    unsourced = [c for c in claims if c.source is None]
    parts = shards(claims, n)

    assert [c for c in parts[0] if c.source is None] == unsourced
    assert all(c.source for part in parts[1:] for c in part)


# -- balance -----------------------------------------------------------------------------


@pytest.mark.parametrize("n", [2, 3, 4, 6, 8])
def test_every_shard_gets_an_even_share_of_every_host(n: int) -> None:
    claims = claims_of(MIXED)
    per_shard: list[Counter[str]] = []
    for part in shards(claims, n):
        per_shard.append(Counter(source_of(s)[0] for s in {c.source for c in part if c.source}))
    hosts = {host for counts in per_shard for host in counts}

    assert "api.github.com" in hosts  # github.com and raw URLs are one API's budget
    assert "raw.githubusercontent.com" not in hosts
    for host in hosts:
        counts = [counts[host] for counts in per_shard]
        assert max(counts) - min(counts) <= 1, (host, counts)
    sizes = [sum(counts.values()) for counts in per_shard]
    assert max(sizes) - min(sizes) <= 1, sizes


def test_github_sources_are_spread_evenly() -> None:
    """27 GitHub sources over 4 shards: 7, 7, 7, 6 (some order), not 27, 0, 0, 0."""
    github_sources = [s for s in MIXED if s and "github" in s]
    assignment = assign_shards(github_sources, 4)
    assert sorted(Counter(assignment.values()).values()) == [6, 7, 7, 7]


# -- determinism -------------------------------------------------------------------------


def test_the_deal_ignores_the_order_of_the_claims() -> None:
    claims = claims_of(MIXED)
    backwards = list(reversed(claims))
    for k in range(1, 4):
        assert {c.id for c in shard_of(claims, k, 3)} == {c.id for c in shard_of(backwards, k, 3)}


def test_the_deal_is_the_same_in_every_process() -> None:
    """Python's str hash is salted per process; the deal must not depend on it."""
    code = (
        "from claimcheck.claims.shard import assign_shards\n"
        "urls = [f'https://github.com/o{i}/r' for i in range(40)]"
        " + [f'https://docs.example.org/p{i}' for i in range(9)]\n"
        "print(sorted(assign_shards(urls, 3).items()))\n"
    )
    outputs = {
        subprocess.run(
            [sys.executable, "-c", code],
            capture_output=True,
            text=True,
            check=True,
            cwd=paths.ROOT,
            env={"PYTHONHASHSEED": seed, "PATH": ""},
        ).stdout
        for seed in ("1", "2", "3")
    }
    assert len(outputs) == 1
    expected = assign_shards(
        [f"https://github.com/o{i}/r" for i in range(40)]
        + [f"https://docs.example.org/p{i}" for i in range(9)],
        3,
    )
    assert outputs == {f"{sorted(expected.items())}\n"}


@given(
    st.lists(
        st.tuples(
            st.sampled_from(["github.com", "docs.example.org", "a.example"]), st.integers(0, 30)
        ),
        max_size=60,
    ),
    st.integers(1, 9),
)
def test_any_claims_partition_and_balance(picks: list[tuple[str, int]], n: int) -> None:
    sources = [
        github(number) if host == "github.com" else web(host, number) for host, number in picks
    ]
    claims = [make_claim(i, source) for i, source in enumerate([*sources, None])]
    parts = shards(claims, n)

    assert sorted(c.id for part in parts for c in part) == sorted(c.id for c in claims)
    distinct = [{c.source for c in part if c.source} for part in parts]
    for host in {source_of(s)[0] for s in sources}:
        counts = [sum(1 for s in part if source_of(s)[0] == host) for part in distinct]
        assert max(counts) - min(counts) <= 1
