"""Parse claim files (YAML, one per published page) into `Claim` models.

Every problem is reported with file, line, claim id and field, and all problems of
all files are collected before anything fails, so one run shows the author every fix
to make: a file whose fields break the schema still has each claim checked for what
the schema leaves to the parser (a source or `cited`, a quote) and each id counted
for duplicates, and the problems come out sorted by file and line, each in words of
its own (`error_message`), never the validation library's. Parsing is pure: it takes file
names and texts, never opens a file.

Text is cleaned here, at the one door claims come in by: JSON writers escape a
character outside the BMP as a surrogate pair (`"\\ud83d\\udda5"`), which YAML reads as
two lone halves that no later stage can encode, so pairs are joined into the character
they spell, and what still cannot be text (a lone half, a control character) is a
claim-file error rather than a traceback in a report writer.

YAML is read by libyaml's C parser (`yaml_read`), into values built by the rules the
files were always read by (ruamel.yaml's YAML 1.2): `no` is text, `010` is ten.

Claim files come from pull requests, so the parser is also the first line against a
hostile one. Each limit is a mechanism, checked before the work it bounds: a file over
`MAX_FILE_BYTES` is refused before YAML reads it; anchors and aliases are refused before
any value is built from the nodes, so an alias is never expanded (a 1 KB "billion
laughs" file would otherwise grow to gigabytes), and so are tags (`!!binary` would
smuggle bytes past the text checks) and nesting deeper than `MAX_DEPTH`; every field has
a range (a URL's port, a check date no later than tomorrow, a text a reader can see, a
URL without a user name or password, which every report would publish).
"""

from __future__ import annotations

import datetime as dt
import gc
import hashlib
import re
import unicodedata
from collections.abc import Iterable, Iterator, Mapping
from contextlib import contextmanager
from typing import Any, Literal, Protocol
from urllib.parse import urlsplit

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    TypeAdapter,
    ValidationError,
    ValidationInfo,
    field_validator,
)
from pydantic_core import ErrorDetails

from claimcheck.claims.fragment import FragmentError, split_text_fragment
from claimcheck.claims.yaml_values import (
    Document,
    InvalidError,
    Map,
    RefusedError,
    Seq,
    UnreadableError,
)
from claimcheck.errors import ClaimFileError
from claimcheck.judge.extract import selector_problem
from claimcheck.judge.normalize import normalize_text
from claimcheck.models import Anchor, Claim
from claimcheck.untrusted import carried_credentials
from claimcheck.utf8 import NotUtf8Error

MAX_FILE_BYTES = 128 * 1024
"""The largest claim file read: 7 times the largest real one (17 KB)."""
MAX_DEPTH = 20
"""The deepest nesting of a claim file (it needs 4: file, claims, claim, value)."""
MAX_ID_LENGTH = 200
MAX_URL_LENGTH = 8192

SCHEMA_ID = "https://github.com/claimcheck/claimcheck/claims.schema.json"
"""The claim-file schema's `$id`: its name, as the report schema's is (not an address)."""
SCHEMA_URL = (
    "https://raw.githubusercontent.com/claimcheck/claimcheck/main/"
    "src/claimcheck/claims/claims.schema.json"
)
"""Where editors fetch the schema: the copy shipped in the package, on the main branch."""
MODELINE = f"# yaml-language-server: $schema={SCHEMA_URL}"
"""The first line `init` and `add` give a claim file, so editors complete and validate it."""

_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 and C1 controls but tab and newline, DEL, and (once pairs are joined) lone surrogates.
_BAD_CHARACTER = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
# A character `normalize_text` never removes (tests/claims/test_read_speedups.py).
_SURELY_VISIBLE = re.compile(r"[^\W_]|[!-~]")
# What str.isspace() finds in ASCII.
_ASCII_SPACE = re.compile("[\t\n\x0b\x0c\r\x1c-\x1f ]")
_KEY_LINE = re.compile(r"^\s*(?:-\s+)?([A-Za-z_][\w-]*)\s*:(?:\s|$)")
# A check date as written: the YAML reader leaves it as text, and only this form is one
# (pydantic alone would also take `0`, a Unix time, or `2026-10-20T00:00:00`).
_DATE = re.compile(r"[0-9]{4}-[0-9]{2}-[0-9]{2}")
_DATE_WANTED = "must be a date (YYYY-MM-DD)"
# What JSON Schema can say of a text the parser refuses when blank: it holds a non-space.
_TEXT_SCHEMA: dict[str, Any] = {"pattern": "\\S"}
# The most a check date may lie ahead of today (UTC): a person in UTC+14 checking today.
_DATE_SLACK = dt.timedelta(days=1)
_SOURCE_KEYS = ("quote", "quote_end", "prefix", "suffix", "absent", "scope", "render")
"""What a claim says about its source: what to find there, where, and how to read it."""


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
    return f"character {found.start() + 1} is {_character_problem(ord(found.group()))}"


def _character_problem(code: int) -> str:
    if 0xD800 <= code <= 0xDFFF:
        return (
            f"a lone surrogate U+{code:04X}, half of a UTF-16 pair and not a character: "
            "write the character itself, or both halves of its \\u pair"
        )
    if _BAD_CHARACTER.match(chr(code)):
        return f"the control character U+{code:04X}: only tab and newline may appear"
    return f"U+{code:04X}, which YAML does not allow in a file"


