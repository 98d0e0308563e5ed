"""Refusing a token, password or secret written into claimcheck.toml, which is committed:
tokens come from the environment only."""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from pathlib import Path

from claimcheck.config.project import CONFIG_FILE
from claimcheck.config.servers import TOKENS
from claimcheck.config.toml_lines import toml_line
from claimcheck.errors import ConfigError

_SECRET_NAMES = frozenset({"token", "password", "secret"})
_SECRET_ENDINGS = ("_token", "_password", "_secret")


def is_secret_key(name: str) -> bool:
    """Whether a config key names a secret (`github_token`, `token`, `smtp_password`,
    `wayback_keys`)."""
    lowered = name.lower()
    return lowered in _SECRET_NAMES or lowered in TOKENS or lowered.endswith(_SECRET_ENDINGS)


def _secret_keys(data: object, prefix: str = "") -> Iterator[str]:
    """The dotted names of the secret keys in parsed TOML, at any depth, in order."""
    if isinstance(data, dict):
        for key, value in data.items():
            name = f"{prefix}.{key}" if prefix else str(key)
            if is_secret_key(str(key)):
                yield name
            else:
                yield from _secret_keys(value, name)
    elif isinstance(data, list):
        for item in data:
            yield from _secret_keys(item, prefix)


def refuse_secrets(data: Mapping[str, object], path: Path, text: str) -> None:
    """Refuse a token, password or secret written into the config file, naming its line
    and key and never its value.

    Tokens come from the environment only; the file is committed, and one written
    there is already exposed to everyone who can read the repository, so the user is
    told at once rather than the key being ignored.
    """
    found = list(_secret_keys(data))
    if not found:
        return
    problems = []
    for name in found:
        line = toml_line(text, name.split("."))
        variable = TOKENS[name][0] if name in TOKENS else ""
        instead = f"set {variable} in the environment" if variable else "use the environment"
        problems.append(
            f"{path}:{line}: {name}: a secret is never read from {CONFIG_FILE}, which is"
            f" committed: remove it (and revoke it if it was pushed), and {instead} instead"
        )
    raise ConfigError(
        *problems,
        hint="tokens come only from the environment: GITHUB_TOKEN, HF_TOKEN, GITLAB_TOKEN,"
        " FORGEJO_TOKEN, WAYBACK_KEYS",
    )
