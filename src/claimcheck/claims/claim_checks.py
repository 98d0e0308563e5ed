"""What the schema leaves to the parser, checked on each claim as written.

A claim needs a source or `cited`; `quote_end`, `prefix` and `suffix` need a quote; a
claim with `sources` gives its source keys in its parts, each part checked alike; a
text-fragment URL must spell a fragment. Each check gives the (field, message) pairs
of what is wrong, which `add_claim_problems` turns into problems at the claim's lines.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from claimcheck.claims.field_checks import bad_character, visible
from claimcheck.claims.fragment import FragmentError, split_text_fragment
from claimcheck.claims.problems import Problems, where
from claimcheck.claims.schema import SOURCE_KEYS
from claimcheck.claims.yaml_values import (
    Document,
    Map,
    Seq,
)
from claimcheck.forges.github import repository_field
from claimcheck.models import Anchor


def absent_held(value: str | list[str] | None) -> tuple[str, ...]:
    """`absent` as the claim holds it: its texts, stripped, each once, in order."""
    if value is None:  # most claims say nothing is absent
        return ()
    texts = [value] if isinstance(value, str) else value
    return tuple(dict.fromkeys(text.strip() for text in texts))


CLAIM_KEYS = ("source", "cited", *SOURCE_KEYS)
"""The keys `anchor_checks` reads; also those a claim with `sources` gives in its parts
(or not at all)."""
FIELD_KEYS = ("field", "value", "matches")
"""What a claim on a field gives instead of a quote."""
_ANCHOR_KEYS = frozenset({"quote", "quote_end", "prefix", "suffix"})
_NEEDS_QUOTE = "quote_end, prefix and suffix need a quote"


def add_claim_problems(
    name: str,
    document: Document,
    item: Map,
    claim_id: object,
    wrong: list[tuple[str, str]],
    problems: Problems,
) -> None:
    for field, message in wrong:
        line = document.key_line(item, field, item.line)
        named = field if claim_id is not None else f"claims.{field}"  # as `describe` names it
        problems.append((line, where(name, line, claim_id, named, message)))


_PartProblems = list[tuple[int, str, str]]
"""(part index from 0, field, problem) of the parts of a claim with `sources`."""


def several_checks(values: Mapping[str, Any], count: int | None) -> list[tuple[str, str]]:
    """(field, problem)s of a claim with `sources` (`count` of them) beside its parts'."""
    wrong: list[tuple[str, str]] = []
    for key in (*CLAIM_KEYS, *FIELD_KEYS):
        if values.get(key) is None:
            continue
        if key in FIELD_KEYS:
            message = "a claim on a field names one source: give `source`, not `sources`"
        elif key == "source":
            message = "give `source` (one source) or `sources` (several), not both"
        elif key == "cited":
            message = "`cited` is for a claim without a source; this one has `sources`"
        else:
            message = f"a claim with `sources` gives `{key}` in the part it is about"
        wrong.append((key, message))
    if count is not None and count < 2:
        wrong.append(("sources", "list two or more sources; a claim on one source gives `source`"))
    return wrong


