"""`[notify]` in claimcheck.toml: the routes notifications take, and the refusal of an
Apprise URL written into the file.

A route names the environment variable that holds its Apprise URLs (`env`), and whom
(`owners`) and where (`pages`, globs over claim files, articles and page slugs) it is
for. The URLs themselves never come from the file, which is committed: they carry the
services' tokens. The default route, for every claim no route matches, takes its URLs
from `CLAIMCHECK_NOTIFY`.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from pathlib import Path
from typing import Annotated

from pydantic import AfterValidator, Field, model_validator

from claimcheck.config.fields import Settings
from claimcheck.config.toml_lines import toml_line
from claimcheck.errors import ConfigError

DEFAULT_ROUTE = "default"
"""The name of the route for every claim no configured route matches."""
NOTIFY_ENV = "CLAIMCHECK_NOTIFY"
"""The default route's Apprise URLs, space-separated: all a small desk sets."""

_VARIABLE = re.compile(r"[A-Za-z_][A-Za-z0-9_]{0,127}")
_ROUTE = re.compile(r"[A-Za-z0-9][A-Za-z0-9_-]{0,63}")
_OWNER = re.compile(r"[^\s\x00-\x1f\x7f]{1,100}")
_URL_LIKE = re.compile(r"[A-Za-z][A-Za-z0-9+.-]*://")
_URL_KEYS = frozenset({"url", "urls", "apprise", "apprise_url", "apprise_urls"})


def _variable(value: str) -> str:
    if not _VARIABLE.fullmatch(value):
        raise ValueError(
            "must name an environment variable (letters, digits, _), e.g. CLAIMCHECK_NOTIFY_INFRA"
        )
    return value


def an_owner(value: str) -> str:
    """An owner as claim files and routes name one: a name, @handle, team or e-mail
    address, one word of at most 100 characters."""
    if not _OWNER.fullmatch(value):
        raise ValueError(
            "must be one word (a name, @handle, team or e-mail address) of "
            "at most 100 characters, no spaces"
        )
    return value


def _glob(value: str) -> str:
    if not value.strip() or len(value) > 500 or re.search(r"[\x00-\x1f\x7f]", value):
        raise ValueError("must be a glob of at most 500 characters, no control characters")
    return value


def _route_name(value: str) -> str:
    if not _ROUTE.fullmatch(value) or value == DEFAULT_ROUTE:
        raise ValueError(
            f"a route name is letters, digits, - and _ (and not {DEFAULT_ROUTE!r}, the "
            f"route of {NOTIFY_ENV})"
        )
    return value


Owner = Annotated[str, AfterValidator(an_owner)]
RouteName = Annotated[str, AfterValidator(_route_name)]


class NotifyRoute(Settings):
    """One route: where its URLs are, and the claims it is for.

    A claim goes to the route when its owner is among `owners` (if given) and its
    claim file, article or page slug matches one of `pages` (if given).
    """

    env: Annotated[str, AfterValidator(_variable)] = Field(
        description="The environment variable holding the route's Apprise URLs, "
        "space-separated (never the URLs themselves: they carry tokens)."
    )
    owners: list[Owner] = Field(
        default_factory=list, description="The owners (`owner:` in claim files) it is for."
    )
    pages: list[Annotated[str, AfterValidator(_glob)]] = Field(
        default_factory=list,
        description="Globs over claim files and articles (from the repository's root, "
        "`*` crosses folders) or page slugs that it is for.",
    )

    @model_validator(mode="after")
    def _says_for_whom(self) -> NotifyRoute:
        if not self.owners and not self.pages:
            raise ValueError(
                "a route names owners, pages or both; the claims of no route go to "
                f"the default route ({NOTIFY_ENV})"
            )
        return self


class NotifyConfig(Settings):
    """Who is told when a claim's state changes (see docs/notifications.md)."""

    routes: dict[RouteName, NotifyRoute] = Field(
        default_factory=dict,
        description="Named routes; a claim no route matches goes to the default route, "
        f"whose Apprise URLs are in {NOTIFY_ENV}.",
    )
    review: bool = Field(
        default=True,
        description="Notify claims newly needing review (context-changed, moved, "
        "expired) too, not only newly stale and recovered ones.",
    )


def _urls_in(data: object, keys: list[str]) -> Iterator[list[str]]:
    """The key paths under `[notify]` holding a URL or named like a URL key."""
    if isinstance(data, dict):
        for key, value in data.items():
            path = [*keys, str(key)]
            if str(key).lower() in _URL_KEYS:
                yield path
            else:
                yield from _urls_in(value, path)
    elif isinstance(data, list):
        if any(isinstance(item, str) and _URL_LIKE.match(item.strip()) for item in data):
            yield keys
    elif isinstance(data, str) and _URL_LIKE.match(data.strip()):
        yield keys


def refuse_notify_urls(data: Mapping[str, object], path: Path, text: str) -> None:
    """Refuse an Apprise URL written under `[notify]`, naming its line and key and never
    its value: the URL of a Slack hook, a Matrix room or an SMTP server carries its
    token or password, and the file is committed."""
    found = list(_urls_in(data.get("notify"), ["notify"]))
    if not found:
        return
    problems = [
        f"{path}:{toml_line(text, keys)}: {'.'.join(keys)}: an Apprise URL is never read "
        "from claimcheck.toml, which is committed (it carries the service's token): "
        "remove it (and revoke the token if it was pushed), put it in an environment "
        "variable and name that variable with `env`"
        for keys in found
    ]
    raise ConfigError(
        *problems,
        hint=f"the default route's URLs go in {NOTIFY_ENV}; a route's in the variable its "
        '`env` names, e.g. [notify.routes.infra] env = "CLAIMCHECK_NOTIFY_INFRA"',
    )
