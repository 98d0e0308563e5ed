"""Parse claim files (YAML, one per published page) into `Claim` models.

Every problem is reported with file, line, claim id and field, and all problems of
all files are collected before anything fails, so one run shows the author every fix
to make. Parsing is pure: it takes file names and texts, never opens a file.

Text is cleaned here, at the one door claims come in by: JSON writers escape a
character outside the BMP as a surrogate pair (`"\\ud83d\\udda5"`), which YAML reads as
two lone halves that no later stage can encode, so pairs are joined into the character
they spell, and what still cannot be text (a lone half, a control character) is a
claim-file error rather than a traceback in a report writer.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any
from urllib.parse import urlsplit

from pydantic import BaseModel, ConfigDict, Field, ValidationError, field_validator
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError
from ruamel.yaml.reader import ReaderError

from claimcheck.claims.fragment import FragmentError, split_text_fragment
from claimcheck.errors import ClaimFileError
from claimcheck.models import Anchor, Claim

_ID = r"^[A-Za-z0-9][A-Za-z0-9._-]*$"
_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 and C1 controls but tab and newline, DEL, and (once pairs are joined) lone surrogates.
_BAD_CHARACTER = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_KEY_LINE = re.compile(r"^\s*(?:-\s+)?([A-Za-z_][\w-]*)\s*:(?:\s|$)")


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
    except ReaderError as exc:
        problems.append(_unreadable_character(name, text, exc))
        return []
    if not isinstance(doc, CommentedMap):
        problems.append(f"{name}:1: a claim file must be a mapping with page, checked, claims")
        return []
    text_problems = list(_bad_text(name, doc))
    if text_problems:  # reported alone: later messages could quote the bad text
        problems.extend(text_problems)
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
        if fragment_anchor is not None:
            _check_fragment(fragment_anchor)
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


def _check_fragment(anchor: Anchor) -> None:
    """A text fragment is percent-encoded, so its bad characters only show once decoded."""
    for role in ("quote", "quote_end", "prefix", "suffix"):
        value = getattr(anchor, role)
        problem = bad_character(value) if value else None
        if problem is not None:
            raise _FieldError("source", f"the text fragment's {role}: {problem}")


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


def _bad_text(
    name: str, node: object, line: int = 1, claim_id: object = None, field: str = "file"
) -> Iterator[str]:
    """'file:line: claim ID: field: problem' for every key and string that is not clean text."""
    if isinstance(node, str):
        problem = bad_character(join_surrogates(node))
        if problem is not None:
            yield _where(name, line, claim_id, field, problem)
    elif isinstance(node, CommentedMap):
        if field == "claims" and isinstance(node.get("id"), str):
            claim_id = join_surrogates(node["id"])
        for key, value in node.items():
            at = _key_line(node, key, line)
            yield from _bad_text(name, key, at, claim_id, f"key {key!r}")
            yield from _bad_text(name, value, at, claim_id, str(key))
    elif isinstance(node, CommentedSeq):
        for index, item in enumerate(node):
            yield from _bad_text(name, item, int(node.lc.item(index)[0]) + 1, claim_id, field)


def _unreadable_character(name: str, text: str, exc: ReaderError) -> str:
    """A character YAML refuses to read (a literal control character), at its line and key.

    YAML stops at it, so there is no parsed node to ask; the key is the nearest
    `key:` at or above that line, which is where a block-style claim file keeps it.
    """
    position, code = int(exc.position), int(exc.character)
    line = text.count("\n", 0, position) + 1
    column = position - text.rfind("\n", 0, position)
    keys = (_KEY_LINE.match(row) for row in reversed(text.split("\n")[:line]))
    field = next((found.group(1) for found in keys if found), "file")
    return _where(name, line, None, field, f"column {column} is {_character_problem(code)}")


def _where(name: str, line: int, claim_id: object, field: str, message: str) -> str:
    who = f"claim {claim_id!r}: " if claim_id is not None else ""
    return f"{name}:{line}: {who}{field}: {message}"


def _key_line(node: CommentedMap, key: str, default: int) -> int:
    try:
        return int(node.lc.key(key)[0]) + 1
    except (KeyError, TypeError):
        return default


def _plain(node: object) -> object:
    """ruamel's round-trip containers as plain dicts/lists/strings (pairs joined) for pydantic."""
    if isinstance(node, Mapping):
        return {join_surrogates(str(k)): _plain(v) for k, v in node.items()}
    if isinstance(node, list):
        return [_plain(v) for v in node]
    if isinstance(node, str):
        return join_surrogates(str(node))
    return node
