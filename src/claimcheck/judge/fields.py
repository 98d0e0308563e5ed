"""Claims on fields: a value a source holds as data (a JSON document's, a card's front
matter), judged against the value the claim expects. Pure: bodies in, verdicts out.

A source's *document* is what its fields are read from: a JSON answer parsed whole, or
the YAML front matter a Markdown file (a Hugging Face card) opens with. A field is named
by a JSON Pointer (RFC 6901: `/license`, `/versions/0/name`, read with python-jsonpath)
or, for the front matter's keys, by the key itself (`license`), dotted for a nested one
(`model-index.0.name`); a pointer works on either kind of document.

Values compare as text, the way a person writes them in a claim file: a scalar is its
text (`true`/`false`, `null`, a number as written in decimal, a date as `YYYY-MM-DD`);
two texts that are both numbers compare as numbers, so `value: 2` holds for JSON `2`,
`2.0` and the string `"2"`. A list holds the value when one of its items does
(`license: [mit, apache-2.0]` holds `value: mit`); a mapping holds no value, and is
shown as compact JSON. `matches` is a regular expression the text must match whole
(`re.fullmatch`), tried on each item of a list likewise.
"""

from __future__ import annotations

import datetime as dt
import json
import re
from collections.abc import Mapping
from decimal import Decimal, InvalidOperation
from typing import Protocol

from claimcheck.judge.front_matter import front_matter_block
from claimcheck.late import json_pointers, yaml_reader
from claimcheck.models import Claim, ClaimResult, FieldValue, MediaType, Snapshot, Verdict


class _Absent:
    """No value: the field is not in the document."""


ABSENT = _Absent()
"""What `field_value` gives for a field that is not there."""


def pointer_problem(path: str) -> str | None:
    """What is wrong with a JSON Pointer as written (it begins with `/`), if anything:
    RFC 6901 escapes `~` as `~0` and `/` as `~1`, and nothing else."""
    at = re.search(r"~(?![01])", path)
    if at is not None:
        return (
            f"{path!r} is not a JSON Pointer: `~` at character {at.start() + 1} must be "
            "`~0` (a ~) or `~1` (a /), as RFC 6901 escapes them"
        )
    pointers = json_pointers()
    try:
        pointers.pointer(path)
    except pointers.error as exc:
        return f"{path!r} is not a JSON Pointer: {exc}"
    return None


def pattern_problem(pattern: str) -> str | None:
    """Why `pattern` is not a regular expression Python can use, if it is not."""
    try:
        re.compile(pattern)
    except re.error as exc:
        return f"is not a valid regular expression: {exc}"
    return None


def read_document(body: str, media: MediaType) -> object:
    """The document a source's fields are read from, or ABSENT when it has none: a JSON
    body parsed (also one served as text or Markdown that is JSON whole), else the
    front matter a Markdown file or card opens with (a mapping)."""
    stripped = body.strip()
    if media is MediaType.JSON or stripped.startswith(("{", "[")):
        try:
            value: object = json.loads(stripped)
        except ValueError:
            if media is MediaType.JSON:
                return ABSENT
        else:
            return value
    if media is MediaType.HTML:
        return ABSENT
    block = front_matter_block(body)
    if block is None:
        return ABSENT
    matter = _load_yaml(block)
    return matter if isinstance(matter, dict) else ABSENT


def _load_yaml(text: str) -> object:
    """YAML text as plain values, with PyYAML's safe loader (libyaml's when built with
    it); ABSENT when it is no YAML. PyYAML is loaded when a front matter's field is
    first read (`late.yaml_reader`): a run without such a claim imports no YAML library."""
    reader = yaml_reader()
    try:
        return reader.load(text)
    except reader.error:
        return ABSENT


def field_value(document: object, path: str) -> object:
    """The value at `path` in `document`, or ABSENT (see the module doc for the forms)."""
    if document is ABSENT:
        return ABSENT
    if path.startswith("/"):
        pointers = json_pointers()
        try:
            return pointers.pointer(path).resolve(document)  # type: ignore[arg-type]
        except (pointers.error, LookupError, TypeError):
            return ABSENT
    if isinstance(document, Mapping) and path in document:
        return document[path]  # a key that itself holds a dot
    value: object = document
    for key in path.split("."):
        if isinstance(value, Mapping) and key in value:
            value = value[key]
        elif isinstance(value, list) and key.isdigit() and int(key) < len(value):
            value = value[int(key)]
        else:
            return ABSENT
    return value


