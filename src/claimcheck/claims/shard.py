"""Split one run into N shards by source, for N jobs that verify in parallel (`--shard K/N`).

A shard is a set of sources, never a set of claims: every claim of a source goes to
the same shard, so each source is fetched by one job only and its claims are judged
against one snapshot. A source is what has one snapshot folder: URLs that resolve to
the same folder (`https://github.com/o/r` and `https://github.com/o/r/`) are one
source, so two jobs never write the same folder. The slice is a pure function of the
claims and K/N, the same on every machine and in every run over the same claims:

- the distinct sources are grouped by the host they are fetched from (GitHub
  sources by the API's host, whichever github.com or raw URL they are written as:
  the per-token rate limit is shared by all of them);
- each host's sources are ordered by the SHA-256 of their snapshot key (never
  Python's `hash()`, which is salted per process);
- the hosts are taken in name order and their sources dealt round-robin across the
  shards, each host starting where the previous one stopped (its offset). Every shard
  gets an even share of every host (the counts of a host differ by at most one
  between shards), and the shards' sizes in sources differ by at most one in all.

A claim that rests on several sources joins them: they all go to the shard one of
them is dealt to (sources joined through several claims, too), and so does the claim,
so it is judged in one job that fetches every source it needs, and still no source is
fetched by two jobs. A shard then holds the sources joined to its own beside its share.

Claims without a source (citation needed) fetch nothing; they go to shard 1 only, so
that merging the shards' reports lists each exactly once.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Iterable, Sequence
from urllib.parse import urlsplit

from claimcheck.errors import UsageError
from claimcheck.forges.forge import Servers
from claimcheck.forges.resolve import resolve_source
from claimcheck.models import Claim

_SPEC = re.compile(r"(\d{1,6})/(\d{1,6})")
_EXAMPLE = "e.g. --shard 2/4 for the second of four shards"


def parse_shard(value: str) -> tuple[int, int]:
    """K and N of `--shard K/N`: the K-th of N shards, counted from 1."""
    match = _SPEC.fullmatch(value.strip())
    if match is None:
        raise UsageError(f"--shard {value!r}: expected K/N, two whole numbers ({_EXAMPLE})")
    k, n = int(match[1]), int(match[2])
    if n < 1:
        raise UsageError(f"--shard {value!r}: N (the number of shards) must be at least 1")
    if not 1 <= k <= n:
        raise UsageError(f"--shard {value!r}: K must be between 1 and N ({_EXAMPLE})")
    return k, n


def source_of(url: str, servers: Servers | None = None) -> tuple[str, str]:
    """The host a source URL is fetched from (the GitHub API's for GitHub sources), and
    the snapshot key that identifies the source.

    `servers` are the config's (`servers_of`), as the run resolves its sources: a URL
    on a self-hosted forge's host is that forge's file, one folder however it is
    written; without them it would be a web page, a folder per spelling.
    """
    ref = resolve_source(url, servers=servers)
    return (urlsplit(ref.fetch_url).hostname or "").lower(), ref.key


def assign_shards(
    urls: Iterable[str],
    n: int,
    joined: Iterable[Sequence[str]] = (),
    servers: Servers | None = None,
) -> dict[str, int]:
    """Source URL → its shard (1 to N); see the module's docstring for the deal.

    Each of `joined` (the sources of one claim, among `urls`) goes to the shard of its
    first source; sources joined through several claims go together.
    """
    if n < 1:
        raise ValueError(f"n must be at least 1, not {n}")
    sources = {url: source_of(url, servers) for url in dict.fromkeys(urls)}
    by_host: dict[str, set[str]] = {}
    for host, key in sources.values():
        by_host.setdefault(host, set()).add(key)
    shard_of_key: dict[str, int] = {}
    dealt = 0
    for host in sorted(by_host):
        ordered = sorted(by_host[host], key=lambda key: (_digest(key), key))
        for position, key in enumerate(ordered, dealt):
            shard_of_key[key] = position % n + 1
        dealt += len(ordered)
    leader: dict[str, str] = {}  # a source's key → the key of the source it goes with

    def lead(key: str) -> str:
        while leader.get(key, key) != key:
            key = leader[key]
        return key

    for group in joined:
        first = lead(sources[group[0]][1])
        for url in group[1:]:
            other = lead(sources[url][1])
            if other != first:
                leader[other] = first
    return {url: shard_of_key[lead(key)] for url, (_, key) in sources.items()}


def shard_of(
    claims: Sequence[Claim], k: int, n: int, servers: Servers | None = None
) -> list[Claim]:
    """The claims of shard K of N, in their given order; shard 1 also has the unsourced."""
    if not 1 <= k <= n:
        raise ValueError(f"shard {k} of {n}: k must be between 1 and n")
    joined = [c.sources for c in claims if len(c.sources) > 1]
    shards = assign_shards((s for c in claims for s in c.sources), n, joined, servers)
    return [c for c in claims if (shards[c.sources[0]] if c.sources else 1) == k]


def _digest(text: str) -> str:
    return hashlib.sha256(text.encode("utf-8")).hexdigest()
