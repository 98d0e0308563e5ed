"""How a claim-file problem is worded: `file:line: claim 'id': field: message`.

The line is found from the nodes the YAML was read into (`yaml_values.Document`), the
field from pydantic's location, and pydantic's errors are put in words of our own
(`error_message`), never the validation library's.
"""

from __future__ import annotations

import difflib
import re
import types
import typing
from collections.abc import Iterator, Mapping

from pydantic import BaseModel
from pydantic_core import ErrorDetails

from claimcheck.claims.field_checks import (
    DATE_WANTED,
    bad_character,
    character_problem,
    join_surrogates,
    shown_input,
)
from claimcheck.claims.schema import ID, ClaimFileModel
from claimcheck.claims.yaml_values import (
    Document,
    Map,
    Seq,
    UnreadableError,
)
from claimcheck.utf8 import NotUtf8Error

_KEY_LINE = re.compile(r"^\s*(?:-\s+)?([A-Za-z_][\w-]*)\s*:(?:\s|$)")


Problems = list[tuple[int, str]]
"""One file's problems as (line, 'file:line: claim ID: field: message'), to sort by line."""


def describe(name: str, document: Document, error: ErrorDetails) -> tuple[int, str]:
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
        return "unknown key" + _closest_key(error["loc"])
    if kind == "missing":
        return "required, but missing"
    if kind.startswith(("date_", "datetime_")):
        reason = ctx.get("error")
        because = f" ({reason})" if isinstance(reason, str) and reason else ""
        return f"{DATE_WANTED}, not {shown_input(given)}{because}"
    if kind == "string_type":
        quote = "; put it in quotes" if isinstance(given, int | float) else ""
        return f"must be text, not {_kind_of(given)}{quote}"
    if kind == "list_type":
        return f"must be a list, not {_kind_of(given)}"
    if kind in ("model_type", "dict_type", "model_attributes_type"):
        return f"must be a mapping of keys, not {_kind_of(given)}"
    if kind == "string_pattern_mismatch" and ctx.get("pattern") == ID:
        return "must be letters, digits, '.', '_' and '-', starting with a letter or digit"
    if kind == "string_too_long" and isinstance(given, str):
        return f"is {len(given):,} characters long; at most {ctx.get('max_length')} are allowed"
    return error["msg"]


def _closest_key(loc: tuple[int | str, ...]) -> str:
    """`; did you mean 'quote'?` when one key of the mapping an unknown key is in is
    close to it (a typo: `qoute`, `quote-end`), else nothing.

    The mapping's keys are the fields of the model at that place in a claim file
    (the file, a claim, a part of `sources`); a place the walk does not know offers
    no guess. The key written is untrusted and is not repeated here (the problem's
    field names it, cleaned); the key proposed is one of ours.
    """
    if not loc or not isinstance(loc[-1], str):
        return ""
    model: type[BaseModel] | None = ClaimFileModel
    for part in loc[:-1]:
        if model is None:
            return ""
        if isinstance(part, str):
            field = model.model_fields.get(part)
            model = _model_in(field.annotation) if field is not None else None
    if model is None:
        return ""
    close = difflib.get_close_matches(loc[-1].replace("-", "_"), list(model.model_fields), n=1)
    return f"; did you mean {close[0]!r}?" if close else ""


def _model_in(annotation: object) -> type[BaseModel] | None:
    """The model a field holds, itself or in a list or an optional (`list[SourcePart] |
    None` holds `SourcePart`), else None."""
    if isinstance(annotation, type) and issubclass(annotation, BaseModel):
        return annotation
    if typing.get_origin(annotation) in (list, tuple, typing.Union, types.UnionType):
        for argument in typing.get_args(annotation):
            found = _model_in(argument)
            if found is not None:
                return found
    return None


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


def bad_text(
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
            yield line, where(name, line, claim_id, field, problem)
    elif isinstance(node, Map):
        if field == "claims" and isinstance(node.get("id"), str):
            claim_id = join_surrogates(node["id"])
        for key, value in node.items():
            at = document.key_line(node, key, line)
            yield from bad_text(name, document, key, at, claim_id, f"key {key!r}")
            yield from bad_text(name, document, value, at, claim_id, str(key))
    elif isinstance(node, Seq):
        for index, item in enumerate(node):
            at = node.item_line(index, line)
            yield from bad_text(name, document, item, at, claim_id, field)


def unreadable_character(name: str, text: str, exc: UnreadableError) -> tuple[int, str]:
    """A character YAML refuses to read (a literal control character), at its line and key.

    YAML stops at it, so there is no parsed node to ask; the key is the nearest
    `key:` at or above that line, which is where a block-style claim file keeps it.
    """
    position, code = exc.position, exc.code
    line = text.count("\n", 0, position) + 1
    column = position - text.rfind("\n", 0, position)
    field = field_at(text, line)
    return line, where(name, line, None, field, f"column {column} is {character_problem(code)}")


def not_utf8_problem(name: str, error: NotUtf8Error) -> str:
    """A claim file's byte that is not UTF-8, at its line and key, as a character YAML
    refuses is (`unreadable_character`): the text up to the byte holds that key."""
    field = field_at(error.before, error.line)
    return where(name, error.line, None, field, str(error))


def field_at(text: str, line: int) -> str:
    """The nearest `key:` at or above `line`: where a block-style claim file keeps it."""
    rows = text.split("\n", line)[:line]
    keys = (_KEY_LINE.match(row) for row in reversed(rows))
    return next((found.group(1) for found in keys if found), "file")


def where(name: str, line: int, claim_id: object, field: str, message: str) -> str:
    who = f"claim {claim_id!r}: " if claim_id is not None else ""
    return f"{name}:{line}: {who}{field}: {message}"
