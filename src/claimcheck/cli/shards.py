"""--shard: which shard of all the claims a run works on, and what it holds."""

from __future__ import annotations

from typing import TYPE_CHECKING

from claimcheck.claims.shard import parse_shard, shard_of
from claimcheck.forges.registry import servers_of

if TYPE_CHECKING:
    from claimcheck.config import Config
    from claimcheck.models import Claim


def parse_shard_option(value: str | None) -> tuple[int, int] | None:
    """K and N of --shard, checked before any work is done; None without the option."""
    if value is None:
        return None
    return parse_shard(value)


def select_shard(claims: list[Claim], shard: tuple[int, int] | None, config: Config) -> list[Claim]:
    """The claims of the shard (all of them without --shard), their sources resolved
    with the config's servers, as the run resolves them."""
    if shard is None:
        return claims
    return shard_of(claims, *shard, servers=servers_of(config))


def shard_line(shard: tuple[int, int], claims: list[Claim], every: list[Claim]) -> str:
    """What the shard holds, for stderr: its sources and claims out of all."""
    k, n = shard
    sources = len({s for c in claims for s in c.sources})
    total = len({s for c in every for s in c.sources})
    return f"shard {k} of {n}: {sources} of {total} sources, {len(claims)} of {len(every)} claims"
