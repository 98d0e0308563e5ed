"""The claim-file reader as it was with ruamel.yaml: the oracle of the libyaml one.

`claimcheck.claims.parse` reads claim files with libyaml's C parser, since ruamel.yaml's
pure-Python reader took most of a run's time on a large desk (10,000 claims: seconds).
This module keeps the reading code as it stood before that port, frozen, so that
`tests/claims/test_read_parity.py` can assert that the new reader gives the same claims
and the same `file:line: field: message` problems on every claim file the tests carry,
on the generated files of `bench/bench_read_claims.py` and on the YAML 1.1/1.2 traps.
Only the pydantic models (the claim-file schema), the wording of their errors
(`error_message`) and the size limit are shared with the parser; do not "fix" this code,
it is the record of the old behaviour. It stops at a file's first kind of problem (a
file whose fields break the schema has no claim checked further, nor its ids counted),
where the parser goes on: the parity test allows the parser those problems more.
"""

from __future__ import annotations

import datetime as dt
import re
from collections.abc import Iterable, Iterator, Mapping
from typing import Any

from pydantic import ValidationError
from ruamel.yaml import YAML
from ruamel.yaml.comments import CommentedMap, CommentedSeq
from ruamel.yaml.composer import Composer, ComposerError
from ruamel.yaml.constructor import RoundTripConstructor
from ruamel.yaml.error import MarkedYAMLError, YAMLError
from ruamel.yaml.events import AliasEvent
from ruamel.yaml.reader import ReaderError

from claimcheck.claims.fragment import FragmentError, split_text_fragment
from claimcheck.claims.parse import file_too_large
from claimcheck.claims.problems import error_message
from claimcheck.claims.schema import ClaimEntry, ClaimFileModel
from claimcheck.claims.yaml_values import MAX_DEPTH
from claimcheck.errors import ClaimFileError
from claimcheck.judge.normalize import normalize_text
from claimcheck.models import Anchor, Claim, ClaimPart

_SURROGATE = re.compile("[\ud800-\udfff]")
# C0 and C1 controls but tab and newline, DEL, and (once pairs are joined) lone surrogates.
_BAD_CHARACTER = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\ud800-\udfff]")
_KEY_LINE = re.compile(r"^\s*(?:-\s+)?([A-Za-z_][\w-]*)\s*:(?:\s|$)")
# The most a check date may lie ahead of today (UTC): a person in UTC+14 checking today.
_DATE_SLACK = dt.timedelta(days=1)


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


class _Constructor(RoundTripConstructor):
    """Leaves dates as text: pydantic validates them, with the line of a bad one."""


_Constructor.add_constructor("tag:yaml.org,2002:timestamp", RoundTripConstructor.construct_yaml_str)


class _RefusedError(ComposerError):
    """YAML a claim file must not use, found by the composer before it builds anything."""


class _Composer(Composer):
    """Refuses anchors, aliases, tags and nesting deeper than MAX_DEPTH, as it meets them.

    An alias is refused at its event, before the composer hands back the node it names,
    so no structure is ever shared, let alone expanded; a claim file never needs one.
    """

    def compose_node(self, parent: Any, index: Any) -> Any:
        event = self.parser.peek_event()
        if self.parser.check_event(AliasEvent) or event.anchor is not None:
            kind = "an alias *" if isinstance(event, AliasEvent) else "an anchor &"
            raise _RefusedError(
                None,
                None,
                f"{kind}{event.anchor}: anchors and aliases are not allowed in a claim"
                " file; write the value out",
                event.start_mark,
            )
        tag = getattr(event, "ctag", None)
        if tag is not None:  # `!!binary` smuggles bytes past the text checks; `!!python/…`
            raise _RefusedError(
                None,
                None,
                f"a tag {tag}: tags are not allowed in a claim file; write plain text",
                event.start_mark,
            )
        if self.depth >= MAX_DEPTH:
            raise _RefusedError(
                None,
                None,
                f"nested more than {MAX_DEPTH} levels deep; a claim file needs 4",
                event.start_mark,
            )
        return super().compose_node(parent, index)


def _yaml() -> YAML:
    yaml = YAML(typ="rt", pure=True)
    yaml.Constructor = _Constructor
    yaml.Composer = _Composer
    return yaml


def parse_claims(files: Iterable[tuple[str, str]], *, today: dt.date | None = None) -> list[Claim]:
    """Parse (file name, text) pairs into claims; raise ClaimFileError listing every problem.

    `today` (default: today in UTC) bounds the check dates: none may be after tomorrow.
    """
    problems: list[str] = []
    claims: list[Claim] = []
    seen: dict[str, str] = {}
    latest = (today or dt.datetime.now(dt.UTC).date()) + _DATE_SLACK
    for name, text in files:
        for claim in _parse_file(name, text, problems, latest):
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