def parts_checks(
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
        got = {key: None if key in refused else part.get(key) for key in CLAIM_KEYS}
        if isinstance(got["source"], str):
            got["source"] = got["source"].strip()  # as the `source` validator gives it
        source, anchor, problems = anchor_checks(got, failed=refused)
        if source is None and "source" not in refused:
            problems.append(("source", "each of `sources` needs its source URL"))
        wrong.extend((index, field, message) for field, message in problems)
        found.append(
            {
                "source": source,
                "anchor": anchor,
                "scope": got["scope"],
                "absent": absent_held(got["absent"]),
                "render": got["render"],
            }
        )
    return found, wrong


def add_part_problems(
    name: str,
    document: Document,
    item: Map,
    claim_id: object,
    wrong: _PartProblems,
    problems: Problems,
) -> None:
    """Each part's problems at the line of its key, named `sources[K].key` (K from 1,
    as the report's `part K of N`)."""
    items = item.get("sources")
    for index, field, message in wrong:
        part = items[index] if isinstance(items, Seq) and index < len(items) else None
        start = items.item_line(index, item.line) if isinstance(items, Seq) else item.line
        line = document.key_line(part, field, part.line) if isinstance(part, Map) else start
        named = f"sources[{index + 1}].{field}"
        problems.append((line, where(name, line, claim_id, named, message)))


def anchor_checks(
    values: Mapping[str, Any], *, failed: frozenset[str] = frozenset()
) -> tuple[str | None, dict[str, str | None] | None, list[tuple[str, str]]]:
    """The source URL (its text fragment taken off), the anchor (`Anchor`'s fields, plain
    values), and (field, problem)s.

    The values are a claim's by key (`CLAIM_KEYS`), valid each (`failed` names the keys
    pydantic refused, whose values are not looked at): what is checked here is how they
    go together. `cited` stands instead of a source, so a claim that gives it gives no
    source and nothing about one (a quote would be ignored without a word), as a claim
    with `sources` gives no `source` (`several_checks`).
    """
    if values.get("cited") is None:
        return _source_checks(values, failed)
    if values.get("source") is None and "source" not in failed:
        return (
            None,
            None,
            [(k, _without_source(k)) for k in SOURCE_KEYS if values.get(k) is not None],
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
) -> tuple[str | None, dict[str, str | None] | None, list[tuple[str, str]]]:
    """`anchor_checks` of a claim that gives no `cited`, or a source beside it."""
    get = values.get
    source, quote, quote_end = get("source"), get("quote"), get("quote_end")
    prefix, suffix, absent = get("prefix"), get("suffix"), get("absent")
    wrong: list[tuple[str, str]] = []
    quote_failed = bool(failed) and not failed.isdisjoint(_ANCHOR_KEYS)
    anchor: dict[str, str | None] | None = None
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
            anchor = fragment.model_dump()  # plain values, as a written quote gives
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
        if problem is None and value is not None and not visible(value):
            problem = "it decodes to no visible text (only whitespace or invisible characters)"
        if problem is not None:
            return f"the text fragment's {role}: {problem}"
    return None


def is_field_claim(values: Mapping[str, Any]) -> bool:
    """Whether a claim as written is about a field (it gives one of `FIELD_KEYS`)."""
    return any(values.get(key) is not None for key in FIELD_KEYS)


def field_checks(
    values: Mapping[str, Any], *, failed: frozenset[str] = frozenset()
) -> tuple[str | None, dict[str, str | None] | None, list[tuple[str, str]]]:
    """The source URL, the `FieldValue`'s fields (plain values) and (field, problem)s of
    a claim on a field: a source, no quote (a claim checks a quote or a field, not both),
    and `value` or `matches`, not both. `values` holds `CLAIM_KEYS` and `FIELD_KEYS`."""
    get = values.get
    wrong: list[tuple[str, str]] = []
    source = get("source")
    for key in SOURCE_KEYS:
        if get(key) is not None:
            words = _NOT_BOTH if key in _ANCHOR_KEYS or key == "absent" else _NOT_READ
            wrong.append((key, words.format(key=key)))
    if get("cited") is not None:
        wrong.append(("cited", "a claim on a field names its source: give `source`, not `cited`"))
    if isinstance(source, str) and "source" not in failed:
        try:
            source, fragment = split_text_fragment(source)
        except FragmentError as exc:
            wrong.append(("source", str(exc)))
        else:
            if fragment is not None:
                wrong.append(("source", _NOT_BOTH.format(key="text fragment")))
    elif source is None and "source" not in failed:
        wrong.append(("source", "a claim on a field needs the source that holds it: give `source`"))
    path, value, matches = get("field"), get("value"), get("matches")
    if path is None and "field" not in failed:
        given = "value" if value is not None else "matches"
        wrong.append((given, f"`{given}` is what a field holds: name the field with `field`"))
    elif value is None and matches is None and not failed & {"value", "matches"}:
        wrong.append(("field", "say what the field holds: give `value` or `matches`"))
    elif value is not None and matches is not None:
        wrong.append(("matches", "give `value` (exact) or `matches` (a pattern), not both"))
    read = None
    if isinstance(source, str) and isinstance(path, str) and not wrong:
        found = repository_field(source, path)  # a repository's field: read from the API
        if isinstance(found, str):
            wrong.append(("field", found))
        elif found is not None:
            source, read = found
    if wrong or failed & set(FIELD_KEYS):
        return source, None, wrong
    return source, {"path": path, "value": value, "matches": matches, "read": read}, wrong


_NOT_BOTH = (
    "a claim checks a quote or a field, not both: this one names a `field`, so no `{key}`;"
    " make the quote a claim of its own"
)
_NOT_READ = "a claim on a field reads the source's data, not its page: no `{key}`"