def _visible(text: str) -> bool:
    """Whether `normalize_text(text)` leaves anything: a character a reader can see.

    A letter, a digit or ASCII punctuation always stays (NFKC composes or decomposes
    it into others of its kind; the folds give ASCII), so text with one is visible
    without normalizing it, a tenth of the time a normalization takes.
    """
    return _SURELY_VISIBLE.search(text) is not None or bool(normalize_text(text))


def _not_blank(value: str | None) -> str | None:
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


def _a_date(value: object) -> object:
    """A check date must be written as one: `2026-10-20`, not `20261020` or a timestamp."""
    if value is None or isinstance(value, dt.date):
        return value
    if isinstance(value, str) and _DATE.fullmatch(value):
        return value
    raise ValueError(f"{_DATE_WANTED}, not {_shown_input(value)}")


def _not_ahead(value: dt.date | None, info: ValidationInfo) -> dt.date | None:
    """A check date is a day a person looked: never later than tomorrow (UTC)."""
    latest = (info.context or {}).get("latest")
    if value is not None and isinstance(latest, dt.date) and value > latest:
        raise ValueError(
            f"{value.isoformat()} is in the future (after {latest.isoformat()}); write the"
            " day the claim was checked"
        )
    return value


def _absent_texts(value: str | list[str] | None) -> str | list[str] | None:
    if value is None:
        return None
    texts = [value] if isinstance(value, str) else value
    if not texts:
        raise ValueError("give at least one text the source must not say")
    for text in texts:
        _not_blank(text)
    return value


def _a_selector(value: str | None) -> str | None:
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


def _no_credentials(value: str | None) -> str | None:
    problem = None if value is None else _credentials_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


def _a_url(value: str | None, info: ValidationInfo) -> str | None:
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


_SOURCE_DESCRIPTION = (
    "URL of the source; may be a text-fragment URL (#:~:text=...) that carries the quote."
)
_SOURCE_PATTERN: dict[str, Any] = {"pattern": "^\\s*[Hh][Tt][Tt][Pp][Ss]?://"}
_QUOTE_DESCRIPTION = "The supporting text as a reader sees it on the source."
_QUOTE_END_DESCRIPTION = "End of a range quote: the text runs from quote to quote_end."
_PREFIX_DESCRIPTION = "Text right before the quote, to pick one occurrence."
_SUFFIX_DESCRIPTION = "Text right after the quote, to pick one occurrence."
_SCOPE_DESCRIPTION = (
    "CSS selector of the part of the source the quote must be in (every match, in page "
    "order), instead of an HTML page's main content."
)
_RENDER_DESCRIPTION = (
    "How a web page source is read: `browser` renders it in headless Chromium (for pages "
    "whose text a script writes), `plain` reads its HTML as served; unset, as the host's "
    "[fetch] render entry in claimcheck.toml says (else plain)."
)
_ABSENT_DESCRIPTION = (
    "Text the source must not say, for an 'is not' or 'lacks' claim (one text, or a list: "
    "any of them contradicts it): the claim holds while the source says none of it (beside "
    "its quote, if it has one), and is contradicted once it does."
)


class SourcePart(BaseModel):
    """One of the sources a claim rests on (`sources:`): its URL and its quote or `absent`."""

    model_config = ConfigDict(extra="forbid", title="Source")

    source: str = Field(
        max_length=MAX_URL_LENGTH,
        description=_SOURCE_DESCRIPTION,
        json_schema_extra=_SOURCE_PATTERN,
    )
    quote: str | None = Field(
        default=None, description=_QUOTE_DESCRIPTION, json_schema_extra=_TEXT_SCHEMA
    )
    quote_end: str | None = Field(
        default=None, description=_QUOTE_END_DESCRIPTION, json_schema_extra=_TEXT_SCHEMA
    )
    prefix: str | None = Field(
        default=None, description=_PREFIX_DESCRIPTION, json_schema_extra=_TEXT_SCHEMA
    )
    suffix: str | None = Field(
        default=None, description=_SUFFIX_DESCRIPTION, json_schema_extra=_TEXT_SCHEMA
    )
    scope: str | None = Field(
        default=None, description=_SCOPE_DESCRIPTION, json_schema_extra=_TEXT_SCHEMA
    )
    render: Literal["browser", "plain"] | None = Field(
        default=None, description=_RENDER_DESCRIPTION
    )
    absent: str | list[str] | None = Field(
        default=None, description=_ABSENT_DESCRIPTION, json_schema_extra={"minItems": 1}
    )

    _blank = field_validator("quote", "quote_end", "prefix", "suffix")(_not_blank)
    _absent = field_validator("absent")(_absent_texts)
    _selector = field_validator("scope")(_a_selector)
    _url = field_validator("source")(_a_url)


