"""The shapes a setting's value takes: one-line header text, host names, paths, server URLs,
label names, and the strict base model every section of the configuration is built on."""

from __future__ import annotations

import re
from typing import Annotated, TypeGuard
from urllib.parse import urlsplit

from pydantic import AfterValidator, BaseModel, ConfigDict

from claimcheck.untrusted import carried_credentials

_PRINTABLE = re.compile(r"[\x20-\x7e]+")
_HOST = re.compile(r"[A-Za-z0-9._\-\[\]:]{1,260}")
_CONTROL = re.compile(r"[\x00-\x1f\x7f-\x9f]")


def one_line(value: str) -> str:
    """Header text: printable ASCII on one line (a CR/LF would start another header)."""
    if not _PRINTABLE.fullmatch(value):
        bad = next((c for c in value if not _PRINTABLE.fullmatch(c)), None)
        what = f": character U+{ord(bad):04X}" if bad else ""
        raise ValueError(f"must be printable ASCII on one line, not empty{what}")
    return value


def _host_name(value: str) -> str:
    if not _HOST.fullmatch(value):
        raise ValueError(f"{value!r} is not a host name (or host:port)")
    return value


def _a_path(value: str) -> str:
    if not path_text(value):
        raise ValueError("must be a non-empty path without control characters")
    return value


def http_url(value: str) -> str:
    """A server's URL: http(s), with a host, and no user name or password in it, which
    httpx would send to that host with every request and messages would show (a
    server's token comes from the environment, see `servers.tokens_for_servers`)."""
    carried = carried_credentials(value)
    if carried is not None:
        raise ValueError(
            f"{carried}: claimcheck sends no credentials written in a server URL; give"
            " the URL without them, and a forge's token in the environment (GITHUB_TOKEN,"
            " HF_TOKEN, GITLAB_TOKEN, FORGEJO_TOKEN)"
        )
    try:
        parts = urlsplit(value)
        _ = parts.port
    except ValueError as exc:
        raise ValueError(f"is not a valid URL: {exc}") from None
    if parts.scheme not in ("http", "https") or not parts.hostname or _CONTROL.search(value):
        raise ValueError("must be an http(s) URL with a host")
    return value


LABEL_MAX = 50
"""GitHub refuses label names longer than this."""


def _label_name(value: str) -> str:
    """A GitHub label name: 1-50 characters, no commas (listing filters take a comma-
    separated list), no control characters, no leading or trailing space."""
    if not value.strip() or value != value.strip() or "," in value or _CONTROL.search(value):
        raise ValueError(
            "must be a label name: not empty, no commas, control characters or surrounding spaces"
        )
    if len(value) > LABEL_MAX:
        raise ValueError(f"a GitHub label has at most {LABEL_MAX} characters")
    return value


MAX_CONCURRENCY = 64
"""The most requests in flight, overall and to one host (`per_host`, `hosts`): one host
may take every slot, as one loopback or GitHub Enterprise server does in a benchmark."""
MAX_JOBS = 64
"""The most worker processes `jobs` may ask for."""


def path_text(value: object) -> TypeGuard[str]:
    """Whether `value` is a path as `PathText` takes it (else its own error says so)."""
    return isinstance(value, str) and bool(value.strip()) and not _CONTROL.search(value)


HostName = Annotated[str, AfterValidator(_host_name)]
PathText = Annotated[str, AfterValidator(_a_path)]
LabelName = Annotated[str, AfterValidator(_label_name)]


class Settings(BaseModel):
    """Base of the config's models: no unknown key, and every value of its own type.

    Strict: TOML types its values, so none is converted. pydantic would otherwise take
    `true` for 1 and `false` for 0 wherever a number is asked (a boolean is an int in
    Python), and 1 or 0 for a boolean, so a misplaced `true` would change verdicts
    without a word; a quoted `"20"` or a `3.0` where a count is asked is refused the
    same way. A whole number where a fraction is asked (`timeout = 20`) is a number
    still, and taken.
    """

    model_config = ConfigDict(extra="forbid", frozen=True, strict=True)
