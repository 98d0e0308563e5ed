"""Parse claim files (YAML, one per published page) into `Claim` models.

Every problem is reported with file, line, claim id and field, and all problems of
all files are collected before anything fails, so one run shows the author every fix
to make. Parsing is pure: it takes file names and texts, never opens a file.
"""

from __future__ import annotations

import datetime as dt
from collections.abc import Iterable, Mapping
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError

from claimcheck.claims.fragment import FragmentError, split_text_fragment
from claimcheck.errors import ClaimFileError
from claimcheck.models import Anchor, Claim

_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"


def _not_blank(value: str | None) -> str | None:
    if value is not None and not value.strip():
        raise ValueError("must not be empty or whitespace only")
    return value


class ClaimEntry(BaseModel):
    """One claim as written in a claim file."""

    model_config = ConfigDict(extra="forbid", title="Claim")

    id: str = Field(pattern=_ID, description="Stable id, unique across all claim files.")
    claim: str = Field(description="The statement as the page states it.")
    source: str | None = Field(
        default=None,
        description="URL of the source; may be a text-fragment URL (#:~:text=...) "
        "that carries the quote. Omit it, and give `cited`, when the page's source has "
        "no checkable address yet.",
    )
    cited: str | None = Field(
        default=None,
        description="What the page cites when there is no source URL ('citation needed').",
    )
    quote: str | None = Field(
        default=None, description="The supporting text as a reader sees it on the source."
    )
    quote_end: str | None = Field(
        default=None, description="End of a range quote: the text runs from quote to quote_end."
    )
    prefix: str | None = Field(
        default=None, description="Text right before the quote, to pick one occurrence."
    )
    suffix: str | None = Field(
        default=None, description="Text right after the quote, to pick one occurrence."
    )
    checked: dt.date | None = Field(
        default=None, description="When a person last checked this claim; defaults to the file's."
    )

    _blank = field_validator("claim", "quote", "quote_end", "prefix", "suffix", "cited")(_not_blank)

    @field_validator("source")
    @classmethod
    def _url(cls, value: str | None) -> str | None:
        if value is None:
            return value
        parts = urlsplit(value.strip())
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise ValueError("must be an http(s) URL with a host")
        if any(c.isspace() for c in value.strip()):
            raise ValueError("must not contain whitespace (percent-encode it)")
        return value.strip()


class ClaimFileModel(BaseModel):
    """A claim file: one published page and its claims."""

    model_config = ConfigDict(extra="forbid", title="claimcheck claim file")

    page: str = Field(pattern=_ID, description="Slug of the published page.")
    title: str | None = Field(default=None, description="Title of the published page.")
    checked: dt.date = Field(description="Default check date of the claims below.")
    claims: list[ClaimEntry] = Field(description="The page's claims.")


class _Constructor(RoundTripConstructor):
    """Leaves dates as text: pydantic validates them, with the line of a bad one."""


_Constructor.add_constructor("tag:yaml.org,2002:timestamp", RoundTripConstructor.construct_yaml_str)


def _yaml() -> YAML:
    yaml = YAML(typ="rt", pure=True)
    yaml.Constructor = _Constructor
    return yaml


def claim_file_schema() -> dict[str, Any]:
    """The JSON Schema of a claim file, for editors' completion and validation."""
    schema = ClaimFileModel.model_json_schema()
    schema["$schema"] = "https://json-schema.org/draft/2020-12/schema"
    return schema


def parse_claims(files: Iterable[tuple[str, str]]) -> list[Claim]:
    """Parse (file name, text) pairs into claims; raise ClaimFileError listing every problem."""
    problems: list[str] = []
    claims: list[Claim] = []
    seen: dict[str, str] = {}
    for name, text in files:
        for claim in _parse_file(name, text, problems):
            where = f"{claim.file}:{claim.line}"
            if claim.id in seen:
                problems.append(
                    f"{where}: claim {claim.id!r}: id: duplicate id, first defined at "
                    f"{seen[claim.id]}"
                )
                continue
            seen[claim.id] = where
            claims.append(claim)
    if problems:
        raise ClaimFileError(problems)
    return claims