class ClaimEntry(BaseModel):
    """One claim as written in a claim file: a source URL and its quote, `sources` (two
    or more, each with its quote), or `cited`."""

    model_config = ConfigDict(
        extra="forbid",
        title="Claim",
        # The parser's rule, for editors too: a claim names its source, or what it cites;
        # one with `cited` gives nothing of a source (a key written `~` is not given).
        json_schema_extra={
            "anyOf": [
                {"required": ["source"], "properties": {"source": {"type": "string"}}},
                {"required": ["sources"], "properties": {"sources": {"type": "array"}}},
                {"required": ["cited"], "properties": {"cited": {"type": "string"}}},
            ],
            "not": {"required": ["source", "sources"]},
            "if": {"required": ["cited"], "properties": {"cited": {"type": "string"}}},
            "then": {
                "properties": {
                    key: {"type": "null"} for key in ("source", "sources", *_SOURCE_KEYS)
                }
            },
        },
    )

    id: str = Field(
        pattern=_ID,
        max_length=MAX_ID_LENGTH,
        description="Stable id, unique across all claim files.",
    )
    claim: str = Field(
        description="The statement as the page states it.", json_schema_extra=_TEXT_SCHEMA
    )
    source: str | None = Field(
        default=None,
        max_length=MAX_URL_LENGTH,
        description="URL of the source; may be a text-fragment URL (#:~:text=...) "
        "that carries the quote. Omit it, and give `cited`, when the page's source has "
        "no checkable address yet.",
        json_schema_extra={"pattern": "^\\s*[Hh][Tt][Tt][Pp][Ss]?://"},
    )
    cited: str | None = Field(
        default=None,
        description="What the page cites when there is no source URL ('citation needed'): "
        "instead of `source`, with no quote or anything else about a source.",
        json_schema_extra=_TEXT_SCHEMA,
    )
    quote: str | None = Field(
        default=None,
        description="The supporting text as a reader sees it on the source.",
        json_schema_extra=_TEXT_SCHEMA,
    )
    quote_end: str | None = Field(
        default=None,
        description="End of a range quote: the text runs from quote to quote_end.",
        json_schema_extra=_TEXT_SCHEMA,
    )
    prefix: str | None = Field(
        default=None,
        description="Text right before the quote, to pick one occurrence.",
        json_schema_extra=_TEXT_SCHEMA,
    )
    suffix: str | None = Field(
        default=None,
        description="Text right after the quote, to pick one occurrence.",
        json_schema_extra=_TEXT_SCHEMA,
    )
    checked: dt.date | None = Field(
        default=None, description="When a person last checked this claim; defaults to the file's."
    )
    scope: str | None = Field(
        default=None,
        description="CSS selector of the part of the source the quote must be in (every "
        "match, in page order), instead of an HTML page's main content.",
        json_schema_extra=_TEXT_SCHEMA,
    )
    render: Literal["browser", "plain"] | None = Field(
        default=None, description=_RENDER_DESCRIPTION
    )

    absent: str | list[str] | None = Field(
        default=None,
        description="Text the source must not say, for an 'is not' or 'lacks' claim (one "
        "text, or a list: any of them contradicts it): the claim holds while the source "
        "says none of it (beside its quote, if it has one), and is contradicted once it does.",
        json_schema_extra={"minItems": 1},
    )
    sources: list[SourcePart] | None = Field(
        default=None,
        description="The sources a claim rests on when it rests on several (instead of "
        "`source`): two or more, each with its own quote or `absent` (and scope). The "
        "claim holds when every one holds; its verdict is the worst of theirs.",
        json_schema_extra={"minItems": 2},
    )

    _blank = field_validator("claim", "quote", "quote_end", "prefix", "suffix", "cited")(_not_blank)
    _cited = field_validator("cited")(_no_credentials)

    _absent = field_validator("absent")(_absent_texts)
    _selector = field_validator("scope")(_a_selector)

    _date = field_validator("checked", mode="before")(_a_date)
    _ahead = field_validator("checked")(_not_ahead)

    _url = field_validator("source")(_a_url)


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


class ClaimFileModel(BaseModel):
    """A claim file: one published page and its claims."""

    model_config = ConfigDict(extra="forbid", title="claimcheck claim file")

    page: str = Field(
        pattern=_ID, max_length=MAX_ID_LENGTH, description="Slug of the published page."
    )
    title: str | None = Field(default=None, description="Title of the published page.")
    checked: dt.date = Field(description="Default check date of the claims below.")
    claims: list[ClaimEntry] = Field(description="The page's claims.")

    _date = field_validator("checked", mode="before")(_a_date)
    _ahead = field_validator("checked")(_not_ahead)


_CLAIMS = TypeAdapter(list[Claim])
"""Validates the claims of a parse in one call: 10,000 `Claim(...)` calls take a fifth longer."""


def claim_file_schema() -> dict[str, Any]:
    """The JSON Schema of a claim file, for editors' completion and validation.

    It says what JSON Schema can: the keys, their types and patterns, a source or
    `cited` in every claim, no blank text. The parser checks more (duplicate ids, a
    quote with its source, check dates in the past, invisible text), so a file the
    schema accepts may still be refused; a file it refuses, the parser refuses too.
    `claims.schema.json`, shipped beside this module, is this document as
    `claimcheck schema` prints it (a test holds them equal).
    """
    schema = ClaimFileModel.model_json_schema()
    return {
        "$schema": "https://json-schema.org/draft/2020-12/schema",
        "$id": SCHEMA_ID,
        **schema,
    }


