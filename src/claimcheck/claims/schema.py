"""The claim file's schema: pydantic models of a file, a claim and a source part.

The models say what each field may hold (their validators are `claims.field_checks`);
the JSON Schema editors complete and validate claim files with is generated from them
(`claim_file_schema`), and shipped as `claims.schema.json`.
"""

from __future__ import annotations

import datetime as dt
import re
from typing import Any, Literal

from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    field_validator,
)

from claimcheck.claims.field_checks import (
    a_date,
    a_selector,
    a_url,
    absent_texts,
    an_owner,
    no_credentials,
    not_ahead,
    not_blank,
    shown_input,
)

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

ID = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
REVIEW_VERSION = r"^[0-9a-f]{16}$"
"""An acknowledged version as `ack` writes it (`judge.review.version_of`)."""
ACKNOWLEDGEABLE_NAMES = ("context-changed", "moved", "expired")
"""The verdicts a `reviewed:` entry may name (`judge.review.ACKNOWLEDGEABLE`)."""
# What JSON Schema can say of a text the parser refuses when blank: it holds a non-space.
_TEXT_SCHEMA: dict[str, Any] = {"pattern": "\\S"}
SOURCE_KEYS = ("quote", "quote_end", "prefix", "suffix", "absent", "scope", "render")
"""What a claim says about its source: what to find there, where, and how to read it."""


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
_OWNER_DESCRIPTION = (
    "Who looks after {what}: a name, @handle, team or e-mail address (one word). "
    "Notification routes in claimcheck.toml are chosen by it{more}."
)
_OWNER_SCHEMA: dict[str, Any] = {"pattern": "^[^\\s]{1,100}$"}
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

    _blank = field_validator("quote", "quote_end", "prefix", "suffix")(not_blank)
    _absent = field_validator("absent")(absent_texts)
    _selector = field_validator("scope")(a_selector)
    _url = field_validator("source")(a_url)


class ReviewEntry(BaseModel):
    """A person's acknowledgement of a claim's review verdict (`reviewed:`), as
    `claimcheck ack` writes it: quiet while the source stays as it was then."""

    model_config = ConfigDict(extra="forbid", title="Reviewed")

    date: dt.date = Field(description="The day a person looked (YYYY-MM-DD).")
    note: str = Field(
        description="What the person found: why the claim still holds.",
        json_schema_extra=_TEXT_SCHEMA,
    )
    verdict: Literal["context-changed", "moved", "expired"] = Field(
        description="The review verdict acknowledged."
    )
    version: str = Field(
        pattern=REVIEW_VERSION,
        description="The version of the source the verdict was about, as `claimcheck ack` "
        "computed it: the claim is flagged again once the source no longer gives it.",
    )
    until: dt.date | None = Field(
        default=None,
        description="The last day the acknowledgement holds (YYYY-MM-DD); unset, until the "
        "source changes.",
    )
    by: str | None = Field(default=None, description="Who looked.", json_schema_extra=_TEXT_SCHEMA)

    _blank = field_validator("note", "by")(not_blank)
    _dates = field_validator("date", "until", mode="before")(a_date)
    _ahead = field_validator("date")(not_ahead)

    @field_validator("verdict", mode="before")
    @classmethod
    def _acknowledgeable(cls, value: object) -> object:
        if value in ACKNOWLEDGEABLE_NAMES:
            return value
        raise ValueError(
            f"{shown_input(value)} cannot be acknowledged: only a review verdict can "
            f"({', '.join(ACKNOWLEDGEABLE_NAMES)}); a stale claim must be fixed"
        )

    @field_validator("version", mode="before")
    @classmethod
    def _a_version(cls, value: object) -> object:
        if isinstance(value, str) and re.fullmatch(REVIEW_VERSION, value):
            return value
        raise ValueError(
            f"must be the 16 hexadecimal digits `claimcheck ack` writes, not {shown_input(value)}"
        )


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
                "properties": {key: {"type": "null"} for key in ("source", "sources", *SOURCE_KEYS)}
            },
        },
    )

    id: str = Field(
        pattern=ID,
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
    owner: str | None = Field(
        default=None,
        description=_OWNER_DESCRIPTION.format(what="this claim", more="; it overrides the file's"),
        json_schema_extra=_OWNER_SCHEMA,
    )
    sources: list[SourcePart] | None = Field(
        default=None,
        description="The sources a claim rests on when it rests on several (instead of "
        "`source`): two or more, each with its own quote or `absent` (and scope). The "
        "claim holds when every one holds; its verdict is the worst of theirs.",
        json_schema_extra={"minItems": 2},
    )
    reviewed: ReviewEntry | None = Field(
        default=None,
        description="A person's acknowledgement of the claim's review verdict "
        "(context-changed, moved, expired), written by `claimcheck ack`: the verdict is "
        "reported apart and fails no gate until the source changes again or `until` passes.",
    )

    _blank = field_validator("claim", "quote", "quote_end", "prefix", "suffix", "cited")(not_blank)
    _cited = field_validator("cited")(no_credentials)

    _absent = field_validator("absent")(absent_texts)
    _selector = field_validator("scope")(a_selector)

    _date = field_validator("checked", mode="before")(a_date)
    _ahead = field_validator("checked")(not_ahead)

    _url = field_validator("source")(a_url)
    _owner = field_validator("owner")(an_owner)


class ClaimFileModel(BaseModel):
    """A claim file: one published page and its claims."""

    model_config = ConfigDict(extra="forbid", title="claimcheck claim file")

    page: str = Field(
        pattern=ID, max_length=MAX_ID_LENGTH, description="Slug of the published page."
    )
    title: str | None = Field(default=None, description="Title of the published page.")
    checked: dt.date = Field(description="Default check date of the claims below.")
    owner: str | None = Field(
        default=None,
        description=_OWNER_DESCRIPTION.format(what="the page's claims", more=""),
        json_schema_extra=_OWNER_SCHEMA,
    )
    claims: list[ClaimEntry] = Field(description="The page's claims.")

    _date = field_validator("checked", mode="before")(a_date)
    _ahead = field_validator("checked")(not_ahead)
    _owner = field_validator("owner")(an_owner)


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
