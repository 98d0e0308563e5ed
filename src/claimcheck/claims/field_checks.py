"""The checks of one field's value in a claim file: visible text, check dates, URLs, selectors.

Each gives the problem in the words a claim-file error shows, or None. The schema's
validators (`claims.schema`) call them, and so does the parser for what the schema
leaves to it (`claims.claim_checks`); they take values and return words, nothing else.
"""

from __future__ import annotations

import datetime as dt
import re
import unicodedata
from urllib.parse import urlsplit

from pydantic import ValidationInfo

from claimcheck.judge.extract import selector_problem
from claimcheck.judge.normalize import normalize_text
from claimcheck.untrusted import carried_credentials

_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 and C1 controls but tab and newline, DEL, and (once pairs are joined) lone surrogates.
_BAD_CHARACTER = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
# A character `normalize_text` never removes (tests/claims/test_read_speedups.py).
_SURELY_VISIBLE = re.compile(r"[^\W_]|[!-~]")
# What str.isspace() finds in ASCII.
_ASCII_SPACE = re.compile("[\t\n\x0b\x0c\r\x1c-\x1f ]")
# A check date as written: the YAML reader leaves it as text, and only this form is one
# (pydantic alone would also take `0`, a Unix time, or `2026-10-20T00:00:00`).
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
DATE_WANTED = "must be a date (YYYY-MM-DD)"


def join_surrogates(text: str) -> str:
    """`text` with each UTF-16 surrogate pair (as JSON-style escapes give) made one character.

    Lone halves stay as they are, for `bad_character` to report.
    """
    if _SURROGATE.search(text) is None:
        return text
    return text.encode("utf-16-le", "surrogatepass").decode("utf-16-le", "surrogatepass")


def bad_character(text: str) -> str | None:
    """What is wrong with the first character of `text` that cannot be in a claim, if any.

    Control characters are invisible on the page, so a quote holding one never matches;
    a lone surrogate is not a character at all and cannot be written out as UTF-8.
    """
    found = _BAD_CHARACTER.search(text)
    if found is None:
        return None
    return f"character {found.start() + 1} is {character_problem(ord(found.group()))}"


def character_problem(code: int) -> str:
    if 0xD800 <= code <= 0xDFFF:
        return (
            f"a lone surrogate U+{code:04X}, half of a UTF-16 pair and not a character: "
            "write the character itself, or both halves of its \\u pair"
        )
    if _BAD_CHARACTER.match(chr(code)):
        return f"the control character U+{code:04X}: only tab and newline may appear"
    return f"U+{code:04X}, which YAML does not allow in a file"


def visible(text: str) -> bool:
    """Whether `normalize_text(text)` leaves anything: a character a reader can see.

    A letter, a digit or ASCII punctuation always stays (NFKC composes or decomposes
    it into others of its kind; the folds give ASCII), so text with one is visible
    without normalizing it, a tenth of the time a normalization takes.
    """
    return _SURELY_VISIBLE.search(text) is not None or bool(normalize_text(text))