def as_text(value: object) -> str:
    """A field's value as text, as a claim file writes it and a report shows it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if value is None:
        return "null"
    if isinstance(value, float):
        return str(int(value)) if value.is_integer() and abs(value) < 1e16 else repr(value)
    if isinstance(value, dt.datetime | dt.date):
        return value.isoformat()
    if isinstance(value, dict | list):
        return json.dumps(value, ensure_ascii=False, separators=(", ", ": "), default=str)
    return str(value)


def _number(text: str) -> Decimal | None:
    try:
        number = Decimal(text.strip())
    except InvalidOperation:
        return None
    return number if number.is_finite() else None


def _scalar_holds(expected: FieldValue, value: object) -> bool:
    if isinstance(value, dict | list):
        return False
    text = as_text(value)
    if expected.matches is not None:
        return re.fullmatch(expected.matches, text) is not None
    assert expected.value is not None
    if text == expected.value:
        return True
    now, wanted = _number(text), _number(expected.value)
    return now is not None and wanted is not None and now == wanted


def field_holds(expected: FieldValue, value: object) -> bool:
    """Whether a field's value is what the claim expects (a list: one of its items)."""
    if value is ABSENT:
        return False
    if isinstance(value, list):
        return any(_scalar_holds(expected, item) for item in value)
    return _scalar_holds(expected, value)


def holds_in(expected: FieldValue, body: str, media: MediaType) -> bool:
    """Whether a body holds the field with the value the claim expects."""
    where = expected.read or expected.path
    return field_holds(expected, field_value(read_document(body, media), where))


def judge_field(
    claim: Claim,
    body: str,
    media: MediaType,
    where: str,
    *,
    baseline: tuple[str, MediaType, str] | None = None,
) -> ClaimResult:
    """The verdict on a claim on a field, from the source's body now (`where` says how it
    was read: "now", "in the snapshot of DATE") and, when known, the body, media and date
    words of its baseline. The result's snapshot, moved URL and age are the caller's."""
    expected = claim.field
    assert expected is not None
    path = expected.path
    where_read = expected.read or path
    document = read_document(body, media)
    value = field_value(document, where_read)
    shown = None if value is ABSENT else as_text(value)
    then_shown: str | None = None
    held_then: bool | None = None
    if baseline is not None:
        then_value = field_value(read_document(baseline[0], baseline[1]), where_read)
        then_shown = None if then_value is ABSENT else as_text(then_value)
        held_then = field_holds(expected, then_value)

    def result(verdict: Verdict, reason: str, diff: str | None = None) -> ClaimResult:
        return ClaimResult(
            claim=claim,
            verdict=verdict,
            reason=reason,
            found=shown,
            diff=diff,
            value_now=shown,
            value_then=then_shown,
        )

    if held_then is False and baseline is not None:
        was = f"held {then_shown!r}" if then_shown is not None else "was not there"
        never = (
            f"never matched at check date: the field {path!r} {was} as of {baseline[2]}, "
            "so the claim never had this support"
        )
        if not field_holds(expected, value):
            return result(Verdict.MISSING, never)
    if document is ABSENT:
        return result(
            Verdict.MISSING,
            f"the source {where} is no JSON document and has no front matter: the field "
            f"{path!r} can't be read; fix the claim's source or field",
        )
    if value is ABSENT:
        return result(Verdict.MISSING, f"the field {path!r} is not in the source {where}")
    if field_holds(expected, value):
        reason = f"the field {path!r} is {shown!r} {where}"
        if held_then is False and baseline is not None:
            was = f"held {then_shown!r}" if then_shown is not None else "was not there"
            reason += f"; it {was} on {baseline[2]}, so the claim was checked too early"
        return result(Verdict.VERIFIED, reason)
    wanted = (
        f"not {expected.value!r}"
        if expected.value is not None
        else f"which does not match {expected.matches!r}"
    )
    old = expected.value if expected.value is not None else then_shown
    since = f"; on {baseline[2]} it held {then_shown!r}" if then_shown and baseline else ""
    return result(
        Verdict.CHANGED,
        f"the field {path!r} changed: it is {shown!r} {where}, {wanted}{since}",
        f"[-{old}-]{{+{shown}+}}" if old is not None else None,
    )


class Seen(Protocol):
    """A source as observed (`judge.verdict.Observed`), with its body read."""

    snapshot: Snapshot
    body: str
    live: bool
    moved_to: str | None


def judge_seen_field(
    claim: Claim, state: Seen, baseline: Seen | None, moved: str = ""
) -> ClaimResult:
    """`judge_field` on observed bodies, its result naming the snapshots and a move
    (`moved`: what a reason adds for a source that moved)."""
    then = None
    if baseline is not None:
        when = f"{claim.checked} (baseline of {baseline.snapshot.fetched_at.date()})"
        then = (baseline.body, baseline.snapshot.media, when)
    where = "now" if state.live else f"in the snapshot of {state.snapshot.fetched_at.date()}"
    result = judge_field(claim, state.body, state.snapshot.media, where, baseline=then)
    moves = state.moved_to is not None and result.verdict is Verdict.VERIFIED
    return result.model_copy(
        update={
            "verdict": Verdict.MOVED if moves else result.verdict,
            "reason": result.reason + moved,
            "snapshot": state.snapshot,
            "moved_to": state.moved_to,
            "baseline": baseline.snapshot if baseline is not None else None,
        }
    )