_Problems = list[tuple[int, str]]
"""One file's problems as (line, 'file:line: claim ID: field: message'), to sort by line."""
_Read = tuple[object, int, dict[str, Any] | None]
"""One claim as read: its id as written, its line, and its `Claim`'s fields when it is valid."""


class KeptClaims(Protocol):
    """Where the claims of a file read without a problem are kept for the next read
    (`cache.kept.Kept`): reading is pure, keeping is the caller's."""

    def get(self, key: str) -> Any | None: ...

    def put(self, key: str, answer: Any) -> None: ...


def parse_claims(
    files: Iterable[tuple[str, str]],
    *,
    today: dt.date | None = None,
    kept: KeptClaims | None = None,
) -> list[Claim]:
    """Parse (file name, text) pairs into claims; raise ClaimFileError listing every problem.

    The problems are every one of every file, in the files' order and by line within
    each. `today` (default: today in UTC) bounds the check dates: none may be after
    tomorrow.

    With `kept`, a file whose name and text are those of a file an earlier read found
    no problem in gives the claims it gave then, unread (most nights no claim file
    changed, and reading is the YAML and the schema of every claim); ids are still
    checked across all files, and a kept check date after tomorrow reads the file
    again. Only files without a problem are kept, so every problem is found by reading.
    """
    problems: list[str] = []
    fields: list[dict[str, Any]] = []
    seen: dict[str, str] = {}
    latest = (today or dt.datetime.now(dt.UTC).date()) + _DATE_SLACK
    context = {"latest": latest, "urls": {}}
    fresh: dict[str, str] = {}  # a file read now, without a problem: its key
    with _no_cycle_collection():
        for name, text in files:
            found: _Problems = []
            key = _kept_key(name, text) if kept is not None else ""
            taken = _kept_reads(kept.get(key), latest) if kept is not None else None
            reads = taken if taken is not None else _parse_file(name, text, found, context)
            for claim_id, line, claim in reads:
                if not isinstance(claim_id, str):
                    continue  # no id to count: pydantic said what is wrong with it
                first = seen.get(claim_id)
                if first is not None:
                    found.append(
                        (
                            line,
                            f"{name}:{line}: claim {claim_id!r}: id: duplicate id, first "
                            f"defined at {first}",
                        )
                    )
                    continue
                seen[claim_id] = f"{name}:{line}"
                if claim is not None:
                    fields.append(claim)
            if found:
                found.sort(key=_line_of)  # stable: a line's problems keep their order
                problems.extend(problem for _, problem in found)
            elif taken is None and kept is not None:
                fresh[name] = key
        if problems:
            raise ClaimFileError(problems)
        claims: list[Claim] = _CLAIMS.validate_python(fields)
        del fields  # freed now, not walked by the collector once it is back on
        if kept is not None and fresh:
            _keep(kept, fresh, claims)
    return claims


def _kept_key(name: str, text: str) -> str:
    return hashlib.sha256(f"{name}\0{text}".encode("utf-8", "surrogatepass")).hexdigest()


def _kept_reads(answer: Any, latest: dt.date) -> list[_Read] | None:
    """A kept file's claims as read, or None when there are none to take."""
    if not isinstance(answer, list):
        return None
    bound = latest.isoformat()
    reads: list[_Read] = []
    for claim in answer:
        if not isinstance(claim, dict):
            return None
        claim_id, line, checked = claim.get("id"), claim.get("line"), claim.get("checked")
        if not isinstance(claim_id, str) or not isinstance(line, int):
            return None
        if not isinstance(checked, str) or checked > bound:
            return None  # read again: the date is refused there, with its line
        reads.append((claim_id, line, claim))
    return reads


def _keep(kept: KeptClaims, fresh: dict[str, str], claims: list[Claim]) -> None:
    """Keep each freshly read file's claims, as JSON, for the next read."""
    by_file: dict[str, list[dict[str, Any]]] = {name: [] for name in fresh}
    for claim in claims:
        if claim.file in by_file:
            by_file[claim.file].append(claim.model_dump(mode="json"))
    for name, key in fresh.items():
        kept.put(key, by_file[name])


def _line_of(problem: tuple[int, str]) -> int:
    return problem[0]


@contextmanager
def _no_cycle_collection() -> Iterator[None]:
    """Reading without the cyclic garbage collector, which is on again after.

    Reading builds some thirty objects a claim (nodes, marks, dicts, models), none of
    them in a reference cycle, so reference counting frees every one; but each few
    hundred of them the collector walks everything still alive, and the more claims are
    read the more that is: measured, a third of the time of reading 10,000 claims.
    """
    enabled = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if enabled:
            gc.enable()


def file_too_large(name: str, size: int) -> str | None:
    """The problem of a claim file of `size` bytes, when it is over the limit."""
    if size <= MAX_FILE_BYTES:
        return None
    return (
        f"{name}:1: file: {size:,} bytes, more than the {MAX_FILE_BYTES:,} bytes"
        f" ({MAX_FILE_BYTES // 1024} KiB) a claim file may hold; split the page's claims"
        " into several files"
    )