def not_blank(value: str | None) -> str | None:
    problem = None if value is None else _blank(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def _blank(value: str) -> str | None:
    """Why `value` holds nothing a reader can see, if it does not."""
    if _SURELY_VISIBLE.search(value) is not None:
        return None
    if not value.strip():
        return "must not be empty or whitespace only"
    if not normalize_text(value):
        return (
            "has no visible text: only invisible characters (zero-width spaces, soft"
            " hyphens, ...) and whitespace"
        )
    return None


def text_problem(value: str) -> str | None:
    """What a claim file would refuse in `value` as a quote (or its prefix, suffix, ...).

    The parser's own two rules, in its order: no character a claim cannot hold (a
    control character, a lone surrogate), then something a reader can see. A command
    that takes such a text from its options (`accept --quote`) asks this before it
    looks for the text anywhere, so it refuses what a claim file refuses, in the same
    words, instead of searching for a text that can never be a quote.
    """
    return bad_character(join_surrogates(value)) or _blank(value)


def a_date(value: object) -> object:
    """A check date must be written as one: `2026-10-20`, not `20261020` or a timestamp."""
    if value is None or isinstance(value, dt.date):
        return value
    if isinstance(value, str) and _DATE.fullmatch(value):
        return value
    raise ValueError(f"{DATE_WANTED}, not {shown_input(value)}")


def not_ahead(value: dt.date | None, info: ValidationInfo) -> dt.date | None:
    """A check date is a day a person looked: never later than tomorrow (UTC)."""
    latest = (info.context or {}).get("latest")
    if value is not None and isinstance(latest, dt.date) and value > latest:
        raise ValueError(
            f"{value.isoformat()} is in the future (after {latest.isoformat()}); write the"
            " day the claim was checked"
        )
    return value


_OWNER = re.compile(r"[^\s\x00-\x1f\x7f-\x9f]{1,100}")


def an_owner(value: str | None) -> str | None:
    """An owner: one word of at most 100 characters (a name, @handle, team or e-mail
    address), as notification routes name them."""
    if value is not None and not _OWNER.fullmatch(value):
        raise ValueError(
            "must be one word (a name, @handle, team or e-mail address) of at most 100 "
            "characters, no spaces"
        )
    return value


def absent_texts(value: str | list[str] | None) -> str | list[str] | None:
    if value is None:
        return None
    texts = [value] if isinstance(value, str) else value
    if not texts:
        raise ValueError("give at least one text the source must not say")
    for text in texts:
        not_blank(text)
    return value


def a_selector(value: str | None) -> str | None:
    if value is None:
        return value
    problem = selector_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value.strip()


def _credentials_problem(text: str) -> str | None:
    """Why a URL in `text` (a source, or what `cited` names) cannot carry a user name or
    password, shown without them.

    A claim's URL is written into every report, the run state and the snapshot's index,
    which are committed and published: a password there is a published password. So
    claimcheck never sends one written in a claim file, and a source that needs one is
    refused where it is written, not fetched without it (which would only fail later,
    the password already copied everywhere).
    """
    carried = carried_credentials(text)
    if carried is None:
        return None
    return (
        f"{carried}: claimcheck never sends credentials written in a claim file, as every"
        " report and snapshot would publish them; write the URL without them, and give a"
        " forge's token in the environment (GITHUB_TOKEN, HF_TOKEN, GITLAB_TOKEN,"
        " FORGEJO_TOKEN)"
    )


def no_credentials(value: str | None) -> str | None:
    problem = None if value is None else _credentials_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def a_url(value: str | None, info: ValidationInfo) -> str | None:
    if value is None:
        return value
    value = value.strip()
    # Pages cite few sources, each many times: each is checked once per parse.
    seen = (info.context or {}).get("urls")
    problem = seen.get(value, False) if isinstance(seen, dict) else False
    if problem is False:
        problem = _url_problem(value)
        if isinstance(seen, dict):
            seen[value] = problem
    if problem is not None:
        raise ValueError(problem)
    return value


def _url_problem(value: str) -> str | None:
    """What is wrong with a source URL (already stripped), if anything."""
    if value.isascii():  # no ASCII character is invisible (Cf): only whitespace to find
        hidden = _ASCII_SPACE.search(value) is not None
    else:
        hidden = any(c.isspace() or unicodedata.category(c) == "Cf" for c in value)
    if hidden:
        return "must not contain whitespace or invisible characters (percent-encode them)"
    try:
        parts = urlsplit(value)
        port = parts.port
    except ValueError as exc:  # a bad port (`:99999`, `:abc`) or IPv6 literal (`[::1`)
        if "port" in str(exc).lower():
            return f"has a bad port ({exc}): a port is a number from 1 to 65535"
        return f"is not a valid URL: {exc}"
    if parts.scheme not in ("http", "https") or not parts.hostname:
        return "must be an http(s) URL with a host"
    if port == 0:
        return "port 0 is not a port a server listens on: give 1 to 65535"
    return _credentials_problem(value)


def shown_input(value: object) -> str:
    """A value as written, short: an error names what it refused, never all of it."""
    shown = repr(value) if isinstance(value, str) else str(value)
    return shown if len(shown) <= 40 else shown[:39] + "…"
