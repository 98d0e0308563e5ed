"""The default server of each hosted forge, which the configuration names as its defaults.

Apart from the forges' adapters so that `config.py` can name them without importing
the adapters, which import the fetcher, which reads the configuration.
"""

DEFAULT_GITLAB_URL = "https://gitlab.com"
"""GitLab.com, unless GITLAB_URL (or `gitlab_url` in claimcheck.toml) names another."""

DEFAULT_FORGEJO_URL = "https://codeberg.org"
"""Codeberg, unless FORGEJO_URL (or `forgejo_url` in claimcheck.toml) names another."""

DEFAULT_HF_ENDPOINT = "https://huggingface.co"
"""The Hub, unless HF_ENDPOINT (or `hf_endpoint` in claimcheck.toml) names another."""