def _parse_file(name: str, text: str, problems: _Problems, context: dict[str, Any]) -> list[_Read]:
    """Each claim of one file as read (`_Read`), its problems added to `problems`.

    A file that is no YAML mapping, or holds text that is not text, is reported alone:
    nothing of it can be checked further, or what follows could quote the bad text.
    """
    too_large = file_too_large(name, len(text.encode("utf-8", "replace")))
    if too_large is not None:  # milliseconds, even for 20 MB
        problems.append((1, too_large))
        return []
    # Here: a run whose files are all kept reads no YAML (`yaml_values`).
    from claimcheck.claims.yaml_read import UNMARKED_ERRORS, read_yaml

    try:
        document = read_yaml(text, MAX_DEPTH)
    except RefusedError as exc:
        field = _field_at(text, exc.line)
        problems.append((exc.line, _where(name, exc.line, None, field, exc.message)))
        return []
    except UnreadableError as exc:
        problems.append(_unreadable_character(name, text, exc))
        return []
    except InvalidError as exc:
        problems.append(
            (
                exc.line,
                f"{name}:{exc.line}: invalid YAML near {_field_at(text, exc.line)}: {exc.message}",
            )
        )
        return []
    except UNMARKED_ERRORS as exc:
        problems.append((1, f"{name}:1: file: invalid YAML: {type(exc).__name__}: {exc}"))
        return []
    doc = document.value
    if not isinstance(doc, Map):
        problems.append((1, f"{name}:1: a claim file must be a mapping with page, checked, claims"))
        return []
    if document.bad_text:  # only then can a string hold what `bad_character` reports
        text_problems = list(_bad_text(name, document, doc))
        if text_problems:  # reported alone: later messages could quote the bad text
            problems.extend(text_problems)
            return []
    data = _plain(doc, document.converted) if document.converted else doc
    try:
        model = ClaimFileModel.model_validate(data, context=context)
    except ValidationError as exc:
        return _invalid_file(name, document, data, exc, problems)
    read: list[_Read] = []
    items = doc["claims"]
    for index, entry in enumerate(model.claims):
        item = items[index]
        line = item.line
        if entry.sources is not None:
            values = entry.model_dump(include=set(_CLAIM_KEYS))
            wrong = _several_checks(values, len(entry.sources))
            parts = [part.model_dump() for part in entry.sources]
            found_parts, part_wrong = _parts_checks(parts, {})
            _add_claim_problems(name, document, item, entry.id, wrong, problems)
            _add_part_problems(name, document, item, entry.id, part_wrong, problems)
            if wrong or part_wrong:
                read.append((entry.id, line, None))
                continue
            first = found_parts[0]
            claim = {
                "id": entry.id,
                "page": model.page,
                "claim": entry.claim.strip(),
                **first,
                "checked": entry.checked or model.checked,
                "file": name,
                "line": line,
                "parts": found_parts,
            }
            read.append((entry.id, line, claim))
            continue
        source, anchor, wrong = _anchor_checks({key: getattr(entry, key) for key in _CLAIM_KEYS})
        if wrong:
            _add_claim_problems(name, document, item, entry.id, wrong, problems)
            read.append((entry.id, line, None))
            continue
        claim = {
            "id": entry.id,
            "page": model.page,
            "claim": entry.claim.strip(),
            "source": source,
            "anchor": anchor,
            "checked": entry.checked or model.checked,
            "cited": entry.cited,
            "scope": entry.scope,
            "absent": _texts(entry.absent),
            "render": entry.render,
            "file": name,
            "line": line,
        }
        read.append((entry.id, line, claim))
    return read


def _invalid_file(
    name: str, document: Document, data: object, error: ValidationError, problems: _Problems
) -> list[_Read]:
    """A file whose fields break the schema: each error, then what else each claim lacks.

    pydantic names every field that is wrong; what the schema leaves to the parser (a
    source or `cited`, a quote for a source) is checked on each claim as written, with
    only the fields pydantic refused left out, so one run shows every problem.
    """
    failed: dict[int, set[str]] = {}
    failed_parts: dict[int, dict[int, set[str]]] = {}  # claim → part → keys refused
    for details in error.errors():
        problems.append(_describe(name, document, details))
        loc = details["loc"]
        if len(loc) >= 2 and loc[0] == "claims" and isinstance(loc[1], int):
            failed.setdefault(loc[1], set()).add(str(loc[2]) if len(loc) > 2 else "")
            if len(loc) > 3 and loc[2] == "sources" and isinstance(loc[3], int):
                refused = str(loc[4]) if len(loc) > 4 else ""
                failed_parts.setdefault(loc[1], {}).setdefault(loc[3], set()).add(refused)
    items = document.value.get("claims") if isinstance(document.value, Map) else None
    raw_items = data.get("claims") if isinstance(data, Mapping) else None
    if not isinstance(items, Seq) or not isinstance(raw_items, list):
        return []
    read: list[_Read] = []
    for index, (item, raw) in enumerate(zip(items, raw_items, strict=True)):
        wrong = failed.get(index, set())
        if not isinstance(item, Map) or not isinstance(raw, Mapping) or "" in wrong:
            continue  # not a mapping of keys: nothing more to ask of it
        claim_id = raw.get("id")
        several = raw.get("sources")
        if several is not None:
            # Each part as written, with only the keys pydantic refused left out.
            mine = failed_parts.get(index, {})
            count = len(several) if isinstance(several, list) else None
            top = {k: None if k in wrong else raw.get(k) for k in _CLAIM_KEYS}
            parts = several if isinstance(several, list) else []
            _, part_wrong = _parts_checks(parts, mine)
            _add_claim_problems(
                name, document, item, claim_id, _several_checks(top, count), problems
            )
            _add_part_problems(name, document, item, claim_id, part_wrong, problems)
            read.append((claim_id, item.line, None))
            continue
        values = {key: None if key in wrong else raw.get(key) for key in _CLAIM_KEYS}
        if isinstance(values["source"], str):
            values["source"] = values["source"].strip()  # as the `source` validator gives it
        _, _, missing = _anchor_checks(values, failed=frozenset(wrong))
        if missing:
            _add_claim_problems(name, document, item, claim_id, missing, problems)
        read.append((claim_id, item.line, None))
    return read