def _parse_file(name: str, text: str, problems: list[str], latest: dt.date) -> list[Claim]:
    too_large = file_too_large(name, len(text.encode("utf-8", "replace")))
    if too_large is not None:  # milliseconds, even for 20 MB
        problems.append(too_large)
        return []
    try:
        doc = _yaml().load(text)
    except _RefusedError as exc:
        line = _mark_line(exc)
        problems.append(_where(name, line, None, _field_at(text, line), str(exc.problem)))
        return []
    except ReaderError as exc:
        problems.append(_unreadable_character(name, text, exc))
        return []
    except MarkedYAMLError as exc:
        line = _mark_line(exc)
        problems.append(f"{name}:{line}: invalid YAML near {_field_at(text, line)}: {_told(exc)}")
        return []
    except (YAMLError, RecursionError, ValueError, TypeError) as exc:  # no mark to show
        problems.append(f"{name}:1: file: invalid YAML: {type(exc).__name__}: {exc}")
        return []
    if not isinstance(doc, CommentedMap):
        problems.append(f"{name}:1: a claim file must be a mapping with page, checked, claims")
        return []
    text_problems = list(_bad_text(name, doc))
    if text_problems:  # reported alone: later messages could quote the bad text
        problems.extend(text_problems)
        return []
    try:
        model = ClaimFileModel.model_validate(_plain(doc), context={"latest": latest})
    except ValidationError as exc:
        for error in exc.errors():
            problems.append(_describe(name, doc, error["loc"], error_message(error)))
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
    if entry.sources:  # added after the port, carried as the models read it (see below)
        parts = tuple(_part_of(part) for part in entry.sources)
        first = parts[0]
        return Claim(
            id=entry.id,
            page=model.page,
            claim=entry.claim.strip(),
            source=first.source,
            anchor=first.anchor,
            checked=entry.checked or model.checked,
            scope=first.scope,
            absent=first.absent,
            parts=parts,
            file=name,
            line=line,
        )
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
        if anchor is None and not entry.absent:  # absence claims came later (see below)
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
        # Fields added to claim files after the port, carried as the models read them, so
        # the parity stays about reading YAML: `scope`, `absent` (a text or a list), and
        # `sources` (a claim on several sources, above).
        scope=entry.scope,
        absent=_texts(entry.absent),
        file=name,
        line=line,
    )


def _check_fragment(anchor: Anchor) -> None:
    """A text fragment is percent-encoded, so what is wrong with its text shows once decoded.

    The same rules as a `quote:` written out: no control characters (`%00`), and text a
    reader can see (`%20%20` or `%E2%80%8B` is nothing to look for).
    """
    for role in ("quote", "quote_end", "prefix", "suffix"):
        value = getattr(anchor, role)
        problem = bad_character(value) if value else None
        if problem is None and value is not None and not normalize_text(value):
            problem = "it decodes to no visible text (only whitespace or invisible characters)"
        if problem is not None:
            raise _FieldError("source", f"the text fragment's {role}: {problem}")


def _part_of(part: Any) -> ClaimPart:
    """A part of `sources`, its text fragment taken off its URL as a claim's would be."""
    source, fragment = split_text_fragment(part.source.strip())
    return ClaimPart(
        source=source,
        anchor=_anchor_of(part) or fragment,
        scope=part.scope,
        absent=_texts(part.absent),
    )


def _texts(value: Any) -> tuple[str, ...]:
    texts = [value] if isinstance(value, str) else value or []
    return tuple(dict.fromkeys(t.strip() for t in texts))


def _anchor_of(entry: Any) -> Anchor | None:
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
            # pydantic saw the keys as text: `1:`, `~:` or `? [a, b]` are found by it
            key = next((k for k in node if k == part or str(k) == part), part)
            line = _key_line(node, key, line)
            node = node.get(key)
        elif isinstance(node, CommentedSeq) and isinstance(part, int) and part < len(node):
            item = node[part]
            line = _item_line(node, part, line)
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
    field = _field_at(text, line)
    return _where(name, line, None, field, f"column {column} is {_character_problem(code)}")


def _told(exc: MarkedYAMLError) -> str:
    """YAML's own words: what it was reading (and from which line) and what it found."""
    context, problem = exc.context, exc.problem
    if context and exc.context_mark is not None and exc.context_mark is not exc.problem_mark:
        context = f"{context} (from line {exc.context_mark.line + 1})"
    return ", ".join(str(part) for part in (context, problem) if part) or "cannot be read"


def _mark_line(exc: MarkedYAMLError) -> int:
    mark = exc.problem_mark or exc.context_mark
    return int(mark.line) + 1 if mark is not None else 1


def _field_at(text: str, line: int) -> str:
    """The nearest `key:` at or above `line`: where a block-style claim file keeps it."""
    rows = text.split("\n", line)[:line]
    keys = (_KEY_LINE.match(row) for row in reversed(rows))
    return next((found.group(1) for found in keys if found), "file")


def _where(name: str, line: int, claim_id: object, field: str, message: str) -> str:
    who = f"claim {claim_id!r}: " if claim_id is not None else ""
    return f"{name}:{line}: {who}{field}: {message}"


def _key_line(node: CommentedMap, key: object, default: int) -> int:
    try:
        return int(node.lc.key(key)[0]) + 1
    except (KeyError, TypeError):
        return default


def _item_line(node: CommentedSeq, index: int, default: int) -> int:
    try:
        return int(node.lc.item(index)[0]) + 1
    except (KeyError, TypeError, IndexError):
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
