"""The fetcher's settings as the configuration gives them."""

from __future__ import annotations

from claimcheck.config import Config
from claimcheck.net.fetcher import FetchSettings


def fetch_settings(config: Config) -> FetchSettings:
    """The fetcher's settings from the [fetch] table of the config."""
    f = config.fetch
    return FetchSettings(
        concurrency=f.concurrency,
        per_host=f.per_host,
        per_host_interval=f.per_host_interval,
        hosts=dict(f.hosts),
        timeout=f.timeout,
        retries=f.retries,
        max_bytes=f.max_bytes,
        user_agent=f.user_agent,
        allow_addresses=config.allowed_addresses,
    )
