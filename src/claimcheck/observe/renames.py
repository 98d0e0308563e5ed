"""Renamed GitHub repositories: an API answer that moved to `/repositories/{id}/…` is
asked its repository's new full name, so a claim on it reports the move by name."""

from __future__ import annotations

import json
from collections.abc import Sequence

from claimcheck.config import Config
from claimcheck.forges.github import JSON_MEDIA_TYPE, api_request, renamed_repository
from claimcheck.net.fetch import Fetched, FetchOutcome
from claimcheck.net.fetcher import fetch_all_sync
from claimcheck.net.settings import fetch_settings


def renamed_repositories(
    outcomes: Sequence[FetchOutcome], config: Config
) -> tuple[dict[str, str], int]:
    """moved_to → new full_name, for GitHub API redirects to `/repositories/{id}/…`."""
    asked: dict[str, list[str]] = {}
    for outcome in outcomes:
        moved = getattr(outcome, "moved_to", None)
        repository = renamed_repository(moved, config.github_api_url) if moved else None
        if moved and repository:
            asked.setdefault(repository, []).append(moved)
    if not asked:
        return {}, 0
    requests = [
        api_request(
            repository, JSON_MEDIA_TYPE, api_url=config.github_api_url, token=config.github_token
        )
        for repository in asked
    ]
    outcomes_, count = fetch_all_sync(fetch_settings(config), requests)
    renames: dict[str, str] = {}
    for (_repository, moved_urls), outcome in zip(asked.items(), outcomes_, strict=True):
        full_name = _full_name(outcome)
        for moved in moved_urls:
            if full_name:
                renames[moved] = full_name
    return renames, count


def _full_name(outcome: FetchOutcome) -> str | None:
    if not isinstance(outcome, Fetched):
        return None
    try:
        name = json.loads(outcome.body).get("full_name")
    except (ValueError, AttributeError):
        return None
    return name if isinstance(name, str) and name.count("/") == 1 else None