def _texts(value: str | list[str] | None) -> tuple[str, ...]:
    """`absent` as the claim holds it: its texts, stripped, each once, in order."""
    texts = [value] if isinstance(value, str) else value or []
    return tuple(dict.fromkeys(text.strip() for text in texts))


_CLAIM_KEYS = ("source", "cited", *_SOURCE_KEYS)
"""The keys `_anchor_checks` reads; also those a claim with `sources` gives in its parts
(or not at all)."""
_ANCHOR_KEYS = frozenset({"quote", "quote_end", "prefix", "suffix"})
_NEEDS_QUOTE = "quote_end, prefix and suffix need a quote"


def _add_claim_problems(
    name: str,
    document: Document,
    item: Map,
    claim_id: object,
    wrong: list[tuple[str, str]],
    problems: _Problems,
) -> None:
    for field, message in wrong:
        line = document.key_line(item, field, item.line)
        named = field if claim_id is not None else f"claims.{field}"  # as `_describe` names it
        problems.append((line, _where(name, line, claim_id, named, message)))


_PartProblems = list[tuple[int, str, str]]
"""(part index from 0, field, problem) of the parts of a claim with `sources`."""


def _several_checks(values: Mapping[str, Any], count: int | None) -> list[tuple[str, str]]:
    """(field, problem)s of a claim with `sources` (`count` of them) beside its parts'."""
    wrong: list[tuple[str, str]] = []
    for key in _CLAIM_KEYS:
        if values.get(key) is None:
            continue
        if key == "source":
            message = "give `source` (one source) or `sources` (several), not both"
        elif key == "cited":
            message = "`cited` is for a claim without a source; this one has `sources`"
        else:
            message = f"a claim with `sources` gives `{key}` in the part it is about"
        wrong.append((key, message))
    if count is not None and count < 2:
        wrong.append(("sources", "list two or more sources; a claim on one source gives `source`"))
    return wrong


def _parts_checks(
    parts: list[Any], failed: Mapping[int, set[str]]
) -> tuple[list[dict[str, Any]], _PartProblems]:
    """Each part of a claim with `sources` as a `ClaimPart`'s fields, and the parts'
    problems. `failed` names, by part, the keys pydantic refused (not looked at here)."""
    found: list[dict[str, Any]] = []
    wrong: _PartProblems = []
    for index, part in enumerate(parts):
        refused = frozenset(failed.get(index, set()))
        if not isinstance(part, Mapping) or "" in refused:
            continue  # not a mapping of keys: pydantic said so
        got = {key: None if key in refused else part.get(key) for key in _CLAIM_KEYS}
        if isinstance(got["source"], str):
            got["source"] = got["source"].strip()  # as the `source` validator gives it
        source, anchor, problems = _anchor_checks(got, failed=refused)
        if source is None and "source" not in refused:
            problems.append(("source", "each of `sources` needs its source URL"))
        wrong.extend((index, field, message) for field, message in problems)
        found.append(
            {
                "source": source,
                "anchor": anchor,
                "scope": got["scope"],
                "absent": _texts(got["absent"]),
                "render": got["render"],
            }
        )
    return found, wrong


def _add_part_problems(
    name: str,
    document: Document,
    item: Map,
    claim_id: object,
    wrong: _PartProblems,
    problems: _Problems,
) -> None:
    """Each part's problems at the line of its key, named `sources[K].key` (K from 1,
    as the report's `part K of N`)."""
    items = item.get("sources")
    for index, field, message in wrong:
        part = items[index] if isinstance(items, Seq) and index < len(items) else None
        start = items.item_line(index, item.line) if isinstance(items, Seq) else item.line
        line = document.key_line(part, field, part.line) if isinstance(part, Map) else start
        named = f"sources[{index + 1}].{field}"
        problems.append((line, _where(name, line, claim_id, named, message)))


