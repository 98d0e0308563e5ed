"""The servers claimcheck asks besides the sources' own (the GitHub API, the Wayback
Machine, the Hub, GitLab, Forgejo): their defaults, the environment variables that name
them, and which token goes to which.

The forges' adapters read their defaults from here, so that the configuration names them
without importing the forges.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path
from urllib.parse import urlsplit

from claimcheck.config.toml_lines import toml_line
from claimcheck.models import DEFAULT_API_URL
from claimcheck.untrusted import clean_text

DEFAULT_GITLAB_URL = "https://gitlab.com"
"""GitLab.com, unless GITLAB_URL (or `gitlab_url` in claimcheck.toml) names another."""

DEFAULT_FORGEJO_URL = "https://codeberg.org"
"""Codeberg, unless FORGEJO_URL (or `forgejo_url` in claimcheck.toml) names another."""

DEFAULT_HF_ENDPOINT = "https://huggingface.co"
"""The Hub, unless HF_ENDPOINT (or `hf_endpoint` in claimcheck.toml) names another."""

DEFAULT_WAYBACK_URL = "https://archive.org"
"""The Wayback Machine, unless WAYBACK_URL (or `wayback_url` in claimcheck.toml) names another."""

ENVIRONMENT = {
    "github_api_url": "GITHUB_API_URL",
    "wayback_url": "WAYBACK_URL",
    "hf_endpoint": "HF_ENDPOINT",
    "gitlab_url": "GITLAB_URL",
    "forgejo_url": "FORGEJO_URL",
}
"""The server URLs that an environment variable sets, over the file's key."""

TOKENS = {
    "github_token": ("GITHUB_TOKEN", "github_api_url", DEFAULT_API_URL),
    "hf_token": ("HF_TOKEN", "hf_endpoint", DEFAULT_HF_ENDPOINT),
    "gitlab_token": ("GITLAB_TOKEN", "gitlab_url", DEFAULT_GITLAB_URL),
    "forgejo_token": ("FORGEJO_TOKEN", "forgejo_url", DEFAULT_FORGEJO_URL),
    "wayback_keys": ("WAYBACK_KEYS", "wayback_url", DEFAULT_WAYBACK_URL),
}
"""Each token: its environment variable, the server it is for, and that server's default.
`wayback_keys` are the Internet Archive's keys as `ACCESS:SECRET`, for Save Page Now."""


def tokens_for_servers(
    data: Mapping[str, object],
    servers: Mapping[str, str],
    env: Mapping[str, str],
    path: Path,
    text: str,
) -> tuple[dict[str, str | None], tuple[str, ...]]:
    """The tokens from the environment, each withheld from a server only the file names.

    A token is sent to its server's default (api.github.com, huggingface.co) or to the
    server the environment names (GitHub Actions sets GITHUB_API_URL in every job). A
    `claimcheck.toml` is the repository's, and a pull request can change it: were its
    `github_api_url` given the job's GITHUB_TOKEN, one line would send the token to any
    host. So a server that only the file names is asked without the token, and the run
    says how to give it one (name the server in the environment, where the operator,
    not the repository, decides).
    """
    tokens: dict[str, str | None] = {}
    notices: list[str] = []
    for field, (variable, server, default) in TOKENS.items():
        token = env.get(variable) or None
        named = data.get(server)
        if (
            token is not None
            and server not in servers
            and isinstance(named, str)
            and _origin(named) != _origin(default)
        ):
            token = None
            shown = clean_text(_origin(named)[1])
            notices.append(
                f"{path}:{toml_line(text, [server])}: {server}: {variable} is not sent to "
                f"{shown}, a server only this file names; to send it there, set "
                f"{ENVIRONMENT[server]} to that URL in the environment"
            )
        tokens[field] = token
    return tokens, tuple(notices)


def _origin(url: str) -> tuple[str, str]:
    parts = urlsplit(url)
    try:
        port = str(parts.port or _DEFAULT_PORT.get(parts.scheme) or "")
    except ValueError:
        port = "?"
    return parts.scheme.lower(), f"{(parts.hostname or '').lower()}:{port}"


_DEFAULT_PORT = {"http": 80, "https": 443}