def _parse_file(name: str, text: str, problems: list[str]) -> list[Claim]:
    try:
        doc = _yaml().load(text)
    except MarkedYAMLError as exc:
        mark = exc.problem_mark or exc.context_mark
        line = mark.line + 1 if mark is not None else 1
        problems.append(f"{name}:{line}: invalid YAML: {exc.problem or exc.context}")
        return []
    if not isinstance(doc, CommentedMap):
        problems.append(f"{name}:1: a claim file must be a mapping with page, checked, claims")
        return []
    try:
        model = ClaimFileModel.model_validate(_plain(doc))
    except ValidationError as exc:
        for error in exc.errors():
            problems.append(_describe(name, doc, error["loc"], error["msg"]))
        return []
    claims: list[Claim] = []
    for index, entry in enumerate(model.claims):
        item = doc["claims"][index]
        line = item.lc.line + 1
        try:
            claims.append(_to_claim(name, line, model, entry))
        except _FieldError as problem:
            line = _key_line(item, problem.field, line)
            problems.append(f"{name}:{line}: claim {entry.id!r}: {problem.field}: {problem}")
    return claims


class _FieldError(ValueError):
    def __init__(self, field: str, message: str) -> None:
        super().__init__(message)
        self.field = field


def _to_claim(name: str, line: int, model: ClaimFileModel, entry: ClaimEntry) -> Claim:
    anchor = _anchor_of(entry)
    source = entry.source
    if source is not None:
        try:
            source, fragment_anchor = split_text_fragment(source)
        except FragmentError as exc:
            raise _FieldError("source", str(exc)) from exc
        if fragment_anchor is not None and anchor is not None:
            raise _FieldError(
                "quote", "the source URL already carries a text fragment; give the quote once"
            )
        anchor = anchor or fragment_anchor
        if anchor is None:
            raise _FieldError("quote", "a claim with a source needs a quote")
    elif entry.cited is None:
        raise _FieldError("source", "give a source URL, or `cited` when it has none yet")
    elif anchor is None and any((entry.quote_end, entry.prefix, entry.suffix)):
        raise _FieldError("quote", "quote_end, prefix and suffix need a quote")
    return Claim(
        id=entry.id,
        page=model.page,
        claim=entry.claim.strip(),
        source=source,
        anchor=anchor,
        checked=entry.checked or model.checked,
        cited=entry.cited,
        file=name,
        line=line,
    )


def _anchor_of(entry: ClaimEntry) -> Anchor | None:
    if entry.quote is None:
        if entry.quote_end or entry.prefix or entry.suffix:
            raise _FieldError("quote", "quote_end, prefix and suffix need a quote")
        return None
    return Anchor(
        quote=entry.quote, quote_end=entry.quote_end, prefix=entry.prefix, suffix=entry.suffix
    )


def _describe(name: str, doc: CommentedMap, loc: tuple[int | str, ...], msg: str) -> str:
    """Turn a pydantic error location into 'file:line: claim ID: field: message'."""
    line, node, claim_id = 1, doc, None
    for part in loc:
        if isinstance(node, CommentedMap) and isinstance(part, str):
            line = _key_line(node, part, line)
            node = node.get(part)
        elif isinstance(node, CommentedSeq) and isinstance(part, int) and part < len(node):
            item = node[part]
            if isinstance(item, CommentedMap):
                line = item.lc.line + 1
                claim_id = item.get("id")
            node = item
        else:
            break
    field = ".".join(str(p) for p in loc if isinstance(p, str)) or "file"
    if field == "claims" or field.startswith("claims."):
        field = field.removeprefix("claims.") if claim_id is not None else field
    who = f"claim {claim_id!r}: " if claim_id is not None else ""
    msg = msg.replace("Extra inputs are not permitted", "unknown key")
    return f"{name}:{line}: {who}{field}: {msg}"


def _key_line(node: CommentedMap, key: str, default: int) -> int:
    try:
        return int(node.lc.key(key)[0]) + 1
    except (KeyError, TypeError):
        return default


def _plain(node: object) -> object:
    """ruamel's round-trip containers as plain dicts/lists/strings for pydantic."""
    if isinstance(node, Mapping):
        return {str(k): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    if isinstance(node, str):
        return str(node)
    return node