def _anchor_checks(
    values: Mapping[str, Any], *, failed: frozenset[str] = frozenset()
) -> tuple[str | None, Anchor | dict[str, str | None] | None, list[tuple[str, str]]]:
    """The source URL (its text fragment taken off), the anchor, and (field, problem)s.

    The values are a claim's by key (`_CLAIM_KEYS`), valid each (`failed` names the keys
    pydantic refused, whose values are not looked at): what is checked here is how they
    go together. `cited` stands instead of a source, so a claim that gives it gives no
    source and nothing about one (a quote would be ignored without a word), as a claim
    with `sources` gives no `source` (`_several_checks`).
    """
    if values.get("cited") is None:
        return _source_checks(values, failed)
    if values.get("source") is None and "source" not in failed:
        return (
            None,
            None,
            [(k, _without_source(k)) for k in _SOURCE_KEYS if values.get(k) is not None],
        )
    source, anchor, wrong = _source_checks(values, failed)
    wrong.append(("cited", "`cited` is for a claim without a source; this one has `source`"))
    return source, anchor, wrong


def _without_source(key: str) -> str:
    return (
        f"a claim with `cited` names no source, so no `{key}`: give `source` instead of"
        f" `cited`, or leave `{key}` out"
    )


def _source_checks(
    values: Mapping[str, Any], failed: frozenset[str]
) -> tuple[str | None, Anchor | dict[str, str | None] | None, list[tuple[str, str]]]:
    """`_anchor_checks` of a claim that gives no `cited`, or a source beside it."""
    source, quote, quote_end, prefix, suffix, absent = (
        values.get(key) for key in ("source", "quote", "quote_end", "prefix", "suffix", "absent")
    )
    wrong: list[tuple[str, str]] = []
    quote_failed = bool(failed) and not failed.isdisjoint(_ANCHOR_KEYS)
    anchor: Anchor | dict[str, str | None] | None = None
    if not quote_failed:
        if quote is not None:
            anchor = {"quote": quote, "quote_end": quote_end, "prefix": prefix, "suffix": suffix}
        elif quote_end or prefix or suffix:
            wrong.append(("quote", _NEEDS_QUOTE))
    if "source" in failed or "cited" in failed:
        return source, anchor, wrong
    if source is not None:
        try:
            source, fragment = split_text_fragment(source)
        except FragmentError as exc:
            wrong.append(("source", str(exc)))
            return source, anchor, wrong
        if fragment is not None and anchor is not None:
            wrong.append(
                ("quote", "the source URL already carries a text fragment; give the quote once")
            )
        elif fragment is not None:
            problem = _fragment_problem(fragment)
            if problem is not None:
                wrong.append(("source", problem))
            anchor = fragment
        unanchored = anchor is None and absent is None and "absent" not in failed
        if unanchored and not quote_failed and not wrong:
            wrong.append(("quote", "a claim with a source needs a quote"))
    elif absent is not None:
        wrong.append(("absent", "what a source must not say needs the source: give `source`"))
    else:
        wrong.append(("source", "give a source URL, or `cited` when it has none yet"))
    return source, anchor, wrong


def _fragment_problem(anchor: Anchor) -> str | None:
    """A text fragment is percent-encoded, so what is wrong with its text shows once decoded.

    The same rules as a `quote:` written out: no control characters (`%00`), and text a
    reader can see (`%20%20` or `%E2%80%8B` is nothing to look for).
    """
    for role in ("quote", "quote_end", "prefix", "suffix"):
        value = getattr(anchor, role)
        problem = bad_character(value) if value else None
        if problem is None and value is not None and not _visible(value):
            problem = "it decodes to no visible text (only whitespace or invisible characters)"
        if problem is not None:
            return f"the text fragment's {role}: {problem}"
    return None


def _describe(name: str, document: Document, error: ErrorDetails) -> tuple[int, str]:
    """Turn a pydantic error into its line and 'file:line: claim ID: field: message'."""
    loc = error["loc"]
    line, node, claim_id = 1, document.value, None  # type: (int, object, object)
    for part in loc:
        if isinstance(node, Map) and isinstance(part, str):
            # pydantic saw the keys as text: `1:`, `~:` or `? [a, b]` are found by it
            key = document.key_named(node, part)
            line = document.key_line(node, key, line)
            node = node.get(key)
        elif isinstance(node, Seq) and isinstance(part, int) and part < len(node):
            item = node[part]
            line = node.item_line(part, line)
            if isinstance(item, Map):
                line = item.line
                claim_id = item.get("id") if claim_id is None else claim_id
            node = item
        else:
            break
    field = _field_name(loc)
    if field == "claims" or field.startswith("claims."):
        field = field.removeprefix("claims.") if claim_id is not None else field
    who = f"claim {claim_id!r}: " if claim_id is not None else ""
    return line, f"{name}:{line}: {who}{field}: {error_message(error)}"


def _field_name(loc: tuple[int | str, ...]) -> str:
    """A pydantic location as the claim file names it: `claims.quote`, `sources[2].quote`
    (a part of `sources` counted from 1, as the report's `part K of N`)."""
    named = ""
    for before, part in zip((None, *loc), loc, strict=False):
        if isinstance(part, str):
            named += f".{part}" if named else part
        elif before == "sources":
            named += f"[{part + 1}]"
    return named or "file"


def error_message(error: ErrorDetails) -> str:
    """A pydantic error in the claim file's words: what the key must be, not how it failed.

    The message of a validator of ours is given as it is (pydantic would prefix it with
    "Value error, "); the few kinds of error a claim file can make are said plainly;
    any other keeps pydantic's own message.
    """
    kind, ctx, given = error["type"], error.get("ctx") or {}, error.get("input")
    if kind in ("value_error", "assertion_error") and "error" in ctx:
        return str(ctx["error"])
    if kind == "extra_forbidden":
        return "unknown key"
    if kind == "missing":
        return "required, but missing"
    if kind.startswith(("date_", "datetime_")):
        reason = ctx.get("error")
        because = f" ({reason})" if isinstance(reason, str) and reason else ""
        return f"{_DATE_WANTED}, not {_shown_input(given)}{because}"
    if kind == "string_type":
        quote = "; put it in quotes" if isinstance(given, int | float) else ""
        return f"must be text, not {_kind_of(given)}{quote}"
    if kind == "list_type":
        return f"must be a list, not {_kind_of(given)}"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"must be a mapping of keys, not {_kind_of(given)}"
    if kind == "string_pattern_mismatch" and ctx.get("pattern") == _ID:
        return "must be letters, digits, '.', '_' and '-', starting with a letter or digit"
    if kind == "string_too_long" and isinstance(given, str):
        return f"is {len(given):,} characters long; at most {ctx.get('max_length')} are allowed"
    return error["msg"]


def _kind_of(value: object) -> str:
    """What YAML made of a value, as an author would name it."""
    if value is None:
        return "an empty value"
    if isinstance(value, bool):
        return f"true/false ({str(value).lower()})"
    if isinstance(value, int | float):
        return f"a number ({value!r})"
    if isinstance(value, str):
        return "text"
    if isinstance(value, list | tuple):
        return "a list"
    if isinstance(value, Mapping):
        return "a mapping"
    return f"a {type(value).__name__}"


def _shown_input(value: object) -> str:
    """A value as written, short: an error names what it refused, never all of it."""
    shown = repr(value) if isinstance(value, str) else str(value)
    return shown if len(shown) <= 40 else shown[:39] + "…"


def _bad_text(
    name: str,
    document: Document,
    node: object,
    line: int = 1,
    claim_id: object = None,
    field: str = "file",
) -> Iterator[tuple[int, str]]:
    """'file:line: claim ID: field: problem' for every key and string that is not clean text."""
    if isinstance(node, str):
        problem = bad_character(join_surrogates(node))
        if problem is not None:
            yield line, _where(name, line, claim_id, field, problem)
    elif isinstance(node, Map):
        if field == "claims" and isinstance(node.get("id"), str):
            claim_id = join_surrogates(node["id"])
        for key, value in node.items():
            at = document.key_line(node, key, line)
            yield from _bad_text(name, document, key, at, claim_id, f"key {key!r}")
            yield from _bad_text(name, document, value, at, claim_id, str(key))
    elif isinstance(node, Seq):
        for index, item in enumerate(node):
            at = node.item_line(index, line)
            yield from _bad_text(name, document, item, at, claim_id, field)


def _unreadable_character(name: str, text: str, exc: UnreadableError) -> tuple[int, str]:
    """A character YAML refuses to read (a literal control character), at its line and key.

    YAML stops at it, so there is no parsed node to ask; the key is the nearest
    `key:` at or above that line, which is where a block-style claim file keeps it.
    """
    position, code = exc.position, exc.code
    line = text.count("\n", 0, position) + 1
    column = position - text.rfind("\n", 0, position)
    field = _field_at(text, line)
    return line, _where(name, line, None, field, f"column {column} is {_character_problem(code)}")


def not_utf8_problem(name: str, error: NotUtf8Error) -> str:
    """A claim file's byte that is not UTF-8, at its line and key, as a character YAML
    refuses is (`_unreadable_character`): the text up to the byte holds that key."""
    field = _field_at(error.before, error.line)
    return _where(name, error.line, None, field, str(error))


def _field_at(text: str, line: int) -> str:
    """The nearest `key:` at or above `line`: where a block-style claim file keeps it."""
    rows = text.split("\n", line)[:line]
    keys = (_KEY_LINE.match(row) for row in reversed(rows))
    return next((found.group(1) for found in keys if found), "file")


def _where(name: str, line: int, claim_id: object, field: str, message: str) -> str:
    who = f"claim {claim_id!r}: " if claim_id is not None else ""
    return f"{name}:{line}: {who}{field}: {message}"


def _plain(node: object, converted: set[int]) -> object:
    """The read containers as plain dicts/lists/strings (keys text, pairs joined) for pydantic.

    Only the containers the reader marked `converted` hold anything to change; the rest
    are given to pydantic as they are (a `Map` is a dict).
    """
    if isinstance(node, Mapping):
        if id(node) not in converted:
            return node
        return {join_surrogates(str(k)): _plain(v, converted) for k, v in node.items()}
    if isinstance(node, list):
        if id(node) not in converted:
            return node
        return [_plain(v, converted) for v in node]
    if isinstance(node, str):
        return join_surrogates(str(node))
    return node
